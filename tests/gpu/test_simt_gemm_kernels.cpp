// The SIMT GEMM kernel (kernels/gemm.cu) and the padded copies (kernels/gemm_padding.cu)
// launched directly, in f32 and f64, on every tile, element-wise, with 16-byte accesses and over
// padded copies, whole and with k split, and in f16 and bf16 (launch_gemm_widened: element-wise,
// whole k, f32 sums) on every tile: the cuda backend reaches f64 on this kernel only on a
// device without FP64 tensor cores (never an A100, H100, H200 or B200), and a given device's
// dispatch only some of the tiles a shape could take, so these paths are tested here by
// themselves. Seeded log-uniform shapes and the edges of each tile; every entry of C is checked
// against a host reference in double (the output is poisoned first, so an entry no thread
// writes fails). Skips where no CUDA device is present, or in a build without CUDA.
#include <gtest/gtest.h>

#if GPUBENCH_HAVE_CUDA

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "base/random.hpp"
#include "gpu_backend/device_buffer.cuh"
#include "kernels/gemm.cuh"
#include "kernels/gemm_padding.cuh"
#include "kernels/gemm_split_k.cuh"

namespace gpb {
namespace {

#define SKIP_WITHOUT_DEVICE()                                                                    \
  do {                                                                                           \
    int gpb_devices = 0;                                                                         \
    const cudaError_t gpb_status = cudaGetDeviceCount(&gpb_devices);                             \
    if (gpb_status != cudaSuccess || gpb_devices == 0) {                                         \
      cudaGetLastError();                                                                        \
      GTEST_SKIP() << "no CUDA device: " << (gpb_status != cudaSuccess ? cudaGetErrorString(gpb_status) : "none"); \
    }                                                                                            \
  } while (false)

struct Tile {
  kernels::SimtTile tile;
  int m, n, k;
  const char* name;
};
const Tile kTiles[] = {
    {kernels::SimtTile::large, kernels::GemmTile::kBlockM, kernels::GemmTile::kBlockN, kernels::GemmTile::kBlockK, "128x128"},
    {kernels::SimtTile::small, kernels::SmallGemmTile::kBlockM, kernels::SmallGemmTile::kBlockN,
     kernels::SmallGemmTile::kBlockK, "64x64"},
    {kernels::SimtTile::slim, kernels::SlimGemmTile::kBlockM, kernels::SlimGemmTile::kBlockN,
     kernels::SlimGemmTile::kBlockK, "128x32"},
    {kernels::SimtTile::wide, kernels::WideGemmTile::kBlockM, kernels::WideGemmTile::kBlockN,
     kernels::WideGemmTile::kBlockK, "32x128"}};

enum class Access { element_wise, vectors, padded };
const char* access_name(Access access) {
  return access == Access::element_wise ? "element-wise" : access == Access::vectors ? "16-byte" : "padded copies";
}

std::int64_t round_up(std::int64_t value, std::int64_t step) { return (value + step - 1) / step * step; }

template <class T>
void upload(cuda::DeviceBuffer<T>& device, const std::vector<T>& host) {
  ASSERT_EQ(cudaMemcpy(device.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
}

// C = A B by the kernel on `tile`, with `access` and k in `parts` parts, against the reference.
template <class T>
void expect_product(int m, int n, int k, const Tile& tile, Access access, int parts, std::uint64_t seed) {
  SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " + tile.name + " " +
               access_name(access) + " in " + std::to_string(parts) + " parts, " + (sizeof(T) == 4 ? "f32" : "f64"));
  constexpr int kLanes = 16 / static_cast<int>(sizeof(T));
  SplitMix64 rng(seed);
  std::vector<T> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n);
  for (T& value : a) value = static_cast<T>(2 * unit_interval(rng.next()) - 1);
  for (T& value : b) value = static_cast<T>(2 * unit_interval(rng.next()) - 1);
  cuda::DeviceBuffer<T> a_device(a.size(), "A"), b_device(b.size(), "B"), c_device(std::size_t(m) * n, "C");
  upload(a_device, a);
  upload(b_device, b);
  const int lda = access == Access::padded ? static_cast<int>(round_up(k, kLanes)) : k;
  const int ldb = access == Access::padded ? static_cast<int>(round_up(n, kLanes)) : n;
  cuda::DeviceBuffer<T> a_padded(std::size_t(m) * lda, "A padded"), b_padded(std::size_t(k) * ldb, "B padded");
  const T* a_used = a_device.data();
  const T* b_used = b_device.data();
  if (access == Access::padded) {
    const kernels::PaddedCopy<T> copies[2] = {{a_device.data(), a_padded.data(), m, k, lda},
                                              {b_device.data(), b_padded.data(), k, n, ldb}};
    kernels::launch_padded_copies(copies, 2, nullptr);
    a_used = a_padded.data();
    b_used = b_padded.data();
  }
  const int split_k = parts == 1 ? k : static_cast<int>(round_up((k + parts - 1) / parts, tile.k));
  const int used_parts = parts == 1 ? 1 : (k + split_k - 1) / split_k;
  cuda::DeviceBuffer<T> partials(std::size_t(used_parts) * m * n, "partials");
  ASSERT_EQ(cudaMemset(c_device.data(), 0xff, c_device.bytes()), cudaSuccess);  // NaN in every entry
  ASSERT_EQ(cudaMemset(partials.data(), 0xff, partials.bytes()), cudaSuccess);
  kernels::launch_gemm<T>(m, n, k, lda, ldb, a_used, b_used, used_parts > 1 ? partials.data() : c_device.data(),
                          access != Access::element_wise, tile.tile, used_parts, split_k, nullptr);
  if (used_parts > 1)
    kernels::launch_add_partials<T>(partials.data(), used_parts, m, n, n, c_device.data(), n, nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<T> c(std::size_t(m) * n);
  ASSERT_EQ(cudaMemcpy(c.data(), c_device.data(), c_device.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
  // k products rounded to T and summed in T, in any order: |error| <= (k + 1) eps(T) sum |a b|.
  constexpr double kEpsilon = std::numeric_limits<T>::epsilon();
  int bad = 0;
  for (int row = 0; row < m && bad < 5; ++row)
    for (int column = 0; column < n && bad < 5; ++column) {
      double reference = 0, magnitude = 0;
      for (int depth = 0; depth < k; ++depth) {
        const double term = static_cast<double>(a[std::size_t(row) * k + depth]) * b[std::size_t(depth) * n + column];
        reference += term;
        magnitude += std::fabs(term);
      }
      const double tolerance = (k + 1) * kEpsilon * magnitude;
      const double got = c[std::size_t(row) * n + column];
      if (!(std::fabs(got - reference) <= tolerance)) {
        ++bad;
        ADD_FAILURE() << "C[" << row << "][" << column << "] = " << got << ", reference " << reference;
      }
    }
}

// Shapes: the edges of each tile (one, a tile, a tile and one) and seeded log-uniform ones up to 300.
std::vector<std::array<int, 3>> shapes(std::uint64_t seed) {
  std::vector<std::array<int, 3>> list = {{1, 1, 1},    {1, 37, 5},   {33, 1, 17},  {128, 32, 16},
                                          {129, 33, 17}, {64, 64, 64}, {65, 127, 131}, {130, 130, 9}};
  SplitMix64 rng(seed);
  for (int i = 0; i < 6; ++i) {
    std::array<int, 3> shape{};
    for (int& side : shape) side = std::max(1, static_cast<int>(std::exp2(unit_interval(rng.next()) * std::log2(300.0))));
    list.push_back(shape);
  }
  return list;
}

// A 16-bit value rounded from x, and a 16-bit value widened.
template <class T>
T round_to(float x) {
  if constexpr (std::is_same_v<T, __half>) return __float2half_rn(x);
  else return __float2bfloat16_rn(x);
}
template <class T>
double widen(T value) {
  if constexpr (std::is_same_v<T, __half>) return __half2float(value);
  else return __bfloat162float(value);
}

// f16 or bf16 (T) through launch_gemm_widened on `tile`: the reference from the 16-bit inputs in
// double; the kernel's f32 sums of exact products, then one rounding to T.
template <class T>
void expect_widened_product(int m, int n, int k, const Tile& tile, std::uint64_t seed) {
  const bool half = std::is_same_v<T, __half>;
  SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " + tile.name + " " +
               (half ? "f16" : "bf16"));
  SplitMix64 rng(seed);
  std::vector<T> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n);
  std::vector<double> a_value(a.size()), b_value(b.size());
  const auto draw = [&](std::vector<T>& stored, std::vector<double>& value) {
    for (std::size_t i = 0; i < stored.size(); ++i) {
      stored[i] = round_to<T>(static_cast<float>(2 * unit_interval(rng.next()) - 1));
      value[i] = widen(stored[i]);
    }
  };
  draw(a, a_value);
  draw(b, b_value);
  cuda::DeviceBuffer<T> a_device(a.size(), "A"), b_device(b.size(), "B"), c_device(std::size_t(m) * n, "C");
  upload(a_device, a);
  upload(b_device, b);
  ASSERT_EQ(cudaMemset(c_device.data(), 0xff, c_device.bytes()), cudaSuccess);  // NaN in every entry
  kernels::launch_gemm_widened<T>(m, n, k, a_device.data(), b_device.data(), c_device.data(), tile.tile, nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<T> c(std::size_t(m) * n);
  ASSERT_EQ(cudaMemcpy(c.data(), c_device.data(), c_device.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
  const double epsilon16 = half ? 0x1p-10 : 0x1p-7;
  constexpr double kEpsilon32 = std::numeric_limits<float>::epsilon();
  int bad = 0;
  for (int row = 0; row < m && bad < 5; ++row)
    for (int column = 0; column < n && bad < 5; ++column) {
      double reference = 0, magnitude = 0;
      for (int depth = 0; depth < k; ++depth) {
        const double term = a_value[std::size_t(row) * k + depth] * b_value[std::size_t(depth) * n + column];
        reference += term;
        magnitude += std::fabs(term);
      }
      // f32 sums of exact products, then one rounding to T (half an ulp of T, subnormals aside).
      const double tolerance = (k + 1) * kEpsilon32 * magnitude + epsilon16 * std::fabs(reference) + 1e-7;
      const double got = widen(c[std::size_t(row) * n + column]);
      if (!(std::fabs(got - reference) <= tolerance)) {
        ++bad;
        ADD_FAILURE() << "C[" << row << "][" << column << "] = " << got << ", reference " << reference;
      }
    }
}

template <class T>
void check_every_path(std::uint64_t seed) {
  constexpr int kLanes = 16 / static_cast<int>(sizeof(T));
  for (const auto& [m, n, k] : shapes(seed))
    for (const Tile& tile : kTiles)
      for (Access access : {Access::element_wise, Access::vectors, Access::padded}) {
        if (access == Access::vectors && (n % kLanes != 0 || k % kLanes != 0)) continue;
        for (int parts : {1, 3}) {
          if (parts > 1 && k < 2 * tile.k) continue;
          expect_product<T>(m, n, k, tile, access, parts, seed + static_cast<std::uint64_t>(m * 131 + n * 7 + k));
        }
      }
}

TEST(SimtGemmKernel, F32EveryTileAndAccessVerifies) {
  SKIP_WITHOUT_DEVICE();
  check_every_path<float>(20261127);
}

TEST(SimtGemmKernel, F64EveryTileAndAccessVerifies) {
  SKIP_WITHOUT_DEVICE();
  check_every_path<double>(20261128);
}

// The 16-bit variant reads element by element at any row length: odd n and k, and the ones the
// dispatch sends here (1000 x 333 x 77), on every tile.
template <class T>
void check_widened(std::uint64_t seed) {
  std::vector<std::array<int, 3>> list = shapes(seed);
  list.push_back({1000, 333, 77});
  list.push_back({300, 301, 9});
  for (const auto& [m, n, k] : list)
    for (const Tile& tile : kTiles)
      expect_widened_product<T>(m, n, k, tile, seed + static_cast<std::uint64_t>(m * 131 + n * 7 + k));
}

TEST(SimtGemmKernel, F16WidenedEveryTileVerifies) {
  SKIP_WITHOUT_DEVICE();
  check_widened<__half>(20261129);
}

TEST(SimtGemmKernel, Bf16WidenedEveryTileVerifies) {
  SKIP_WITHOUT_DEVICE();
  check_widened<__nv_bfloat16>(20261130);
}

// A C of more rows of tiles than a grid's y holds (65535): launched in slabs of rows. The small
// tile's 64 rows at 4194305 rows: 65537 rows of tiles, the last slab two of them, one row in
// the last. k split over such a C is refused, with the kernel and the rows named.
TEST(SimtGemmKernel, RowsOfTilesPastTheGridsYLimitVerify) {
  SKIP_WITHOUT_DEVICE();
  const Tile& small = kTiles[1];
  ASSERT_EQ(small.m, 64);
  const int m = 65535 * 64 + 65;
  expect_product<float>(m, 8, 8, small, Access::vectors, 1, 20261207);
  cuda::DeviceBuffer<float> a(std::size_t(m) * 16, "A"), b(16 * 8, "B"), c(std::size_t(m) * 8 * 2, "partials");
  try {
    kernels::launch_gemm<float>(m, 8, 16, 16, 8, a.data(), b.data(), c.data(), true, small.tile, 2, 8, nullptr);
    ADD_FAILURE() << "a split C past 65535 rows of tiles was launched";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("the SIMT GEMM of 4194305 rows in 2 parts"), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace
}  // namespace gpb

#endif  // GPUBENCH_HAVE_CUDA
