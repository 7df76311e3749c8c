// The cuda backend's matmul on every path of its dispatch (src/gemm_dispatch.hpp), in every
// dtype, on odd and extreme shapes: k = 1, m = 1, n = 1, k far beyond m n, one past a tile
// edge, rows that are no whole 16-byte chunks. Each case checks that the kernel the dispatch
// plans for this device ran (its name, its split of k, its padding in the details) and
// verifies the result against the host's fp64 reference with the op table's tolerance; the
// output is poisoned before the run, so an entry no kernel writes fails. Split-k results
// carry the same bits on every run. Plain C++ through the Backend interface; every test skips
// where no CUDA device is present, or in a build without CUDA.
#include <gtest/gtest.h>

#if GPUBENCH_HAVE_CUDA

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <ostream>
#include <set>
#include <utility>
#include <stdexcept>
#include <string>
#include <vector>

#include "measure/backend.hpp"
#include "measure/context.hpp"
#include "measure/gemm_dispatch.hpp"
#include "model/op_table.hpp"
#include "model/problem.hpp"
#include "model/verify.hpp"
#include "same_bits.hpp"

namespace gpb {
namespace {

constexpr std::uint64_t kSeed = 20251125;

Backend& cuda_backend() {
  static const std::vector<std::unique_ptr<Backend>> backends = make_all_backends();
  for (const auto& backend : backends)
    if (backend->name() == "cuda") return *backend;
  throw std::logic_error("no cuda backend");
}

#define SKIP_WITHOUT_DEVICE()                                                                           \
  do {                                                                                                  \
    const Availability gpb_availability = cuda_backend().availability();                                \
    if (!gpb_availability.available) GTEST_SKIP() << "cuda unavailable: " << gpb_availability.reason;  \
  } while (false)

struct DeviceFacts {
  int sm_count = 0;
  int compute_capability = 0;
};

DeviceFacts this_device() {
  Context context;
  append_gpu_context(context);
  if (context.gpus.empty()) throw std::runtime_error("no CUDA device in the context");
  const GpuInfo& gpu = context.gpus[0];
  const std::size_t dot = gpu.compute_capability.find('.');
  return {gpu.sm_count, 10 * std::stoi(gpu.compute_capability.substr(0, dot)) +
                            std::stoi(gpu.compute_capability.substr(dot + 1))};
}

// The data-centre parts the default build serves, whose kernels are known in advance: A100
// (8.0: mma.sync, DMMA m8n8k4), H100/H200 (9.0: wgmma, DMMA m16n8k16), B200 (10.0: mma.sync,
// DMMA m16n8k16). Elsewhere (parts with less shared memory) the tests verify results only.
bool known_device(const DeviceFacts& device) {
  return device.compute_capability == 80 || device.compute_capability == 90 || device.compute_capability == 100;
}

// What the backend finds on a known device.
GemmDevice dispatch_facts(const DeviceFacts& device) {
  GemmDevice facts;
  facts.sm_count = device.sm_count;
  if (device.compute_capability != 90) facts.no_wgmma = "wgmma_gemm needs sm_90";
  facts.dmma_m16n8k16 = device.compute_capability >= 90;
  return facts;
}

struct GemmPathCase {
  DType dtype;
  std::int64_t m, n, k;
};

void PrintTo(const GemmPathCase& c, std::ostream* out) {
  *out << to_string(c.dtype) << " " << c.m << "x" << c.n << "x" << c.k;
}

// What each shape reaches (on an H100; the dispatch decides elsewhere). f16 and bf16 run the
// matrix-vector kernels up to 4 rows or columns (8 rows where n > 64 is not a multiple of 8:
// their tensor cores would copy B padded), the narrow kernel up to 64 columns (but with n
// and k multiples of 8, 33 to 64 rows, or more than 1536 rows with n past 32 and k <= 4096:
// wgmma) and the tensor-core tiles above; f64 the narrow kernel from 5 to 16 columns,
// vector_matrix up to 4 rows (16 where n <= 64) and the DMMA 16 x 128 tile for 5 to 16 rows of a
// wider B.
const std::vector<std::array<std::int64_t, 3>> kShapes = {
    {1, 1, 1},          // matrix_vector: one column, k = 1
    {7, 1, 5},          // matrix_vector, element-wise loads
    {1000, 3, 777},     // matrix_vector at 4 columns, odd k
    {4096, 16, 4096},   // matrix_vector at 16 columns, 16-byte loads, k split (16-bit: narrow, k split)
    {33, 3, 200003},    // matrix_vector, k far beyond m n: split, element-wise
    {100, 2, 5000},     // matrix_vector, 16-byte loads, tiles of B and a partial last one
    {14693, 4, 24},     // matrix_vector, 16-byte loads, k within one step of the tile
    {300, 1, 8200},     // 16-bit: matrix_vector reading B from L1, k split, a last part of 8
    {8192, 2, 520},     // 16-bit: the same at 2 columns, k past whole groups of steps
    {33, 9, 200003},    // the same at 16 columns (16-bit: narrow, A element by element, k split)
    {1, 17, 1},         // vector_matrix: k = 1, a partial column block
    {1, 8192, 256},     // vector_matrix, 16-byte loads
    {2, 4096, 1001},    // vector_matrix, 16-byte loads, warps' runs off the 8 rows in flight
    {3, 1001, 777},     // vector_matrix at 4 rows, one past m, element-wise
    {16, 4097, 300},    // vector_matrix at 16 rows, odd n (16-bit: wgmma, B and C padded; f64: 16 x 128, k split)
    {9, 20000, 100},    // f64: the DMMA 16 x 128 tile, 16-byte copies, whole k (f32: vector_matrix)
    {5, 65, 3001},      // f64: the 16 x 128 tile one row and column past vector_matrix, element-wise, k split
                        // (16-bit: vector_matrix at 8 rows, one column past the narrow kernel)
    {16, 129, 2048},    // f64: one column past a 16 x 128 tile, all 16 of its rows, element-wise, k split
    {3, 64, 300007},    // vector_matrix, k far beyond m n: split
    {9, 64, 300007},    // the same at 16 rows (16-bit: narrow, one warp's rows, k split)
    {13, 28, 10117},    // vector_matrix in groups of 4 rows, a narrow C, k in many parts summed by entries
    {15, 127, 3562},    // vector_matrix in groups of 2 rows (f32), element-wise, k split
    {4, 300, 5000},     // vector_matrix in groups of 1 row (16-bit), a partial column block, k split
    {8, 1001, 777},     // vector_matrix in groups of rows, odd n, k split (16-bit: 8 groups of 1; f64: 16 x 128)
    {8, 20001, 1000},   // vector_matrix at 8 rows, all of them used, odd n (16-bit: k split; f64: 16 x 128)
    {6, 10660, 3458},   // vector_matrix at 8 rows, odd n, k split (16-bit: the cliff check's 0.50x on wgmma)
    {17, 17, 17},       // 16-bit: narrow at 32 columns, k within one stage, element-wise A
    {40, 48, 5},        // short k (every dtype), 16-byte stores of C
    {33, 45, 34},       // one past f32's and f64's short k: tiled (16-bit: narrow at 64 columns, B staged)
    {1000, 5, 1031},    // 16-bit: narrow at 8 columns, odd k over stages, k split
    {300, 64, 77},      // 16-bit: narrow at its widest (B's rows aligned: pipelined), k within one stage: whole
    {2000, 24, 4104},   // 16-bit: narrow at 32 columns, 16-byte loads, a last stage of 8 rows
    {5, 40, 20000},     // 16-bit: narrow with one warp's rows, most of them past m
    {777, 56, 1000},    // 16-bit: narrow pipelined at 64 columns, k split in parts of 128 (ending in a stage), the last 104
    {785, 62, 1005},    // 16-bit: narrow, B staged, k split in parts of 96 (in a stage), odd k: element-wise A
    {2000, 48, 512},    // 16-bit on sm_90: wgmma unpadded for a narrow C of many rows (not the narrow kernel)
    {128, 256, 64},     // one whole wgmma tile (f64 on sm_90: eight small DMMA tiles, 16-byte copies)
    {129, 257, 65},     // one past each tile edge (16-bit on sm_90: wgmma 64 x 128, A and B padded; f64 on sm_90:
                        // small DMMA tiles, element-wise)
    {1000, 333, 77},    // odd and small (16-bit on sm_90: wgmma, A and B padded, C stored element by element)
    {830, 383, 24},     // 16-bit on sm_90: the SIMT 64 x 64 tile widened (two stages, no padded copies); f32, f64:
                        // short k
    {64, 64, 100000},   // one tile, k split (16-bit: wgmma 64 x 128; f32, f64: the 64 x 64 tile)
    {256, 256, 20000},  // four 128 x 128 tiles, k split (f32: the 128 x 128 tile)
    {129, 257, 20001},  // one past the edges, k split (16-bit: A and B padded, C from the partials; f64: 64 x 64)
    {300, 520, 5000},   // several tiles, still fewer than the SMs: k split
    {1025, 1031, 1027}, // several waves of tiles, odd (16-bit: padded; f32: A and B padded, k split)
    {4097, 1031, 41},   // odd, many tiles (f32: the 64 x 64 tile, element-wise, whole k)
    {1537, 2047, 41},   // odd, many tiles (f32: the 128 x 128 tile over A and B padded, whole k; f64: 128 x 64,
                        // element-wise)
    {1536, 1408, 512},  // f64: the 128 x 64 DMMA tile, 16-byte copies, its tiles one per block in flight
    {2212, 30, 9642},   // 30 columns, long k (f32: the 128 x 32 tile, element-wise, k split; f64: 64 x 64)
    {17, 4502, 524},    // 17 rows (f32: the 32 x 128 tile, element-wise, k split)
    {32, 2048, 3000},   // 32 rows (f32: the 32 x 128 tile, 16-byte loads, k split)
    {520, 301, 2000},   // odd n, several tiles (f32: the 64 x 64 tile, element-wise, k split)
    {4096, 5, 999},     // f64: narrow at 8 columns, two blocks an SM, odd k
    {600, 45, 3001},    // f64: the 64 x 64 DMMA tile past the narrow kernel's 16 columns, odd k
    {9000, 120, 200},   // 16-bit: the 128 x 128 wgmma tile, B and C padded to 128 columns
    {3000, 128, 8000},  // 16-bit: the 128 x 128 wgmma tile, k split
};

std::vector<GemmPathCase> all_cases() {
  std::vector<GemmPathCase> cases;
  for (DType dtype : all_dtypes())
    for (const auto& [m, n, k] : kShapes) cases.push_back({dtype, m, n, k});
  return cases;
}

// Runs the case once and checks the result against the reference.
void expect_verified(const Problem& problem, Prepared& prepared, const std::string& details) {
  prepared.run();
  prepared.synchronize();
  const Verification verification = verify(problem, prepared.result());
  EXPECT_TRUE(verification.checked);
  EXPECT_TRUE(verification.passed) << "max error " << verification.max_error << " vs tolerance "
                                   << verification.tolerance << "; details: " << details;
}

class CudaGemmPath : public ::testing::TestWithParam<GemmPathCase> {};

TEST_P(CudaGemmPath, RunsThePlannedKernelAndVerifies) {
  SKIP_WITHOUT_DEVICE();
  const GemmPathCase& c = GetParam();
  const DeviceFacts device = this_device();
  const Problem problem = make_problem(Op::matmul, c.dtype, matmul_shape(c.m, c.n, c.k), kSeed);
  auto prepared = cuda_backend().prepare(problem, BackendSettings{});
  const std::string details = prepared->details();
  if (known_device(device)) {
    const GemmPlan plan = plan_gemm(c.dtype, c.m, c.n, c.k, dispatch_facts(device));
    EXPECT_EQ(details.rfind(std::string("kernel=") + gemm_kernel_name(plan.kernel) + " (", 0), 0u) << details;
    const std::string split = "split_k=" + std::to_string(plan.splits) + "x" + std::to_string(plan.split_k) + " ";
    EXPECT_EQ(details.find(split) != std::string::npos, plan.splits > 1) << details;
    EXPECT_EQ(details.find("split_k=") != std::string::npos, plan.splits > 1) << details;
    EXPECT_EQ(details.find("staged:") != std::string::npos, plan.stage_a || plan.stage_b) << details;
    EXPECT_NE(details.find(" rule: " + plan.rule), std::string::npos) << details;
  }
  expect_verified(problem, *prepared, details);
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, CudaGemmPath, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<GemmPathCase>& param_info) {
                           const GemmPathCase& c = param_info.param;
                           return to_string(c.dtype) + "_" + std::to_string(c.m) + "x" + std::to_string(c.n) + "x" +
                                  std::to_string(c.k);
                         });

// A C of more rows of tiles than a grid's y holds (65535 rows of 128-row tiles): the SIMT (f32)
// and DMMA (f64) kernels are launched in slabs of rows, and the product verifies.
TEST(CudaGemmPaths, RowsOfTilesPastTheGridsYLimitVerify) {
  SKIP_WITHOUT_DEVICE();
  const DeviceFacts device = this_device();
  const std::int64_t m = 8388737, n = 40, k = 40;
  for (DType dtype : {DType::f32, DType::f64}) {
    SCOPED_TRACE(to_string(dtype));
    if (known_device(device)) {
      const GemmPlan plan = plan_gemm(dtype, m, n, k, dispatch_facts(device));
      EXPECT_TRUE(plan.kernel == GemmKernel::simt || plan.kernel == GemmKernel::dmma) << plan.rule;
      EXPECT_GT((m + plan.tile.m - 1) / plan.tile.m, 65535) << plan.rule;
    }
    const Problem problem = make_problem(Op::matmul, dtype, matmul_shape(m, n, k), kSeed);
    auto prepared = cuda_backend().prepare(problem, BackendSettings{});
    expect_verified(problem, *prepared, prepared->details());
  }
}

// The shapes above reach every kernel of each dtype on this device, each split of k and the
// padding: so no path goes untested.
TEST(CudaGemmPaths, TheShapesReachEveryPath) {
  SKIP_WITHOUT_DEVICE();
  const DeviceFacts device = this_device();
  if (!known_device(device)) GTEST_SKIP() << "compute capability " << device.compute_capability << ": kernels not known";
  for (DType dtype : all_dtypes()) {
    std::set<GemmKernel> kernels, split;
    std::set<std::pair<int, int>> tiles, split_tiles;  // the SIMT or DMMA tiles planned, and those split
    std::set<std::pair<int, int>> wgmma_tiles;          // the wgmma tiles planned
    bool staged = false, staged_and_split = false, element_wise = false, row_groups = false;
    for (const auto& [m, n, k] : kShapes) {
      const GemmPlan plan = plan_gemm(dtype, m, n, k, dispatch_facts(device));
      kernels.insert(plan.kernel);
      row_groups = row_groups || (plan.kernel == GemmKernel::vector_matrix && plan.vector_width < m);
      if (plan.splits > 1) split.insert(plan.kernel);
      if (plan.kernel == GemmKernel::wgmma) wgmma_tiles.insert({plan.tile.m, plan.tile.n});
      if (plan.kernel == GemmKernel::simt || plan.kernel == GemmKernel::dmma) {
        tiles.insert({plan.tile.m, plan.tile.n});
        if (plan.splits > 1) split_tiles.insert({plan.tile.m, plan.tile.n});
        element_wise = element_wise || !plan.vectorized;
      }
      staged = staged || (plan.stage_b && plan.splits == 1);
      staged_and_split = staged_and_split || (plan.stage_b && plan.splits > 1);
    }
    EXPECT_TRUE(row_groups) << to_string(dtype) << ": no shape runs vector_matrix in groups of A's rows";
    if (dtype == DType::f32) {
      const std::set<std::pair<int, int>> every_tile = {{128, 128}, {64, 64}, {128, 32}, {32, 128}};
      EXPECT_EQ(tiles, every_tile);
      EXPECT_EQ(split_tiles, every_tile);
      EXPECT_TRUE(element_wise);
    }
    if ((dtype == DType::f16 || dtype == DType::bf16) && device.compute_capability == 90) {  // the four wgmma tiles
      EXPECT_EQ(wgmma_tiles, (std::set<std::pair<int, int>>{{128, 256}, {64, 256}, {128, 128}, {64, 128}}));
    }
    if (dtype == DType::f64 && device.compute_capability >= 90) {
      // The four DMMA tiles; each but the medium one also split (it is taken only where its
      // tiles fill every block in flight).
      const std::set<std::pair<int, int>> every_split_tile = {{128, 128}, {64, 64}, {16, 128}};
      std::set<std::pair<int, int>> every_tile = every_split_tile;
      every_tile.insert({128, 64});
      EXPECT_EQ(tiles, every_tile);
      EXPECT_EQ(split_tiles, every_split_tile);
    }
    const bool sixteen_bit = dtype == DType::f16 || dtype == DType::bf16;
    const GemmKernel tiled = sixteen_bit ? (device.compute_capability == 90 ? GemmKernel::wgmma : GemmKernel::mma_sync)
                                         : (dtype == DType::f64 ? GemmKernel::dmma : GemmKernel::simt);
    std::set<GemmKernel> every = {GemmKernel::matrix_vector, GemmKernel::vector_matrix, tiled};
    if (sixteen_bit || (dtype == DType::f64 && device.compute_capability >= 90)) every.insert(GemmKernel::narrow);
    std::set<GemmKernel> every_and_short_k = every;
    every_and_short_k.insert(GemmKernel::short_k);
    // 16-bit rows not whole chunks, small products: the SIMT tiles in f32 (never split), where
    // they price below the padded copies and the tensor-core kernel (wgmma: its start too).
    if (sixteen_bit && (device.compute_capability == 90 || kernels.count(GemmKernel::simt) > 0))
      every_and_short_k.insert(GemmKernel::simt);
    EXPECT_EQ(kernels, every_and_short_k) << to_string(dtype);
    EXPECT_EQ(split, every) << to_string(dtype);  // short k never splits
    // Padded copies: the 16-bit tensor-core kernels, and f32's SIMT kernel where they price lower.
    EXPECT_EQ(staged, dtype != DType::f64) << to_string(dtype);
    EXPECT_EQ(staged_and_split, dtype != DType::f64) << to_string(dtype);
  }
}

// The short-k kernel (rule 2 of src/measure/gemm_dispatch.hpp) in every dtype: k of 1, 2, 3,
// 7, 8, 9, 15, 16, 17 and the dtype's threshold and one past it at 830 x 383 (odd n: element
// stores; the cliff check's shape), C one row or column off a block's edge (outputs of at most
// kVerifyAllUpTo: every entry checked), the narrowest C each dtype sends it (n or m of 5 for
// 16-bit, n of 5 for f64 on sm_90, 17 otherwise), and large C (4096 x 4096 x 3, 1024 x 1000 at
// the threshold). Each case checks that the short-k kernel ran exactly where the rule says (m
// and n past the matrix-vector sides and k at most the threshold; it needs no tensor cores),
// with the planned block, 16-byte stores where n allows, no split and no padded copies;
// verifies against the fp64 reference; and runs twice more for the same bits.
std::vector<GemmPathCase> short_k_cases() {
  std::vector<GemmPathCase> cases;
  for (DType dtype : all_dtypes()) {
    const std::int64_t depth = short_k_max_depth(dtype);
    std::set<std::int64_t> depths = {1, 2, 3, 7, 8, 9, 15, 16, 17, depth, depth + 1};
    for (std::int64_t k : depths) cases.push_back({dtype, 830, 383, k});
    for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{
             {65, 128, 4},      // one row past a 64-row block
             {64, 129, 4},      // one column past a 128-column block
             {31, 257, 11},     // a row short of 32, a column past 256
             {257, 255, 7},     // both, odd n
             {255, 256, 16},    // 16-byte stores on partial blocks
             {513, 17, 3},      // f32 (f64 below sm_90): the narrowest C of the kernel
             {17, 4097, 2},     // f32, f64: the fewest rows
             {1000, 5, 3},      // 16-bit and f64 on sm_90: the narrowest C of the kernel (f32: matrix_vector)
             {5, 1000, 3},      // 16-bit and f64 on sm_90: the fewest rows (f32: vector_matrix)
             {6, 1001, 3},      // f64 on sm_90 (16-bit, f32: vector_matrix, B's odd rows streamed once)
             {4096, 4096, 3},
             {2000, 2450, 8}}) {  // odd wide C (16-bit: 256-wide blocks, a row's stores 64 bytes an instruction)
      cases.push_back({dtype, m, n, k});
    }
    cases.push_back({dtype, 1024, 1000, depth});
  }
  return cases;
}

class CudaGemmShortK : public ::testing::TestWithParam<GemmPathCase> {};

TEST_P(CudaGemmShortK, RunsWhereTheRuleSaysAndVerifies) {
  SKIP_WITHOUT_DEVICE();
  const GemmPathCase& c = GetParam();
  const bool sixteen_bit = c.dtype == DType::f16 || c.dtype == DType::bf16;
  // f64 takes matrix_vector up to 4 columns where the narrow DMMA kernel runs (sm_90 on), and
  // vector_matrix up to 4 rows where n > 64.
  const bool f64_narrow = c.dtype == DType::f64 && this_device().compute_capability >= 90;
  const std::int64_t side = sixteen_bit  ? sixteen_bit_vector_matrix_max_rows(c.n)
                            : f64_narrow ? f64_vector_matrix_max_rows(c.n)
                                         : kMatmulVectorMaxSide;
  const std::int64_t columns = sixteen_bit || f64_narrow ? kSixteenBitVectorMaxSide : kMatmulVectorMaxSide;
  const bool short_k = c.m > side && c.n > columns && c.k <= short_k_max_depth(c.dtype);
  const Problem problem = make_problem(Op::matmul, c.dtype, matmul_shape(c.m, c.n, c.k), kSeed);
  auto prepared = cuda_backend().prepare(problem, BackendSettings{});
  const std::string details = prepared->details();
  EXPECT_EQ(details.rfind("kernel=short_k_gemm (", 0) == 0, short_k) << details;
  if (short_k) {
    GemmDevice facts;  // the short-k plan asks nothing of the device but its SMs (and the f64 side above)
    facts.sm_count = this_device().sm_count;
    facts.dmma_m16n8k16 = f64_narrow;
    const GemmPlan plan = plan_gemm(c.dtype, c.m, c.n, c.k, facts);
    ASSERT_EQ(plan.kernel, GemmKernel::short_k);
    EXPECT_NE(details.find("block_tile=" + std::to_string(plan.tile.m) + "x" + std::to_string(plan.tile.n) + "x" +
                           std::to_string(c.k) + " "),
              std::string::npos)
        << details;
    const auto vector = static_cast<std::int64_t>(16 / dtype_size(c.dtype));
    EXPECT_NE(details.find(c.n % vector == 0 ? "global_access=vec16" : "global_access=scalar"), std::string::npos)
        << details;
    EXPECT_EQ(details.find("split_k="), std::string::npos) << details;
    EXPECT_EQ(details.find("staged:"), std::string::npos) << details;
    EXPECT_NE(details.find(" rule: " + plan.rule), std::string::npos) << details;
  }
  expect_verified(problem, *prepared, details);
  if (short_k) expect_same_bits_on_rerun(*prepared, prepared->result(), 2, "short-k");
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, CudaGemmShortK, ::testing::ValuesIn(short_k_cases()),
                         [](const ::testing::TestParamInfo<GemmPathCase>& param_info) {
                           const GemmPathCase& c = param_info.param;
                           return to_string(c.dtype) + "_" + std::to_string(c.m) + "x" + std::to_string(c.n) + "x" +
                                  std::to_string(c.k);
                         });

// Split k's partials are added in part order, with no atomics: the same bits on every run.
TEST(CudaGemmPaths, SplitResultsAreDeterministic) {
  SKIP_WITHOUT_DEVICE();
  for (DType dtype : all_dtypes()) {
    // The tiled kernels' splits (their partials added by a second kernel) and the
    // matrix-vector kernels' (added by the last block of each piece).
    for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{
             {64, 64, 100000}, {9, 64, 300007}, {33, 9, 200003}, {129, 257, 20001}, {3, 64, 300007}, {33, 3, 200003},
             {7, 4097, 8000}}) {  // the last: 16-bit vector_matrix at 8 rows (f64: the 16 x 128 DMMA tile)
      const Problem problem = make_problem(Op::matmul, dtype, matmul_shape(m, n, k), kSeed);
      auto prepared = cuda_backend().prepare(problem, BackendSettings{});
      SCOPED_TRACE(to_string(dtype) + " " + problem.shape.label(Op::matmul) + ": " + prepared->details());
      EXPECT_NE(prepared->details().find("split_k="), std::string::npos);
      prepared->run();
      prepared->synchronize();
      expect_same_bits_on_rerun(*prepared, prepared->result(), 3, "split-k");
    }
  }
}

}  // namespace
}  // namespace gpb

#else

TEST(CudaGemmPaths, RequireCuda) { GTEST_SKIP() << "built without CUDA: the GPU backends are not compiled in"; }

#endif
