// The wgmma GEMM kernel (kernels/gemm_wgmma.cu) launched directly, on each of its four tiles
// (128 x 256, 64 x 256, 128 x 128, 64 x 128) in clusters of one block and of two, in f16 and
// bf16, whole and with k split: a device's dispatch plans only some of the tiles (none of the
// 128-wide ones yet), so each is tested here by itself. The inputs are multiples of 1/16 in
// [-1, 1], so that every product and every f32 sum is exact (k up to 1024: at most 2^10 in
// steps of 2^-8, 19 bits of f32's 24) and each entry of C must be the exact sum rounded once
// to the element type, bit for bit; C is poisoned first (NaN), so an entry no thread writes
// fails, and the padding past C's columns must keep its poison. The argument checks run
// anywhere; the products skip where no CUDA device is present, on a device other than sm_90,
// where the build has no sm_90a code, or in a build without CUDA.
#include <gtest/gtest.h>

#if GPUBENCH_HAVE_CUDA

#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "base/half_float.hpp"
#include "base/random.hpp"
#include "gpu_backend/device_buffer.cuh"
#include "gpu_backend/stream.cuh"
#include "kernels/gemm_padding.cuh"
#include "kernels/gemm_split_k.cuh"
#include "kernels/gemm_wgmma.cuh"

namespace gpb {
namespace {

struct WgmmaTile {
  int consumers, block_n;
};
constexpr WgmmaTile kWgmmaTiles[] = {{2, 256}, {1, 256}, {2, 128}, {1, 128}};

TEST(WgmmaGemmKernel, EachTileAndClusterSizeHasItsOwnCount) {
  kernels::WgmmaGrid grid;
  int count = 1;
  for (const WgmmaTile& tile : kWgmmaTiles)
    for (int cluster_m : {1, 2})
      grid.counts[kernels::WgmmaGrid::tile_index(tile.consumers, tile.block_n)][cluster_m - 1] = count++;
  count = 1;
  for (const WgmmaTile& tile : kWgmmaTiles)
    for (int cluster_m : {1, 2}) EXPECT_EQ(grid.clusters(tile.consumers, tile.block_n, cluster_m), count++);
}

TEST(WgmmaGemmKernel, RejectsTilesAndClustersItLacks) {
  const kernels::WgmmaGrid grid;
  const WgmmaTile lacking[] = {{0, 256}, {3, 256}, {2, 64}, {1, 192}, {2, 0}};
  for (const WgmmaTile& tile : lacking)
    EXPECT_THROW(kernels::WgmmaGrid::tile_index(tile.consumers, tile.block_n), std::invalid_argument)
        << tile.consumers << " consumers, " << tile.block_n << " columns";
  EXPECT_THROW(grid.clusters(2, 256, 0), std::invalid_argument);
  EXPECT_THROW(grid.clusters(1, 128, 4), std::invalid_argument);
  // Before anything reaches the device.
  const kernels::GemmOperands<__nv_bfloat16> operands;
  EXPECT_THROW(kernels::launch_gemm_wgmma(operands, 2, 64, 1, grid, nullptr), std::invalid_argument);
  EXPECT_THROW(kernels::launch_gemm_wgmma(operands, 3, 128, 1, grid, nullptr), std::invalid_argument);
  EXPECT_THROW(kernels::launch_gemm_wgmma(operands, 1, 128, 3, grid, nullptr), std::invalid_argument);
}

// Why the products cannot run here, or nothing when they can.
std::string wgmma_unavailable() {
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    cudaGetLastError();
    return std::string("no CUDA device: ") + (status != cudaSuccess ? cudaGetErrorString(status) : "none");
  }
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess)
    return "the device's compute capability could not be read";
  if (major != 9 || minor != 0) return "wgmma needs sm_90";
  if (!kernels::wgmma_gemm_compiled_in()) return "this build has no sm_90a code";
  return "";
}

struct Shape {
  int m, n, k;
  int c_columns, ldc;  // C's width (at most n) and leading dimension
};

template <class T>
constexpr const Binary16Layout& layout() {
  return std::is_same_v<T, __half> ? kFloat16Layout : kBFloat16Layout;
}

// A (m x k) and B (k x n) of multiples of 1/16 in [-1, 1], as values and as T's bits.
template <class T>
struct Operands {
  std::vector<double> a, b;
  std::vector<std::uint16_t> a_bits, b_bits;
};
template <class T>
Operands<T> draw_operands(SplitMix64& rng, int m, int n, int k) {
  const auto draw = [&] { return static_cast<double>(static_cast<int>(rng.next() % 33) - 16) / 16; };
  Operands<T> o{std::vector<double>(std::size_t(m) * k), std::vector<double>(std::size_t(k) * n), {}, {}};
  for (double& value : o.a) value = draw();
  for (double& value : o.b) value = draw();
  o.a_bits.resize(o.a.size());
  o.b_bits.resize(o.b.size());
  for (std::size_t i = 0; i < o.a.size(); ++i) o.a_bits[i] = round_to_bits(o.a[i], layout<T>());
  for (std::size_t i = 0; i < o.b.size(); ++i) o.b_bits[i] = round_to_bits(o.b[i], layout<T>());
  return o;
}

// Whether C[row][column] = `got` is the exact sum of A's row times B's column rounded once to
// T; a failure names the entry. B is n columns wide.
template <class T>
bool entry_is_exact(const Operands<T>& o, int n, int k, int row, int column, std::uint16_t got) {
  double sum = 0;
  for (int depth = 0; depth < k; ++depth) sum += o.a[std::size_t(row) * k + depth] * o.b[std::size_t(depth) * n + column];
  const std::uint16_t expected = round_to_bits(sum, layout<T>());
  if (got == expected) return true;
  ADD_FAILURE() << "C[" << row << "][" << column << "] = " << value_of_bits(got, layout<T>()) << ", expected "
                << value_of_bits(expected, layout<T>()) << " (exact " << sum << ")";
  return false;
}

// C = A B by the kernel on `tile` in clusters of cluster_m, k in `parts` parts, against the
// exact sums rounded to T.
template <class T>
void expect_product(const Shape& shape, const WgmmaTile& tile, int cluster_m, int parts,
                    const kernels::WgmmaGrid& grid, std::uint64_t seed) {
  const auto [m, n, k, c_columns, ldc] = shape;
  SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " (C " +
               std::to_string(c_columns) + " wide, ldc " + std::to_string(ldc) + ") tile " +
               std::to_string(64 * tile.consumers) + "x" + std::to_string(tile.block_n) + " cluster " +
               std::to_string(cluster_m) + " in " + std::to_string(parts) + " parts, " +
               (std::is_same_v<T, __half> ? "f16" : "bf16"));
  SplitMix64 rng(seed);
  const Operands<T> o = draw_operands<T>(rng, m, n, k);

  cuda::DeviceBuffer<T> a_device(o.a.size(), "A"), b_device(o.b.size(), "B"), c_device(std::size_t(m) * ldc, "C");
  ASSERT_EQ(cudaMemcpy(a_device.data(), o.a_bits.data(), a_device.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(b_device.data(), o.b_bits.data(), b_device.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(c_device.data(), 0xff, c_device.bytes()), cudaSuccess);  // NaN in every entry

  constexpr int kStageK = kernels::WgmmaGemmTile::kBlockK;
  const int split_k = parts == 1 ? k : ((k + parts - 1) / parts + kStageK - 1) / kStageK * kStageK;
  const int used_parts = (k + split_k - 1) / split_k;
  cuda::DeviceBuffer<float> partials(used_parts > 1 ? std::size_t(used_parts) * m * n : 1, "partials");
  kernels::GemmOperands<T> operands;
  operands.m = m;
  operands.n = n;
  operands.k = k;
  operands.lda = k;
  operands.ldb = n;
  operands.ldc = ldc;
  operands.c_columns = c_columns;
  operands.a = a_device.data();
  operands.b = b_device.data();
  operands.c = c_device.data();
  operands.parts = used_parts;
  operands.split_k = split_k;
  operands.partials = used_parts > 1 ? partials.data() : nullptr;
  kernels::launch_gemm_wgmma(operands, tile.consumers, tile.block_n, cluster_m, grid, nullptr);
  if (used_parts > 1)
    kernels::launch_add_partials<T>(partials.data(), used_parts, m, c_columns, n, c_device.data(), ldc, nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<std::uint16_t> c(std::size_t(m) * ldc);
  ASSERT_EQ(cudaMemcpy(c.data(), c_device.data(), c_device.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);

  int bad = 0;
  for (int row = 0; row < m && bad < 5; ++row)
    for (int column = 0; column < ldc && bad < 5; ++column) {
      const std::uint16_t got = c[std::size_t(row) * ldc + column];
      if (column >= c_columns) {
        if (got != 0xffff) {
          ++bad;
          ADD_FAILURE() << "C's padding at [" << row << "][" << column << "] was written";
        }
        continue;
      }
      if (!entry_is_exact(o, n, k, row, column, got)) ++bad;
    }
}

// Shapes: a lone row, a tile of each size, a tile and a little more, several tiles over
// several SMs, and C narrower than B (odd widths, stored element by element, and widths of
// whole chunks with a wider ldc). n and k multiples of 8 (whole 16-byte rows, as the kernel
// takes them).
const Shape kShapes[] = {{1, 8, 8, 8, 8},           {64, 128, 64, 128, 128},   {128, 256, 64, 256, 256},
                         {65, 136, 72, 136, 136},   {129, 264, 200, 264, 264}, {300, 120, 520, 120, 120},
                         {520, 128, 1024, 128, 128}, {200, 256, 136, 253, 253}, {97, 128, 256, 120, 136}};

template <class T>
void check_every_tile() {
  const std::string unavailable = wgmma_unavailable();
  if (!unavailable.empty()) GTEST_SKIP() << unavailable;
  const kernels::WgmmaGrid grid = kernels::configure_gemm_wgmma();
  std::uint64_t seed = 1;
  for (const Shape& shape : kShapes)
    for (const WgmmaTile& tile : kWgmmaTiles)
      for (int cluster_m : {1, 2})
        for (int parts : {1, 3}) {
          if (parts > 1 && shape.k < 3 * kernels::WgmmaGemmTile::kBlockK) continue;
          expect_product<T>(shape, tile, cluster_m, parts, grid, seed++);
          if (testing::Test::HasFatalFailure()) return;
        }
}

TEST(WgmmaGemmKernel, F16EveryTileAndClusterVerifies) { check_every_tile<__half>(); }
TEST(WgmmaGemmKernel, BF16EveryTileAndClusterVerifies) { check_every_tile<__nv_bfloat16>(); }

// The padded copies and the kernel as the backend runs them where rows are not whole 16-byte
// chunks: A and B copied into buffers of whole chunks, then the kernel launched while the
// copies run (after_copies) with one WgmmaMaps kept over rounds whose inputs change: new
// values in the same buffers (the copies of this round, not the last, must be read), other
// buffers (the descriptors encoded again), another shape in those buffers (again). Each
// round's C must be its exact product, bit for bit, and C's padding untouched.
// `stream`: one of the test's own, as the backend's cases have, or the legacy default stream
// (nullptr).
template <class T>
void check_after_copies(const WgmmaTile& tile, int cluster_m, cudaStream_t stream) {
  const std::string unavailable = wgmma_unavailable();
  if (!unavailable.empty()) GTEST_SKIP() << unavailable;
  const kernels::WgmmaGrid grid = kernels::configure_gemm_wgmma();
  SCOPED_TRACE("tile " + std::to_string(64 * tile.consumers) + "x" + std::to_string(tile.block_n) + " cluster " +
               std::to_string(cluster_m) + (std::is_same_v<T, __half> ? ", f16" : ", bf16") +
               (stream ? ", own stream" : ", legacy default stream"));
  constexpr int kLanes = 8;  // 16-bit elements in 16 bytes
  const auto padded = [](int size) { return (size + kLanes - 1) / kLanes * kLanes; };
  struct Round {
    int m, n, k, buffers;
  };
  const Round rounds[] = {{777, 130, 1001, 0}, {777, 130, 1001, 0}, {777, 130, 1001, 1}, {300, 45, 77, 1}};
  constexpr int kMaxM = 777, kMaxN = 130, kMaxK = 1001;
  std::vector<cuda::DeviceBuffer<T>> sources_a, sources_b, copies_a, copies_b;
  for (int set = 0; set < 2; ++set) {
    sources_a.emplace_back(std::size_t(kMaxM) * kMaxK, "A");
    sources_b.emplace_back(std::size_t(kMaxK) * kMaxN, "B");
    copies_a.emplace_back(std::size_t(kMaxM) * padded(kMaxK), "A padded");
    copies_b.emplace_back(std::size_t(kMaxK) * padded(kMaxN), "B padded");
  }
  cuda::DeviceBuffer<T> c_device(std::size_t(kMaxM) * kMaxN, "C");
  kernels::WgmmaMaps maps;
  SplitMix64 rng(77);
  int round_index = 0;
  for (const Round& round : rounds) {
    SCOPED_TRACE("round " + std::to_string(round_index++) + ": " + std::to_string(round.m) + "x" +
                 std::to_string(round.n) + "x" + std::to_string(round.k) + " in buffers " +
                 std::to_string(round.buffers));
    const int m = round.m, n = round.n, k = round.k, lda = padded(k), ldb = padded(n);
    const Operands<T> o = draw_operands<T>(rng, m, n, k);
    T* a_source = sources_a[round.buffers].data();
    T* b_source = sources_b[round.buffers].data();
    ASSERT_EQ(cudaMemcpy(a_source, o.a_bits.data(), o.a_bits.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(b_source, o.b_bits.data(), o.b_bits.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemset(c_device.data(), 0xff, c_device.bytes()), cudaSuccess);  // NaN in every entry
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // before the work on `stream`

    const kernels::PaddedCopy<T> copies[2] = {{a_source, copies_a[round.buffers].data(), m, k, lda},
                                              {b_source, copies_b[round.buffers].data(), k, n, ldb}};
    kernels::launch_padded_copies(copies, 2, stream);
    kernels::GemmOperands<T> operands;
    operands.m = m;
    operands.n = ldb;
    operands.k = k;
    operands.lda = lda;
    operands.ldb = ldb;
    operands.ldc = n;
    operands.c_columns = n;
    operands.a = copies[0].dst;
    operands.b = copies[1].dst;
    operands.c = c_device.data();
    operands.split_k = k;  // one part
    kernels::launch_gemm_wgmma(operands, tile.consumers, tile.block_n, cluster_m, grid, stream, true, &maps);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(maps.a_base, copies[0].dst);
    EXPECT_EQ(maps.m, m);
    std::vector<std::uint16_t> c(std::size_t(kMaxM) * kMaxN);
    ASSERT_EQ(cudaMemcpy(c.data(), c_device.data(), c_device.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    int bad = 0;
    for (int row = 0; row < m && bad < 5; ++row)
      for (int column = 0; column < n && bad < 5; ++column)
        if (!entry_is_exact(o, n, k, row, column, c[std::size_t(row) * n + column])) ++bad;
    for (std::size_t at = std::size_t(m) * n; at < c.size() && bad < 5; ++at)
      if (c[at] != 0xffff) {
        ++bad;
        ADD_FAILURE() << "C past its " << m << " x " << n << " entries, at " << at << ", was written";
      }
    if (bad > 0) return;
  }
}

TEST(WgmmaGemmKernel, F16AfterPaddedCopiesWithKeptDescriptors) {
  if (const std::string unavailable = wgmma_unavailable(); !unavailable.empty()) GTEST_SKIP() << unavailable;
  const cuda::Stream stream;
  ASSERT_NE(stream.get(), nullptr) << "cudaStreamCreateWithFlags failed";
  check_after_copies<__half>({1, 128}, 2, stream.get());
  check_after_copies<__half>({2, 256}, 1, stream.get());
  check_after_copies<__half>({1, 128}, 2, nullptr);
}
TEST(WgmmaGemmKernel, BF16AfterPaddedCopiesWithKeptDescriptors) {
  if (const std::string unavailable = wgmma_unavailable(); !unavailable.empty()) GTEST_SKIP() << unavailable;
  const cuda::Stream stream;
  ASSERT_NE(stream.get(), nullptr) << "cudaStreamCreateWithFlags failed";
  check_after_copies<__nv_bfloat16>({2, 128}, 2, stream.get());
  check_after_copies<__nv_bfloat16>({1, 256}, 1, stream.get());
  check_after_copies<__nv_bfloat16>({1, 128}, 1, nullptr);
}

}  // namespace
}  // namespace gpb

#else

TEST(WgmmaGemmKernel, RequireCuda) { GTEST_SKIP() << "built without CUDA: the GPU kernels are not compiled in"; }

#endif  // GPUBENCH_HAVE_CUDA
