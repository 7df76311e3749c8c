// The cuda backend's GEMM dispatch (src/gemm_dispatch.hpp): named shapes from the issue that
// asked for it, the extremes (1, one off a tile edge, k far beyond m n), and seeded
// log-uniform shapes on several devices, against the rule's invariants.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "base/random.hpp"
#include "measure/gemm_dispatch.hpp"
#include "model/op_table.hpp"

namespace gpb {
namespace {

// An H100 running the default build: wgmma, DMMA m16n8k16.
GemmDevice hopper() {
  GemmDevice device;
  device.sm_count = 132;
  device.dmma_m16n8k16 = true;
  return device;
}

// An A100: no wgmma, DMMA m8n8k4.
GemmDevice ampere() {
  GemmDevice device;
  device.sm_count = 108;
  device.no_wgmma = "wgmma_gemm needs sm_90";
  return device;
}

// A small part without FP64 tensor cores.
GemmDevice small_device() {
  GemmDevice device;
  device.sm_count = 16;
  device.no_wgmma = "wgmma_gemm needs sm_90";
  device.no_dmma = "the DMMA kernel needs 112 KiB of shared memory per block, this device allows 99 KiB";
  return device;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

TEST(GemmDispatch, LongKWithOneTileSplitsKForEverySm) {
  // 128 x 256: one 128 x 256 tile in 128 parts, or two 64 x 256 tiles in 66 (priced lower; on an
  // H200 65 against 76 us): either way a part for every SM.
  const GemmPlan bf16 = plan_gemm(DType::bf16, 128, 256, 1 << 18, hopper());
  EXPECT_EQ(bf16.kernel, GemmKernel::wgmma);
  EXPECT_EQ(bf16.tile.m, 64);
  EXPECT_EQ(bf16.pieces, 2);
  EXPECT_EQ(bf16.cluster_m, 2);  // two row tiles: a pair sharing B
  EXPECT_GE(bf16.pieces * bf16.splits, 120);  // whole 64-deep steps: 66 parts of 4032
  EXPECT_LE(bf16.pieces * bf16.splits, 132);
  EXPECT_EQ(bf16.split_k % 64, 0);
  EXPECT_TRUE(contains(bf16.rule, "2 tiles for 132 SMs: k=262144 split in " + std::to_string(bf16.splits) + " parts of " +
                                      std::to_string(bf16.split_k)))
      << bf16.rule;

  // 16-bit n of 64 or less: the narrow kernel, one row block, two blocks per SM: 264 parts of
  // whole 32-row steps.
  const GemmPlan narrow = plan_gemm(DType::bf16, 128, 64, 1 << 20, hopper());
  EXPECT_EQ(narrow.kernel, GemmKernel::narrow);
  EXPECT_EQ(narrow.pieces, 1);
  EXPECT_EQ(narrow.vector_width, 64);
  EXPECT_EQ(narrow.split_k % kNarrowSplitStep, 0);
  EXPECT_EQ(narrow.splits, 263);  // 1048576 / 264 rounded up to a step: 4000 deep, 263 parts
  EXPECT_TRUE(contains(narrow.rule, "1 row blocks for 264 blocks in flight: k=1048576 split in 263 parts of 4000"))
      << narrow.rule;
  // A short k splits in steps too, not in stages of 256 (785 x 62 x 1005 in stages: 2 parts of
  // 512, 14 blocks for 264 in flight), and the count is priced (split_narrow_priced), not the
  // one that fills the blocks in flight: on an H100 (GEMM version 25's bench, kernel and sum,
  // us), 785 x 62 x 1005 in 11 parts 13.1 against 16 parts' 14.2; 5360 x 62 x 536 in 3 parts
  // 17.2 against 6 parts' 22.9 (the rule before), whole 19.9; 9000 x 45 x 300 and 16384 x 63 x
  // 1024 whole 15.1 and 34.0 against 18.4 and 40.1 in 3 and 2 parts; 8192 x 50 x 8192 in 4
  // parts 86.8, whole 187.
  struct NarrowSplit {
    std::int64_t m, n, k;
    int splits;
  };
  for (const NarrowSplit& c : {NarrowSplit{785, 62, 1005, 11}, {5360, 62, 536, 3}, {9000, 45, 300, 1},
                               {16384, 63, 1024, 1}, {8192, 50, 8192, 4}, {2000, 60, 700, 6}, {5000, 12, 3000, 6}}) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k));
    const GemmPlan plan = plan_gemm(DType::f16, c.m, c.n, c.k, hopper());
    EXPECT_EQ(plan.kernel, GemmKernel::narrow);
    EXPECT_EQ(plan.pieces, ceil_div(c.m, std::int64_t{128}));
    EXPECT_EQ(plan.splits, c.splits);
    EXPECT_EQ(plan.split_k % kNarrowSplitStep, 0);
    EXPECT_TRUE(contains(plan.rule, c.splits > 1 ? " partials added in part order (priced " : ": no split (priced "))
        << plan.rule;
  }
  // Row blocks that fill a wave never split (a split would add waves); half a wave of them, two
  // parts.
  EXPECT_EQ(plan_gemm(DType::bf16, 264 * 128, 64, 100000, hopper()).splits, 1);
  EXPECT_EQ(plan_gemm(DType::bf16, 132 * 128, 64, 100000, hopper()).splits, 2);
  // But a k within one 256-deep stage stays whole (the cliff check's bf16 14156 x 55 x 122: 2
  // parts of 64 ran 23.5 us with their sum on an H200, whole 14.5), one row block or many; one
  // step past the stage splits again.
  for (const auto& [m, n, k] : {std::array<std::int64_t, 3>{14156, 55, 122}, {64, 17, 250}, {3000, 8, 96},
                                {128, 33, 256}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
    const GemmPlan one_stage = plan_gemm(DType::bf16, m, n, k, hopper());
    EXPECT_EQ(one_stage.kernel, GemmKernel::narrow);
    EXPECT_EQ(one_stage.splits, 1);
    EXPECT_TRUE(contains(one_stage.rule, ": no split (k=" + std::to_string(k) + " within one 256-deep stage)"))
        << one_stage.rule;
  }
  EXPECT_GT(plan_gemm(DType::bf16, 128, 33, 257, hopper()).splits, 1);
  // With 33 to 64 rows (n and k multiples of 8), the wgmma 64 x 128 tile, a part for every SM
  // (64 x 64 x 1048576 on an H200: 97.9 us against the narrow kernel's 119.9).
  const GemmPlan few_rows = plan_gemm(DType::bf16, 64, 64, 1 << 20, hopper());
  EXPECT_EQ(few_rows.kernel, GemmKernel::wgmma);
  EXPECT_EQ(std::make_pair(few_rows.tile.m, few_rows.tile.n), std::make_pair(64, 128));
  EXPECT_EQ(few_rows.splits, 132);
  EXPECT_FALSE(few_rows.stage_a || few_rows.stage_b);
  EXPECT_TRUE(contains(few_rows.rule, "16-bit C of 33 to 64 rows and n <= 64, n and k multiples of 8, runs the wgmma"))
      << few_rows.rule;
  // Padding, more rows, fewer rows or no wgmma keep the narrow kernel.
  for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{
           {64, 60, 1 << 20}, {64, 64, (1 << 20) + 1}, {65, 64, 1 << 20}, {32, 64, 1 << 20}})
    EXPECT_EQ(plan_gemm(DType::bf16, m, n, k, hopper()).kernel, GemmKernel::narrow) << m << "x" << n << "x" << k;
  EXPECT_EQ(plan_gemm(DType::bf16, 64, 64, 1 << 20, ampere()).kernel, GemmKernel::narrow);
  // Many rows, n of 33 to 64 and k of at most 4096 (n, k multiples of 8): the wgmma tiles,
  // unpadded (H100: 16384 x 64 x 1024 17.4 us against the narrow kernel's 29.9).
  for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{
           {16384, 64, 1024}, {5360, 64, 536}, {1537, 40, 64}, {12000, 40, 512}, {4096, 64, 4096}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
    const GemmPlan many_rows = plan_gemm(DType::f16, m, n, k, hopper());
    EXPECT_EQ(many_rows.kernel, GemmKernel::wgmma);
    EXPECT_FALSE(many_rows.stage_a || many_rows.stage_b);
    EXPECT_TRUE(contains(many_rows.rule, "16-bit C of more than 1536 rows, n of 33 to 64 and k <= 4096, n and k "
                                         "multiples of 8, runs the wgmma tiles unpadded"))
        << many_rows.rule;
  }
  // One past each edge, padding, 32 columns or no wgmma keep the narrow kernel.
  for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{
           {1536, 64, 1024}, {16384, 64, 4104}, {16384, 32, 1024}, {16384, 63, 1024}, {16384, 64, 1020},
           {7000, 40, 7000}})
    EXPECT_EQ(plan_gemm(DType::bf16, m, n, k, hopper()).kernel, GemmKernel::narrow) << m << "x" << n << "x" << k;
  EXPECT_EQ(plan_gemm(DType::bf16, 16384, 64, 1024, ampere()).kernel, GemmKernel::narrow);

  // f32's SIMT kernel keeps two blocks per SM: twice the parts, on its 64 x 64 tile.
  const GemmPlan f32 = plan_gemm(DType::f32, 64, 64, 1 << 20, hopper());
  EXPECT_EQ(f32.kernel, GemmKernel::simt);
  EXPECT_EQ(f32.tile.m, 64);
  EXPECT_EQ(f32.splits, 264);

  const GemmPlan f64 = plan_gemm(DType::f64, 128, 128, 262144, hopper());
  EXPECT_EQ(f64.kernel, GemmKernel::dmma);
  EXPECT_EQ(f64.pieces, 1);
  EXPECT_GE(f64.splits, 120);
  EXPECT_LE(f64.splits, 132);
  EXPECT_EQ(f64.split_k % 32, 0);
}

TEST(GemmDispatch, MatrixVectorShapesRunTheMatrixVectorKernels) {
  const GemmPlan row = plan_gemm(DType::bf16, 1, 8192, 8192, hopper());
  EXPECT_EQ(row.kernel, GemmKernel::vector_matrix);
  EXPECT_EQ(row.vector_width, 1);
  EXPECT_TRUE(row.vectorized);
  EXPECT_EQ(row.tile.n, 256);  // 32 lanes x 8 bf16
  EXPECT_EQ(row.pieces, 32);
  EXPECT_EQ(row.splits, 8);  // one wave of 264 blocks in flight over 32 column blocks
  EXPECT_TRUE(contains(row.rule, "m=1: B streamed by rows")) << row.rule;

  // 256 row blocks fill the 264 blocks in flight: a split would only add a second wave.
  const GemmPlan column = plan_gemm(DType::f32, 8192, 1, 8192, hopper());
  EXPECT_EQ(column.kernel, GemmKernel::matrix_vector);
  EXPECT_EQ(column.vector_width, 1);
  EXPECT_EQ(column.pieces, 256);  // 8192 rows in blocks of 32
  EXPECT_EQ(column.splits, 1);
  const GemmPlan fewer_rows = plan_gemm(DType::f32, 4096, 1, 8192, hopper());
  EXPECT_EQ(fewer_rows.splits, 2);
  EXPECT_EQ(fewer_rows.split_k % 512, 0);
  // Tiles of B: 256 rows for f64, 512 for f32, 2048 for 16-bit with 16-byte loads (512 element
  // by element), and k's parts are whole tiles.
  EXPECT_EQ(plan_gemm(DType::f64, 8192, 1, 8192, hopper()).tile.k, 256);
  EXPECT_EQ(column.tile.k, 512);
  for (DType dtype : {DType::f16, DType::bf16}) {
    EXPECT_EQ(plan_gemm(dtype, 8192, 1, 8192, hopper()).tile.k, 2048) << to_string(dtype);
    EXPECT_EQ(plan_gemm(dtype, 8192, 1, 8191, hopper()).tile.k, 512) << to_string(dtype);
    const GemmPlan split = plan_gemm(dtype, 64, 3, 1 << 20, hopper());
    EXPECT_EQ(split.kernel, GemmKernel::matrix_vector);
    EXPECT_GT(split.splits, 1);
    EXPECT_EQ(split.split_k % 2048, 0) << split.split_k;
    // 16-byte loads at 1 or 2 columns read B from L1, without the tile; 3 and 4 columns, or
    // loads element by element, keep it.
    for (std::int64_t n : {1, 2}) {
      EXPECT_TRUE(contains(plan_gemm(dtype, 8192, n, 8192, hopper()).rule, "B read by each lane from L1"));
      EXPECT_TRUE(contains(plan_gemm(dtype, 8192, n, 8191, hopper()).rule, "B through shared tiles of 512 rows"));
    }
    for (std::int64_t n : {3, 4})
      EXPECT_TRUE(contains(plan_gemm(dtype, 8192, n, 8192, hopper()).rule, "B through shared tiles of 2048 rows"));
  }
  EXPECT_TRUE(contains(column.rule, "B through shared tiles of 512 rows")) << column.rule;

  // All of m's rows in one block: B is read once (f64 without DMMA m16n8k16: an A100).
  const GemmPlan sixteen_rows = plan_gemm(DType::f64, 16, 8192, 8192, ampere());
  EXPECT_EQ(sixteen_rows.kernel, GemmKernel::vector_matrix);
  EXPECT_EQ(sixteen_rows.vector_width, 16);
  EXPECT_EQ(sixteen_rows.pieces, 128);  // 64 doubles a block
  EXPECT_EQ(plan_gemm(DType::f32, 9, 8192, 8192, hopper()).vector_width, 16);
  EXPECT_EQ(plan_gemm(DType::f32, 16, 8192, 8192, hopper()).kernel, GemmKernel::vector_matrix);

  // 16-bit matrix-vector shapes wider than 4 run the tensor cores.
  for (DType dtype : {DType::f16, DType::bf16}) {
    EXPECT_EQ(plan_gemm(dtype, 4, 8192, 8192, hopper()).kernel, GemmKernel::vector_matrix);
    EXPECT_EQ(plan_gemm(dtype, 8192, 4, 8192, hopper()).kernel, GemmKernel::matrix_vector);
    const GemmPlan wide = plan_gemm(dtype, 16, 8192, 8192, hopper());
    EXPECT_EQ(wide.kernel, GemmKernel::wgmma);
    EXPECT_EQ(wide.cluster_m, 1);
    EXPECT_EQ(wide.pieces, 32);
    EXPECT_EQ(wide.splits, 4);
    EXPECT_TRUE(contains(wide.rule, "16-bit m of 5 to 16 runs the tensor cores")) << wide.rule;
    // Narrow C: the narrow kernel on any device with mma.sync, nothing padded.
    const GemmPlan tall = plan_gemm(dtype, 8192, 5, 8192, ampere());
    EXPECT_EQ(tall.kernel, GemmKernel::narrow);
    EXPECT_FALSE(tall.stage_a || tall.stage_b);
    EXPECT_EQ(tall.vector_width, 8);
    EXPECT_EQ(tall.n_kernel, 5);
    const GemmPlan sixteen = plan_gemm(dtype, 8192, 16, 8192, hopper());
    EXPECT_EQ(sixteen.kernel, GemmKernel::narrow);
    EXPECT_EQ(sixteen.vector_width, 16);
    EXPECT_EQ(sixteen.pieces, 64);  // 8192 rows in blocks of 128
    EXPECT_EQ(sixteen.splits, 4);   // 264 blocks in flight over 64 row blocks
    EXPECT_TRUE(contains(sixteen.rule, "would multiply 16x the products needed")) << sixteen.rule;
    EXPECT_EQ(plan_gemm(dtype, 8192, 33, 8191, hopper()).vector_width, 64);
    EXPECT_FALSE(plan_gemm(dtype, 8192, 33, 8191, hopper()).vectorized);
    EXPECT_EQ(plan_gemm(dtype, 8192, 65, 8192, hopper()).kernel, GemmKernel::wgmma);
  }

  // Short k splits in steps of the kernel (8 rows of B a warp): 2 column blocks of 2 x 347 x 1408
  // in 22 parts of 64, each of A's rows a block of its own (2 x 2 x 22 blocks: with both rows
  // in a block, 2 x 22 would leave most of the 264 in flight idle).
  const GemmPlan short_k = plan_gemm(DType::f16, 2, 347, 1408, hopper());
  EXPECT_EQ(short_k.vector_width, 1);
  EXPECT_EQ(short_k.pieces, 4);
  EXPECT_EQ(short_k.splits, 22);
  EXPECT_EQ(short_k.split_k, 64);
  EXPECT_TRUE(contains(short_k.rule, "in 2 groups of 1")) << short_k.rule;

  // Rows of A in groups: f32 15 x 127 x 3562 (28 parts at most) in 8 groups of 2, each piece's
  // last block adding 28 parts in 2 rounds of loads; 16 x 127 x 35620 (556 parts at most, so
  // the blocks fill at 16 rows) in groups too, its 186 parts of all 16 rows taking 96 rounds;
  // B over 32 MiB keeps the rows together (16 x 8192 x 8192: 256 MiB).
  const GemmPlan grouped = plan_gemm(DType::f32, 15, 127, 3562, hopper());
  EXPECT_EQ(grouped.vector_width, 2);
  EXPECT_EQ(grouped.pieces, 8);
  EXPECT_EQ(grouped.splits, 28);
  const GemmPlan deep_grouped = plan_gemm(DType::f32, 16, 127, 35620, hopper());
  EXPECT_EQ(deep_grouped.vector_width, 2);
  EXPECT_EQ(deep_grouped.pieces, 8);
  EXPECT_EQ(deep_grouped.splits, 33);
  const GemmPlan wide_b = plan_gemm(DType::f32, 16, 8192, 8192, hopper());
  EXPECT_EQ(wide_b.vector_width, 16);
  EXPECT_EQ(wide_b.pieces, 64);
  // A k that does not split keeps the rows together (16 x 4096 x 64: one step of 64).
  EXPECT_EQ(plan_gemm(DType::f32, 16, 4096, 64, hopper()).vector_width, 16);

  // Odd widths run the same kernels with element-wise loads.
  EXPECT_FALSE(plan_gemm(DType::f16, 3, 1001, 777, hopper()).vectorized);
  EXPECT_EQ(plan_gemm(DType::f16, 3, 1001, 777, hopper()).vector_width, 1);  // 3 groups of 1
  EXPECT_FALSE(plan_gemm(DType::f64, 1001, 3, 777, hopper()).vectorized);
  EXPECT_EQ(plan_gemm(DType::f64, 1001, 3, 777, hopper()).vector_width, 4);
}

// 16-bit rows of B that are not whole 16-byte chunks, past the narrow kernel's 64 columns: up to
// 8 rows of A stream B once on vector_matrix, where the tensor cores would first copy B padded;
// aligned or narrow B, or 9 rows, keep their kernels (on every device: the copy is the
// tensor-core kernels', wgmma or mma.sync).
TEST(GemmDispatch, SixteenBitFewRowsOfAnUnalignedWideBStreamIt) {
  for (const GemmDevice& device : {hopper(), ampere()}) {
    for (DType dtype : {DType::f16, DType::bf16}) {
      SCOPED_TRACE(to_string(dtype) + " on " + std::to_string(device.sm_count) + " SMs");
      for (std::int64_t m = 5; m <= 8; ++m) {
        for (std::int64_t n : {65, 66, 1001, 4097, 10660}) {
          const GemmPlan plan = plan_gemm(dtype, m, n, 3458, device);
          EXPECT_EQ(plan.kernel, GemmKernel::vector_matrix) << m << " x " << n << ": " << plan.rule;
          // All rows in one block, or in groups where B is L2-sized and k splits (as at any m).
          if (n == 10660)
            EXPECT_EQ(plan.vector_width, 8) << plan.rule;
          else
            EXPECT_LE(plan.vector_width, 8) << plan.rule;
          EXPECT_FALSE(plan.vectorized);
          EXPECT_FALSE(plan.stage_a || plan.stage_b);
          EXPECT_TRUE(contains(plan.rule, "and m <= 8 where n > 64 is not a multiple of 8: the tensor cores would "
                                          "copy B padded"))
              << plan.rule;
        }
        // Short k too: B streamed once either way.
        EXPECT_EQ(plan_gemm(dtype, m, 4097, 3, device).kernel, GemmKernel::vector_matrix);
      }
      const GemmKernel tiled = device.no_wgmma ? GemmKernel::mma_sync : GemmKernel::wgmma;
      EXPECT_EQ(plan_gemm(dtype, 9, 10660, 3458, device).kernel, tiled);            // a ninth row
      EXPECT_EQ(plan_gemm(dtype, 8, 10664, 3458, device).kernel, tiled);            // aligned B: no copy
      EXPECT_EQ(plan_gemm(dtype, 8, 63, 3458, device).kernel, GemmKernel::narrow);  // the narrow kernel's
      EXPECT_EQ(plan_gemm(dtype, 4, 10664, 3458, device).kernel, GemmKernel::vector_matrix);
    }
  }
  // f32 and f64 as before.
  EXPECT_EQ(plan_gemm(DType::f32, 8, 10660, 3458, hopper()).vector_width, 8);
  EXPECT_EQ(plan_gemm(DType::f64, 8, 10660, 3458, hopper()).kernel, GemmKernel::dmma);
}

TEST(GemmDispatch, SixteenBitOddShapesArePaddedForTheTensorCores) {
  const GemmPlan odd = plan_gemm(DType::bf16, 4097, 4097, 4097, hopper());
  EXPECT_EQ(odd.kernel, GemmKernel::wgmma);
  EXPECT_TRUE(odd.stage_a && odd.stage_b);
  EXPECT_EQ(odd.lda, 4104);
  EXPECT_EQ(odd.ldb, 4104);
  EXPECT_EQ(odd.n_kernel, 4104);
  EXPECT_EQ(odd.splits, 1);
  EXPECT_EQ(odd.cluster_m, 2);
  EXPECT_TRUE(contains(odd.rule, "staged: A and B padded to 16-byte rows (k=4104, n=4104) by copies inside the timed "
                                 "op, C stored element by element"))
      << odd.rule;

  // Only what is misaligned: k odd pads A alone, n odd pads B and C.
  const GemmPlan odd_k = plan_gemm(DType::f16, 4096, 4096, 4097, hopper());
  EXPECT_TRUE(odd_k.stage_a);
  EXPECT_FALSE(odd_k.stage_b);
  EXPECT_EQ(odd_k.n_kernel, 4096);
  const GemmPlan odd_n = plan_gemm(DType::f16, 1000, 333, 80, ampere());
  EXPECT_EQ(odd_n.kernel, GemmKernel::mma_sync);
  EXPECT_FALSE(odd_n.stage_a);
  EXPECT_TRUE(odd_n.stage_b);
  EXPECT_EQ(odd_n.n_kernel, 336);
  EXPECT_EQ(odd_n.fallback, "wgmma_gemm needs sm_90");

  // Split, the partials are n_kernel wide.
  const GemmPlan split_odd = plan_gemm(DType::bf16, 200, 333, 100001, hopper());
  EXPECT_GT(split_odd.splits, 1);
  EXPECT_TRUE(split_odd.stage_a && split_odd.stage_b);
  EXPECT_EQ(split_odd.n_kernel, 336);
}

// The split is priced: measured on an H100, 16-bit short-wide 128 x 16384 x 1024 in 2 parts ran
// 0.43x cuBLAS (its partials cost more than the 8 steps they saved), and f64 198 x 79 x 944
// whole, 2 tiles walking 30 steps, 6.8x slower than cuBLAS.
TEST(GemmDispatch, SplitsArePricedAgainstThePartialsTraffic) {
  for (DType dtype : {DType::f16, DType::bf16}) {
    const GemmPlan short_wide = plan_gemm(dtype, 128, 16384, 1024, hopper());
    EXPECT_EQ(short_wide.pieces, 128);  // of 64 x 256: 10.8 against 15.7 us for 64 of 128 x 256 (H200)
    EXPECT_EQ(short_wide.splits, 1);
    EXPECT_TRUE(contains(short_wide.rule, "split: the second launch and the partials' traffic outweigh")) << short_wide.rule;
  }
  for (DType dtype : all_dtypes()) {
    SCOPED_TRACE(to_string(dtype));
    const GemmPlan few_tiles = plan_gemm(dtype, 198, 79, 944, hopper());
    EXPECT_GE(few_tiles.splits, 8) << few_tiles.rule;
    EXPECT_LE(few_tiles.pieces * few_tiles.splits, 132 * few_tiles.blocks_per_sm);
    // Priced lower than whole, by the margin.
    EXPECT_TRUE(contains(few_tiles.rule, " unsplit)")) << few_tiles.rule;
  }
  // The sum of partials waits out a load latency per 8 parts where C is small: f64 43 x 63 x
  // 6456 split into 202 one-stage parts (priced 7 us) took 46.5 us on an H200 against cuBLAS's
  // 21.2; priced with that chain, 68 parts of three stages took 15.4 us.
  const GemmPlan small_c = plan_gemm(DType::f64, 43, 63, 6456, hopper());
  EXPECT_EQ(small_c.kernel, GemmKernel::dmma);
  EXPECT_GT(small_c.splits, 16);
  EXPECT_LE(small_c.splits, 100);
  EXPECT_GE(small_c.split_k, 3 * small_c.tile.k);
  // A long k still splits into a part for every block in flight: the chain is short against it.
  const GemmPlan long_k = plan_gemm(DType::f64, 43, 63, 1 << 22, hopper());
  EXPECT_GE(long_k.splits, 200);
  // Deeper k, same tiles: never fewer parts.
  for (DType dtype : all_dtypes()) {
    int previous = 1;
    for (std::int64_t k = 64; k <= (1 << 22); k *= 2) {
      const int splits = plan_gemm(dtype, 300, 300, k, hopper()).splits;
      EXPECT_GE(splits, previous) << to_string(dtype) << " k=" << k;
      previous = splits;
    }
  }
}

// f64 from 5 to 16 columns on the narrow DMMA kernel where the device has m16n8k16, at any m
// (8192 x 16 x 8192 left matrix_vector, 38 % of the copy rate); from 17 columns the DMMA tiles,
// whose 64 x 64 tile ran ahead of the narrow kernel there.
TEST(GemmDispatch, F64NarrowShapesRunTheNarrowKernel) {
  EXPECT_EQ(plan_gemm(DType::f64, 8192, 4, 8192, hopper()).kernel, GemmKernel::matrix_vector);
  const GemmPlan five = plan_gemm(DType::f64, 8192, 5, 8192, hopper());
  EXPECT_EQ(five.kernel, GemmKernel::narrow);
  EXPECT_EQ(five.vector_width, 8);
  EXPECT_EQ(five.blocks_per_sm, 2);
  const GemmPlan sixteen = plan_gemm(DType::f64, 8192, 16, 8192, hopper());
  EXPECT_EQ(sixteen.kernel, GemmKernel::narrow);
  EXPECT_EQ(sixteen.blocks_per_sm, 2);
  EXPECT_EQ(sixteen.splits, 4);  // 64 row blocks, 264 in flight
  EXPECT_TRUE(contains(sixteen.rule, "f64 n of 5 to 16 runs the narrow kernel (DMMA m16n8k16")) << sixteen.rule;
  EXPECT_TRUE(contains(sixteen.rule, "the 64-column tiles would multiply 4x the products needed")) << sixteen.rule;
  const GemmPlan odd = plan_gemm(DType::f64, 1730, 13, 8081, hopper());
  EXPECT_EQ(odd.kernel, GemmKernel::narrow);
  EXPECT_EQ(odd.vector_width, 16);
  EXPECT_FALSE(odd.vectorized);  // k odd
  // From 17 columns the DMMA kernel's 64 x 64 tile, each shape with its priced split (the shapes
  // measured against the narrow kernel on an H200: kNarrowF64GemmTile's comment).
  for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{{8192, 17, 8192},
                                                                        {8192, 24, 8192},
                                                                        {8192, 32, 8192},
                                                                        {8192, 64, 8192},
                                                                        {64, 64, 1048576},
                                                                        {64, 48, 500000},
                                                                        {300, 64, 20000},
                                                                        {2000, 48, 2000},
                                                                        {1730, 25, 8081}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
    const GemmPlan plan = plan_gemm(DType::f64, m, n, k, hopper());
    EXPECT_EQ(plan.kernel, GemmKernel::dmma);
    EXPECT_EQ(plan.tile.m, kDmmaSmallGemmTile.m);
    EXPECT_EQ(plan.tile.n, kDmmaSmallGemmTile.n);
  }
  const GemmPlan long_k = plan_gemm(DType::f64, 64, 64, 1048576, hopper());
  EXPECT_EQ(long_k.splits, 263);  // one tile, 264 blocks in flight, parts of whole 32-deep steps
  // Without m16n8k16 (an A100) matrix_vector keeps 16 columns and the tiles run from 17.
  EXPECT_EQ(plan_gemm(DType::f64, 8192, 16, 8192, ampere()).kernel, GemmKernel::matrix_vector);
  EXPECT_EQ(plan_gemm(DType::f64, 8192, 32, 8192, ampere()).kernel, GemmKernel::dmma);
}

// f64 C of few rows where the device has DMMA m16n8k16: vector_matrix up to 4 rows, or up to 16
// where B is at most 64 columns; from 5 rows a wider B runs the DMMA kernel's 16 x 128 tile, which
// streams B (on an H200, 16 x 8192 x 8192 134.9 us against vector_matrix's 257.5).
TEST(GemmDispatch, F64FewRowsStreamBOnTheSkinnyTile) {
  for (std::int64_t m : {1, 2, 3, 4}) {
    EXPECT_EQ(plan_gemm(DType::f64, m, 8192, 8192, hopper()).kernel, GemmKernel::vector_matrix) << m;
    EXPECT_EQ(plan_gemm(DType::f64, m, 65, 8192, hopper()).kernel, GemmKernel::vector_matrix) << m;
  }
  for (std::int64_t m : {5, 8, 9, 13, 16}) {
    SCOPED_TRACE(m);
    EXPECT_EQ(plan_gemm(DType::f64, m, 64, 8192, hopper()).kernel, GemmKernel::vector_matrix);
    EXPECT_EQ(plan_gemm(DType::f64, m, 28, 10117, hopper()).kernel, GemmKernel::vector_matrix);
    for (const auto& [n, k] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {65, 8192}, {8192, 8192}, {490, 3416}, {4943, 1737}, {65536, 1024}, {100, 300000}}) {
      SCOPED_TRACE(std::to_string(n) + " x " + std::to_string(k));
      const GemmPlan plan = plan_gemm(DType::f64, m, n, k, hopper());
      EXPECT_EQ(plan.kernel, GemmKernel::dmma);
      EXPECT_EQ(std::make_pair(plan.tile.m, plan.tile.n), std::make_pair(kDmmaSkinnyGemmTile.m, kDmmaSkinnyGemmTile.n));
      EXPECT_EQ(plan.tile.k, kDmmaSkinnyGemmTile.k);
      EXPECT_EQ(plan.blocks_per_sm, kDmmaSkinnyBlocksPerSm);
      EXPECT_TRUE(contains(plan.rule, "f64 m of 5 to 16 with n > 64 runs the DMMA tiles")) << plan.rule;
      EXPECT_TRUE(contains(plan.rule, "): 16x128: ")) << plan.rule;
    }
  }
  // 16 x 8192 x 8192: 64 tiles in 2 parts, a block on each of 128 SMs (measured ahead of 4 parts).
  const GemmPlan sixteen = plan_gemm(DType::f64, 16, 8192, 8192, hopper());
  EXPECT_EQ(sixteen.pieces, 64);
  EXPECT_EQ(sixteen.splits, 2);
  // Short k still runs the short-k kernel; an A100 (m8n8k4) keeps vector_matrix up to 16 rows.
  EXPECT_EQ(plan_gemm(DType::f64, 16, 8192, 20, hopper()).kernel, GemmKernel::short_k);
  EXPECT_EQ(plan_gemm(DType::f64, 16, 8192, 8192, ampere()).kernel, GemmKernel::vector_matrix);
  // With more rows each row tile would stream B again: the 64 x 64 tile (32 x 8192 x 8192, 199 us
  // against the 16 x 128 tile's 213 on an H200).
  EXPECT_EQ(plan_gemm(DType::f64, 32, 8192, 8192, hopper()).tile.m, kDmmaSmallGemmTile.m);
  EXPECT_EQ(plan_gemm(DType::f64, 17, 8192, 8192, hopper()).tile.m, kDmmaSmallGemmTile.m);
}

TEST(GemmDispatch, SquareSizesKeepTheirKernels) {
  for (std::int64_t size : {4096, 8192}) {
    const GemmPlan bf16 = plan_gemm(DType::bf16, size, size, size, hopper());
    EXPECT_EQ(bf16.kernel, GemmKernel::wgmma);
    EXPECT_EQ(bf16.cluster_m, 2);
    EXPECT_EQ(bf16.splits, 1);
    EXPECT_FALSE(bf16.stage_a || bf16.stage_b);
    EXPECT_TRUE(contains(bf16.rule, ": no split")) << bf16.rule;
    const GemmPlan f64 = plan_gemm(DType::f64, size, size, size, hopper());
    EXPECT_EQ(f64.kernel, GemmKernel::dmma);
    EXPECT_EQ(f64.tile.k, 32);
    EXPECT_EQ(f64.splits, 1);
    const GemmPlan f32 = plan_gemm(DType::f32, size, size, size, hopper());
    EXPECT_EQ(f32.kernel, GemmKernel::simt);
    EXPECT_EQ(f32.tile.m, 128);
    EXPECT_EQ(f32.splits, 1);
  }
  // 1000 x 333 x 77: 96 small tiles, too shallow to split, element-wise (padded copies of A
  // and B would cost more than they save).
  const GemmPlan small = plan_gemm(DType::f32, 1000, 333, 77, hopper());
  EXPECT_EQ(small.tile.m, 64);
  EXPECT_EQ(small.splits, 1);
  EXPECT_FALSE(small.vectorized);
  EXPECT_TRUE(contains(small.rule, "96 tiles for 264 blocks in flight: no split (priced ")) << small.rule;
  // 4097^3: the large tile over A and B padded to 4100 (copies of about 90 us against a
  // quarter of 4.5 ms lost to element-wise access).
  const GemmPlan odd = plan_gemm(DType::f32, 4097, 4097, 4097, hopper());
  EXPECT_EQ(odd.tile.m, 128);
  EXPECT_EQ(odd.tile.n, 128);
  EXPECT_TRUE(odd.stage_a && odd.stage_b && odd.vectorized);
  EXPECT_EQ(odd.lda, 4100);
  EXPECT_EQ(odd.ldb, 4100);
  EXPECT_TRUE(contains(odd.rule, "staged: A and B padded to 16-byte rows (k=4100, n=4100)")) << odd.rule;
}

// The DMMA kernel's 128 x 128 and 64 x 64 tiles (its 16 x 128 tile, for C of at most 16 rows:
// F64FewRowsStreamBOnTheSkinnyTile): the small one where the large tiles are fewer than the SMs and
// k too short to split (1000 x 333 x 77: 24 large tiles, 96 small ones; 1024^3: 64 against
// 256), the large one where its tiles fill the device (the squares from 2048, 4097) or a long
// k splits one tile over every SM; on an A100 (m8n8k4) the same tiles 16 deep.
TEST(GemmDispatch, F64TilesFollowTheirPrices) {
  for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{{1000, 333, 77}, {1024, 1024, 1024},
                                                                        {600, 600, 600}, {129, 257, 65}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
    const GemmPlan plan = plan_gemm(DType::f64, m, n, k, hopper());
    EXPECT_EQ(plan.kernel, GemmKernel::dmma);
    EXPECT_EQ(plan.tile.m, 64);
    EXPECT_EQ(plan.tile.k, 32);
    EXPECT_EQ(plan.blocks_per_sm, 2);
    EXPECT_TRUE(contains(plan.rule, "): 64x64: ")) << plan.rule;
  }
  const GemmPlan small = plan_gemm(DType::f64, 1000, 333, 77, hopper());
  EXPECT_EQ(small.splits, 1);
  EXPECT_EQ(small.pieces, 16 * 6);
  for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{
           {2048, 2048, 2048}, {4096, 4096, 4096}, {4097, 4097, 4097}, {8192, 8192, 8192}, {3000, 3000, 3000}}) {
    // Squares whose tiles fill every block in flight: the medium tile, two blocks an SM.
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
    const GemmPlan plan = plan_gemm(DType::f64, m, n, k, hopper());
    EXPECT_EQ(std::make_pair(plan.tile.m, plan.tile.n), std::make_pair(128, 64));
    EXPECT_EQ(plan.blocks_per_sm, 2);
    EXPECT_TRUE(contains(plan.rule, "tiles priced (128x128 ")) << plan.rule;
    EXPECT_TRUE(contains(plan.rule, "): 128x64: ")) << plan.rule;
    // Without the m16n8k16 shape (A100) the medium tile is not priced.
    const GemmPlan shallow = plan_gemm(DType::f64, m, n, k, ampere());
    EXPECT_NE(std::make_pair(shallow.tile.m, shallow.tile.n), std::make_pair(128, 64));
    EXPECT_FALSE(contains(shallow.rule, "128x64 ")) << shallow.rule;
  }
  for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{
           {128, 128, 262144}, {1024, 1024, 8192}, {512, 2048, 4096}}) {
    // Fewer medium tiles than blocks in flight: it is not priced (measured only where they fill
    // them), and the large tile splits k.
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
    const GemmPlan plan = plan_gemm(DType::f64, m, n, k, hopper());
    EXPECT_FALSE(contains(plan.rule, "128x64 ")) << plan.rule;
    EXPECT_NE(std::make_pair(plan.tile.m, plan.tile.n), std::make_pair(128, 64));
  }
  const GemmPlan shallow = plan_gemm(DType::f64, 1000, 333, 77, ampere());
  EXPECT_EQ(shallow.tile.m, 64);
  EXPECT_EQ(shallow.tile.k, 16);
}

// The wgmma kernel's four tiles, as measured on an H200 (kernel-notes.md, GEMM versions 18 and 19,
// back to back): 64 x 128 where the larger tiles are few (1024^3 8.6 us against 10.1 for 128 x
// 128 and 10.3 for 64 x 256; 1000 x 336 x 80 4.7 against 5.4 and 5.8); 64 x 256 for a C of 128
// rows and many columns (128 x 16384 x 1024); 128 x 128 for a C of 128 columns, which the 256-wide
// tiles would half pad (16384 x 128 x 1024 12.1 against 23.0 us); 128 x 256 where it fills the SMs
// (4096^3 178 against 221 for 128 x 128).
TEST(GemmDispatch, SixteenBitTilesFollowTheirPrices) {
  const std::vector<std::pair<std::array<std::int64_t, 3>, GemmTile>> measured = {
      {{1024, 1024, 1024}, kWgmmaNarrowHalfGemmTile}, {{1000, 336, 80}, kWgmmaNarrowHalfGemmTile},
      {{128, 16384, 1024}, kWgmmaHalfGemmTile},       {{16384, 128, 1024}, kWgmmaNarrowGemmTile},
      {{4096, 4096, 4096}, kWgmmaGemmTile},           {{8192, 8192, 8192}, kWgmmaGemmTile},
      {{4097, 4097, 4097}, kWgmmaGemmTile},           {{2048, 2048, 2048}, kWgmmaGemmTile},
      {{2048, 8192, 1000}, kWgmmaGemmTile}};
  for (DType dtype : {DType::f16, DType::bf16}) {
    for (const auto& [shape, tile] : measured) {
      const auto& [m, n, k] = shape;
      SCOPED_TRACE(to_string(dtype) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
      const GemmPlan plan = plan_gemm(dtype, m, n, k, hopper());
      EXPECT_EQ(plan.kernel, GemmKernel::wgmma);
      EXPECT_EQ(std::make_pair(plan.tile.m, plan.tile.n), std::make_pair(tile.m, tile.n));
      EXPECT_EQ(plan.cluster_m, m > tile.m ? 2 : 1);
      EXPECT_TRUE(contains(plan.rule, "): " + std::to_string(tile.m) + "x" + std::to_string(tile.n) + ": "))
          << plan.rule;
      if (tile.m == kWgmmaGemmTile.m && tile.n == kWgmmaGemmTile.n) {
        EXPECT_EQ(plan.splits, 1);
      }
    }
  }
  // Without wgmma (A100) the mma.sync kernel's one tile, unpriced.
  const GemmPlan ampere_plan = plan_gemm(DType::bf16, 1024, 1024, 1024, ampere());
  EXPECT_EQ(ampere_plan.kernel, GemmKernel::mma_sync);
  EXPECT_TRUE(contains(ampere_plan.rule, "tiles of 128x256: ")) << ampere_plan.rule;
}

TEST(GemmDispatch, DeviceFactsChooseTheFallbacks) {
  const GemmPlan f64 = plan_gemm(DType::f64, 512, 512, 512, small_device());
  EXPECT_EQ(f64.kernel, GemmKernel::simt);
  EXPECT_TRUE(contains(f64.fallback, "DMMA kernel needs 112 KiB")) << f64.fallback;
  EXPECT_EQ(plan_gemm(DType::f64, 512, 512, 512, ampere()).tile.k, 16);  // m8n8k4's stages
  GemmDevice none = ampere();
  none.no_mma = "mma_gemm needs sm_80 or newer";
  EXPECT_THROW(plan_gemm(DType::f16, 512, 512, 512, none), std::runtime_error);
  // The matrix-vector kernels need no tensor cores, but 16-bit ones end at 4 columns.
  EXPECT_EQ(plan_gemm(DType::f16, 512, 4, 512, none).kernel, GemmKernel::matrix_vector);
  EXPECT_THROW(plan_gemm(DType::f16, 512, 8, 512, none), std::runtime_error);
  EXPECT_THROW(plan_gemm(DType::f32, 0, 1, 1, hopper()), std::invalid_argument);
  EXPECT_THROW(plan_gemm(DType::f32, 1, 1, 1, GemmDevice{}), std::invalid_argument);
}

TEST(GemmDispatch, ExtremesAndTileEdges) {
  for (DType dtype : all_dtypes()) {
    SCOPED_TRACE(to_string(dtype));
    // k = 1, m = 1, n = 1.
    EXPECT_EQ(plan_gemm(dtype, 1, 1, 1, hopper()).kernel, GemmKernel::matrix_vector);
    EXPECT_EQ(plan_gemm(dtype, 4096, 4096, 1, hopper()).splits, 1);
    EXPECT_EQ(plan_gemm(dtype, 1, 4096, 4096, hopper()).kernel, GemmKernel::vector_matrix);
    EXPECT_EQ(plan_gemm(dtype, 4096, 1, 4096, hopper()).kernel, GemmKernel::matrix_vector);
    // 16 is a matrix-vector side, 17 is not (16-bit: 4 and 5; f64 rows under a B wider than 64
    // columns: 4 and 5).
    const bool sixteen_bit = dtype == DType::f16 || dtype == DType::bf16;
    const std::int64_t side = sixteen_bit ? 4 : 16;
    const std::int64_t rows = sixteen_bit || dtype == DType::f64 ? 4 : 16;
    EXPECT_EQ(plan_gemm(dtype, rows, 4096, 64, hopper()).kernel, GemmKernel::vector_matrix);
    EXPECT_EQ(plan_gemm(dtype, rows, 4096, 64, hopper()).vector_width, rows);
    EXPECT_NE(plan_gemm(dtype, rows + 1, 4096, 64, hopper()).kernel, GemmKernel::vector_matrix);
    EXPECT_EQ(plan_gemm(dtype, side, 64, 4096, hopper()).kernel, GemmKernel::vector_matrix);
    // All side rows in one block where B is over 32 MiB; in groups below it, here split k.
    EXPECT_EQ(plan_gemm(dtype, side, 64, 1 << 20, hopper()).vector_width, side);
    EXPECT_LT(plan_gemm(dtype, side, 64, 4096, hopper()).vector_width, side);
    EXPECT_EQ(plan_gemm(dtype, 4096, side, 64, hopper()).vector_width, side);
    EXPECT_NE(plan_gemm(dtype, side + 1, side + 1, 64, hopper()).kernel, GemmKernel::matrix_vector);
    EXPECT_NE(plan_gemm(dtype, side + 1, side + 1, 64, hopper()).kernel, GemmKernel::vector_matrix);
    // k far beyond m n: the parts stay within the blocks in flight and k.
    const GemmPlan deep = plan_gemm(dtype, 17, 17, 2147483647, hopper());
    EXPECT_GT(deep.splits, 1);
    EXPECT_LE(deep.splits * deep.pieces, 132 * deep.blocks_per_sm);
    EXPECT_GE(deep.split_k * deep.splits, 2147483647);
    const GemmPlan dot = plan_gemm(dtype, 1, 1, 2147483647, hopper());
    EXPECT_EQ(dot.kernel, GemmKernel::matrix_vector);
    EXPECT_EQ(dot.splits, 264);
  }
  // A k of one step never splits; one tile over a k of 16 steps does, into parts of one or
  // two steps, each priced in the rule.
  EXPECT_EQ(plan_gemm(DType::bf16, 128, 256, 64, hopper()).splits, 1);
  EXPECT_TRUE(contains(plan_gemm(DType::bf16, 128, 256, 64, hopper()).rule, "k=64 is one step of 64"));
  const GemmPlan one_deep_tile = plan_gemm(DType::bf16, 128, 256, 1024, hopper());
  EXPECT_GE(one_deep_tile.splits, 8);
  EXPECT_LE(one_deep_tile.split_k, 128);
  EXPECT_TRUE(contains(one_deep_tile.rule, " unsplit)")) << one_deep_tile.rule;
  // Tile edges of wgmma (64 x 128 for so few tiles): one more row or column is one more tile.
  EXPECT_EQ(plan_gemm(DType::bf16, 64, 256, 64, hopper()).tile.n, 128);
  EXPECT_EQ(plan_gemm(DType::bf16, 64, 256, 64, hopper()).pieces, 2);
  EXPECT_EQ(plan_gemm(DType::bf16, 65, 256, 64, hopper()).pieces, 4);
  EXPECT_EQ(plan_gemm(DType::bf16, 64, 264, 64, hopper()).pieces, 3);  // (257 columns: the CUDA-core tiles)
  EXPECT_EQ(plan_gemm(DType::bf16, 64, 256, 64, hopper()).cluster_m, 1);
  EXPECT_EQ(plan_gemm(DType::bf16, 65, 256, 64, hopper()).cluster_m, 2);
  // and of 128 x 256 where it fills the SMs (4096 x 4096: 512 tiles).
  EXPECT_EQ(plan_gemm(DType::bf16, 4096, 4096, 64, hopper()).pieces, 512);
  EXPECT_EQ(plan_gemm(DType::bf16, 4097, 4096, 64, hopper()).pieces, 528);
  EXPECT_EQ(plan_gemm(DType::bf16, 4096, 4097, 64, hopper()).pieces, 544);
  // The SIMT tiles are priced: 132 tiles of 128 x 128, one block an SM, against 528 of 128 x 32,
  // four an SM; 128 tiles of 128 in 2 parts (k = 1024) fill the SMs, as does one in 263 parts;
  // 64 x 64 over a long k keeps the small tile (the others would pad C four and two times over);
  // 1024^3 splits 64 large tiles in 4 parts (the partials cost less than the small tile's rate).
  EXPECT_EQ(plan_gemm(DType::f32, 11 * 128, 12 * 128, 64, hopper()).tile.n, 32);
  const GemmPlan tall = plan_gemm(DType::f32, 16384, 128, 1024, hopper());
  EXPECT_EQ(tall.tile.m, 128);
  EXPECT_EQ(tall.tile.n, 128);
  EXPECT_EQ(tall.splits, 2);
  const GemmPlan one_tile = plan_gemm(DType::f32, 128, 128, 262144, hopper());
  EXPECT_EQ(one_tile.tile.n, 128);
  EXPECT_GE(one_tile.splits, 260);  // 264 parts of 993 rounded up to 1000
  EXPECT_LE(one_tile.splits, 264);
  EXPECT_EQ(plan_gemm(DType::f32, 64, 64, 1 << 20, hopper()).tile.m, 64);
  const GemmPlan square = plan_gemm(DType::f32, 1024, 1024, 1024, hopper());
  EXPECT_EQ(square.tile.n, 128);
  EXPECT_EQ(square.splits, 4);
  // n of 30 over a long k: the slim tile, k split to fill the SMs.
  const GemmPlan slim = plan_gemm(DType::f32, 2212, 30, 9642, hopper());
  EXPECT_EQ(slim.tile.n, 32);
  EXPECT_GT(slim.splits, 1);
  // Its mirror, 23 rows of C (the cliff check's 0.51x on the 64 x 64 tile, seed 20261207): the
  // wide tile, k split; a C of 33 rows is never offered it.
  const GemmPlan wide = plan_gemm(DType::f32, 23, 4056, 12268, hopper());
  EXPECT_EQ(std::make_pair(wide.tile.m, wide.tile.n), std::make_pair(32, 128)) << wide.rule;
  EXPECT_GT(wide.splits, 1);
  EXPECT_TRUE(contains(wide.rule, ", 32x128 ")) << wide.rule;
  EXPECT_EQ(plan_gemm(DType::f32, 32, 4096, 4096, hopper()).tile.m, 32);
  const GemmPlan rows_33 = plan_gemm(DType::f32, 33, 4096, 4096, hopper());
  EXPECT_NE(rows_33.tile.m, 32);
  EXPECT_FALSE(contains(rows_33.rule, "32x128")) << rows_33.rule;
  // Enough 128 x 128 tiles keep them, even where 64 x 64 ones would pad C less (4097: 1089
  // large tiles; an H100 run that chose the small tile there ran 0.83x as fast).
  EXPECT_EQ(plan_gemm(DType::f32, 4097, 4097, 4097, hopper()).tile.m, 128);
  EXPECT_EQ(plan_gemm(DType::f64, 4097, 4097, 4097, small_device()).tile.m, 128);
}

// Draws log-uniform over [1, 2^max_log2].
std::int64_t log_uniform(SplitMix64& rng, double max_log2) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::exp2(unit_interval(rng.next()) * max_log2)));
}

bool is_power_of_two(int value) { return value > 0 && (value & (value - 1)) == 0; }

// The short-k kernel's block: 256 threads of 4 x 8 (16-bit) or 8 x (16 bytes' elements)
// outputs, 32 to 32 x 16 bytes' elements wide, the width whose blocks pad C least, the wider
// on a tie; where C is stored element by element (n not a multiple of the vector), first the
// width whose rows' store instructions (each `threads across` neighbouring elements of a row)
// move the fewest 32-byte sectors.
std::int64_t row_store_sectors(std::int64_t n, std::int64_t threads_across, std::size_t element_bytes) {
  std::int64_t sectors = 0;
  for (std::int64_t first = 0; first < n; first += threads_across) {
    const std::int64_t bytes = std::min(threads_across, n - first) * static_cast<std::int64_t>(element_bytes);
    sectors += (bytes + 31) / 32;
  }
  return sectors;
}

void expect_short_k_block(DType dtype, std::int64_t m, std::int64_t n, const GemmPlan& plan) {
  const std::int64_t vector = 16 / static_cast<std::int64_t>(dtype_size(dtype));
  const std::int64_t rows = dtype_size(dtype) == 2 ? 4 : 8;
  const bool element_wise = n % vector != 0;
  EXPECT_EQ(plan.kernel, GemmKernel::short_k);
  EXPECT_EQ(plan.tile.n % vector, 0);
  const std::int64_t threads_across = plan.tile.n / vector;
  EXPECT_TRUE(is_power_of_two(static_cast<int>(threads_across)));
  EXPECT_GE(plan.tile.n, 32);
  EXPECT_LE(threads_across, 32);
  EXPECT_EQ(threads_across * (plan.tile.m / rows), 256);
  EXPECT_EQ(plan.pieces, ceil_div(m, plan.tile.m) * ceil_div(n, plan.tile.n));
  EXPECT_EQ(plan.vectorized, !element_wise);
  EXPECT_EQ(contains(plan.rule, "(C stored element by element: the width whose rows' stores take the fewest"),
            element_wise)
      << plan.rule;
  const std::int64_t area = ceil_div(m, plan.tile.m) * plan.tile.m * ceil_div(n, plan.tile.n) * plan.tile.n;
  const std::int64_t sectors = element_wise ? row_store_sectors(n, threads_across, dtype_size(dtype)) : 0;
  for (std::int64_t across = 32 / vector; across <= 32; across *= 2) {
    const std::int64_t block_m = 256 / across * rows, block_n = across * vector;
    const std::int64_t other = ceil_div(m, block_m) * block_m * ceil_div(n, block_n) * block_n;
    const std::int64_t other_sectors = element_wise ? row_store_sectors(n, across, dtype_size(dtype)) : 0;
    EXPECT_LE(sectors, other_sectors) << "block " << block_m << "x" << block_n
                                      << " stores C's rows in fewer sectors than " << plan.tile.m << "x" << plan.tile.n;
    if (other_sectors != sectors) continue;
    EXPECT_LE(area, other) << "block " << block_m << "x" << block_n << " pads C less than " << plan.tile.m << "x"
                           << plan.tile.n;
    if (other == area) {
      EXPECT_GE(plan.tile.n, block_n) << "a tie keeps the wider block";
    }
  }
}

// A price as the rule prints it ("662 us", "1.24 ms"), in seconds; -1 where none is at `at`.
double parse_seconds(const std::string& text, std::size_t at) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text.substr(at), &used);
  } catch (const std::exception&) {
    return -1;
  }
  const std::string unit = text.substr(at + used + 1, 2);
  if (unit == "ns") return value * 1e-9;
  if (unit == "us") return value * 1e-6;
  if (unit == "ms") return value * 1e-3;
  return unit.front() == 's' ? value : -1;
}

// The price the rule gives after `label` ("64x64 "), -1 where it gives none.
double price_after(const std::string& rule, const std::string& label) {
  const std::size_t at = rule.find(label);
  return at == std::string::npos ? -1 : parse_seconds(rule, at + label.size());
}

// The SIMT kernel's plan: the tile of the lowest price of those the rule gives, and padded
// copies exactly where n or k is not a multiple of 16 bytes' elements and the rule's prices
// favour them.
// The plan's SIMT tile is one of those listed and no listed tile prices lower: its price from the
// rule's list "(128x128 P, 64x64 P, 128x32 P" (and ", 32x128 P" for a C of at most 32 rows, and
// only there), or -1 (a failure added) where the rule lacks one.
// The rule prints prices to three digits, so a tile listed before the chosen one (which wins a
// true tie) may print the same price where the chosen one is cheaper in the fourth digit.
double cheapest_listed_simt_tile(std::int64_t m, const GemmPlan& plan) {
  const std::string& rule = plan.rule;
  std::vector<std::string> tiles = {"128x128", "64x64", "128x32"};
  if (m <= 32) tiles.push_back("32x128");
  EXPECT_EQ(contains(rule, ", 32x128 "), m <= 32) << rule;
  const std::string chosen = std::to_string(plan.tile.m) + "x" + std::to_string(plan.tile.n);
  if (std::find(tiles.begin(), tiles.end(), chosen) == tiles.end()) {
    ADD_FAILURE() << "not a SIMT tile: " << chosen << ": " << rule;
    return -1;
  }
  const auto listed = [](const std::string& tile) { return (tile == "128x128" ? "(" : ", ") + tile + " "; };
  const double chosen_price = price_after(rule, listed(chosen));
  if (!(chosen_price > 0)) {
    ADD_FAILURE() << "no price for " << chosen << ": " << rule;
    return -1;
  }
  for (const std::string& tile : tiles) {
    if (tile == chosen) continue;
    const double price = price_after(rule, listed(tile));
    if (!(price > 0)) {
      ADD_FAILURE() << "no price for " << tile << ": " << rule;
      return -1;
    }
    EXPECT_LE(chosen_price, price) << chosen << " against " << tile << ": " << rule;
  }
  return chosen_price;
}

void expect_simt_plan(DType dtype, std::int64_t m, std::int64_t n, std::int64_t k, const GemmPlan& plan) {
  const std::string& rule = plan.rule;
  const std::string chosen = std::to_string(plan.tile.m) + "x" + std::to_string(plan.tile.n);
  EXPECT_TRUE(contains(rule, "tiles priced (128x128 ")) << rule;
  if (cheapest_listed_simt_tile(m, plan) <= 0) return;
  EXPECT_TRUE(contains(rule, "): " + chosen + ": " + std::to_string(plan.pieces) + " tiles")) << rule;
  EXPECT_EQ(plan.n_kernel, n);
  const std::int64_t lanes = 16 / static_cast<std::int64_t>(dtype_size(dtype));
  if (n % lanes == 0 && k % lanes == 0) {
    EXPECT_TRUE(plan.vectorized);
    EXPECT_FALSE(plan.stage_a || plan.stage_b);
    EXPECT_EQ(plan.lda, k);
    EXPECT_EQ(plan.ldb, n);
    EXPECT_FALSE(contains(rule, "16-byte rows priced")) << rule;
    return;
  }
  const double staged = price_after(rule, "16-byte rows priced ");
  const double copies = price_after(rule, " + ");
  const double element_wise = price_after(rule, " for the padded copies, against ");
  ASSERT_TRUE(staged > 0 && copies > 0 && element_wise > 0) << rule;
  if (plan.vectorized) {
    EXPECT_EQ(plan.stage_a, k % lanes != 0);
    EXPECT_EQ(plan.stage_b, n % lanes != 0);
    EXPECT_EQ(plan.lda, ceil_div(k, lanes) * lanes);
    EXPECT_EQ(plan.ldb, ceil_div(n, lanes) * lanes);
    EXPECT_TRUE(contains(rule, "; staged: ")) << rule;
    EXPECT_LE(staged + copies, element_wise * 1.01) << rule;  // the printed prices are rounded
  } else {
    EXPECT_FALSE(plan.stage_a || plan.stage_b);
    EXPECT_EQ(plan.lda, k);
    EXPECT_EQ(plan.ldb, n);
    EXPECT_TRUE(contains(rule, "; element-wise global access (")) << rule;
    EXPECT_GE(staged + copies, element_wise * 0.99) << rule;
  }
}

// f16 or bf16 on the SIMT tiles (rule 5): the 64 x 64 tile at f32's rate, element by element,
// unpadded, all of k in one part, cheaper than the tensor-core plan its rule prices.
void expect_widened_plan(std::int64_t n, std::int64_t k, const GemmDevice& device, const GemmPlan& plan) {
  const std::string& rule = plan.rule;
  const std::string chosen = std::to_string(plan.tile.m) + "x" + std::to_string(plan.tile.n);
  // The 64 x 64 tile alone, the one the prices were fitted on, and its price in the rule.
  EXPECT_EQ(std::make_pair(plan.tile.m, plan.tile.n), std::make_pair(kSimtSmallGemmTile.m, kSimtSmallGemmTile.n))
      << rule;
  const double chosen_price = price_after(rule, "priced (" + chosen + " ");
  ASSERT_GT(chosen_price, 0) << rule;
  EXPECT_FALSE(plan.vectorized);
  EXPECT_FALSE(plan.stage_a || plan.stage_b);
  EXPECT_EQ(plan.lda, k);
  EXPECT_EQ(plan.ldb, n);
  EXPECT_EQ(plan.n_kernel, n);
  EXPECT_EQ(plan.splits, 1);
  EXPECT_GE(plan.split_k, k);
  EXPECT_EQ(plan.blocks_per_sm, simt_blocks_per_sm(sizeof(float), kSimtThreads));
  // Its price is at least the stages' load latency, which the rule gives.
  const double floor = price_after(rule, "; at least ");
  ASSERT_GT(floor, 0) << rule;
  const double tensor = price_after(rule, ") against ");
  ASSERT_GT(tensor, 0) << rule;
  EXPECT_LT(std::max(chosen_price, floor), tensor * 1.01) << rule;
  // The stages' latency counts once for each round of the tiles over the SMs.
  const std::int64_t sms = std::max(device.sm_count, 1);
  EXPECT_TRUE(contains(rule, " for each of " + std::to_string(ceil_div(k, plan.tile.k)) + " stages' loads in each of " +
                                 std::to_string(ceil_div(plan.pieces, sms)) + " rounds of " + std::to_string(sms) +
                                 " SMs (" + std::to_string(plan.pieces) + " tiles)"))
      << rule;
  EXPECT_TRUE(contains(rule, "rows not whole 16-byte chunks (k=" + std::to_string(k) + ", n=" + std::to_string(n) +
                                 "): the CUDA-core tiles in f32"))
      << rule;
  EXPECT_TRUE(contains(rule, "for the padded copies")) << rule;
  EXPECT_EQ(contains(rule, "for the wgmma kernel's start"), !device.no_wgmma) << rule;
  EXPECT_TRUE(contains(rule, " on the tensor cores: " + chosen + ": " + std::to_string(plan.pieces) + " tiles for "))
      << rule;
}

// The rule's invariants on one plan.
void expect_plan_follows_the_rule(DType dtype, std::int64_t m, std::int64_t n, std::int64_t k, const GemmDevice& device,
                                  const GemmPlan& plan) {
  const bool sixteen_bit = dtype == DType::f16 || dtype == DType::bf16;
  const std::int64_t lanes = 16 / static_cast<std::int64_t>(dtype_size(dtype));
  // 1. Matrix-vector shapes (16-bit: up to 4, and m up to 8 where n > 64 is not a multiple of 8;
  //    f64 with DMMA m16n8k16: n up to 4, and m up to 4 where n > 64) and only they run the
  //    matrix-vector kernels.
  const bool f64_narrow = dtype == DType::f64 && !device.no_dmma && device.dmma_m16n8k16;
  const std::int64_t row_side = sixteen_bit  ? (n > 64 && n % 8 != 0 ? 8 : 4)
                                : f64_narrow ? (n <= 64 ? 16 : 4)
                                             : kMatmulVectorMaxSide;
  const std::int64_t column_side = sixteen_bit || f64_narrow ? kSixteenBitVectorMaxSide : kMatmulVectorMaxSide;
  const bool matrix_vector = n <= column_side || m <= row_side;
  EXPECT_EQ(plan.kernel == GemmKernel::matrix_vector, n <= column_side);
  EXPECT_EQ(plan.kernel == GemmKernel::vector_matrix, matrix_vector && n > column_side);
  if (matrix_vector) {
    EXPECT_TRUE(is_power_of_two(plan.vector_width));
    EXPECT_LE(plan.vector_width, n <= column_side ? column_side : row_side);
  }
  if (plan.kernel == GemmKernel::matrix_vector) {
    EXPECT_GE(plan.vector_width, n);
    EXPECT_LT(plan.vector_width, 2 * n);
    EXPECT_EQ(plan.vectorized, k % lanes == 0);
    EXPECT_EQ(plan.pieces, ceil_div(m, kMatrixVectorRows));
  }
  if (plan.kernel == GemmKernel::vector_matrix) {
    // All of A's rows in one block, or, where B is at most 32 MiB and k splits, groups of them
    // (a block each, narrower kernels).
    EXPECT_LT(plan.vector_width, 2 * m);
    if (plan.vector_width < m) {
      EXPECT_LE(k * n * static_cast<std::int64_t>(dtype_size(dtype)), std::int64_t{32} << 20);
      EXPECT_GE(k, 2 * 64);  // k of two steps at least: all rows in one block would split it
      EXPECT_TRUE(contains(plan.rule, " groups of " + std::to_string(plan.vector_width))) << plan.rule;
    }
    EXPECT_EQ(plan.vectorized, n % lanes == 0);
    EXPECT_EQ(plan.pieces, ceil_div(n, 32 * lanes) * ceil_div(m, plan.vector_width));
  }
  // 2. A short k (at most the dtype's threshold) runs the short-k kernel on any device, in one
  //    launch over blocks of 256 threads as wide as pads C least; nothing split or padded.
  const bool short_k = !matrix_vector && k <= short_k_max_depth(dtype);
  EXPECT_EQ(plan.kernel == GemmKernel::short_k, short_k);
  if (short_k) {
    expect_short_k_block(dtype, m, n, plan);
    EXPECT_EQ(plan.splits, 1);
    EXPECT_EQ(plan.split_k, k);
    EXPECT_EQ(plan.tile.k, k);
    EXPECT_EQ(plan.vectorized, n % lanes == 0);
    EXPECT_FALSE(plan.stage_a || plan.stage_b);
    EXPECT_EQ(plan.lda, k);
    EXPECT_EQ(plan.ldb, n);
    EXPECT_EQ(plan.n_kernel, n);
    EXPECT_TRUE(contains(plan.rule, "k=" + std::to_string(k) + " <= " + std::to_string(short_k_max_depth(dtype)) +
                                        " (" + to_string(dtype) + ") runs the short-k kernel, " +
                                        (dtype_size(dtype) == 2 ? "k below one 16-deep tensor-core step"
                                                                : "bound by writing C")))
        << plan.rule;
    EXPECT_TRUE(contains(plan.rule, std::to_string(plan.pieces) + " blocks, no split")) << plan.rule;
    return;
  }
  // 3. 16-bit n up to 64 on the narrow kernel (any device with mma.sync; with wgmma, not a C
  //    of 33 to 64 rows whose n and k are multiples of 8, nor one of more than 1536 rows with n
  //    of 33 to 64 and k <= 4096, n and k multiples of 8), f64 n of 5 to 16
  //    where the device has DMMA m16n8k16; at least 8 columns wide and at
  //    most twice n, A read in place (16-byte loads where k allows them).
  const bool aligned_on_wgmma = !device.no_wgmma && n % 8 == 0 && k % 8 == 0 &&
                                ((m > 32 && m <= 64) || (n > 32 && m > 1536 && k <= 4096));
  const bool narrow = ((sixteen_bit && !device.no_mma) || f64_narrow) && !matrix_vector &&
                      (sixteen_bit ? n <= kNarrowMaxColumns && !aligned_on_wgmma : n <= 16);
  EXPECT_EQ(plan.kernel == GemmKernel::narrow, narrow);
  if (narrow) {
    EXPECT_TRUE(is_power_of_two(plan.vector_width));
    EXPECT_GE(plan.vector_width, std::max<std::int64_t>(n, 8));
    EXPECT_LT(plan.vector_width, std::max<std::int64_t>(2 * n, 16));
    EXPECT_EQ(plan.tile.n, plan.vector_width);
    EXPECT_EQ(plan.vectorized, k % lanes == 0);
    EXPECT_EQ(plan.pieces, ceil_div(m, kNarrowGemmTile.m));
    EXPECT_EQ(plan.blocks_per_sm, sixteen_bit ? kNarrowBlocksPerSm : kNarrowF64BlocksPerSm);
    EXPECT_TRUE(contains(plan.rule, sixteen_bit ? "16-bit n <= 64 runs the narrow kernel (mma.sync"
                                                : "f64 n of 5 to 16 runs the narrow kernel (DMMA m16n8k16"))
        << plan.rule;
  }
  // 3b. The dtype's tiled kernel, as the device allows.
  // 16-bit rows not whole 16-byte chunks may take the CUDA-core tiles (rule 5).
  const bool widened = sixteen_bit && plan.kernel == GemmKernel::simt;
  if (widened) {
    EXPECT_TRUE(k % 8 != 0 || n % 8 != 0) << plan.rule;
  }
  if (!matrix_vector && !narrow) {
    if (sixteen_bit && !widened)
      EXPECT_EQ(plan.kernel, device.no_wgmma ? GemmKernel::mma_sync : GemmKernel::wgmma);
    else if (sixteen_bit)
      EXPECT_EQ(plan.kernel, GemmKernel::simt);
    else if (dtype == DType::f64 && !device.no_dmma)
      EXPECT_EQ(plan.kernel, GemmKernel::dmma);
    else
      EXPECT_EQ(plan.kernel, GemmKernel::simt);
    if (plan.kernel == GemmKernel::dmma) {
      // One of its three tiles, in the shape's depth, with that tile's blocks an SM; all priced.
      const bool small = plan.tile.m == kDmmaSmallGemmTile.m, skinny = plan.tile.m == kDmmaSkinnyGemmTile.m;
      const bool medium = !small && !skinny && plan.tile.n == kDmmaMediumGemmTile.n;
      const GemmTile& expected =
          device.dmma_m16n8k16
              ? (small    ? kDmmaSmallGemmTile
                 : skinny ? kDmmaSkinnyGemmTile
                 : medium ? kDmmaMediumGemmTile
                          : kDmmaGemmTile)
              : (small ? kDmmaShallowSmallGemmTile : skinny ? kDmmaShallowSkinnyGemmTile : kDmmaShallowGemmTile);
      EXPECT_EQ(std::make_tuple(plan.tile.m, plan.tile.n, plan.tile.k),
                std::make_tuple(expected.m, expected.n, expected.k));
      EXPECT_EQ(plan.blocks_per_sm, small    ? kDmmaSmallBlocksPerSm
                                    : skinny ? kDmmaSkinnyBlocksPerSm
                                    : medium ? kDmmaMediumBlocksPerSm
                                             : 1);
      EXPECT_TRUE(contains(plan.rule, "tiles priced (128x128 ")) << plan.rule;
      EXPECT_TRUE(contains(plan.rule, ", 64x64 ")) << plan.rule;
      // The medium tile, priced only with m16n8k16 and where its tiles fill every block in flight.
      const std::int64_t medium_tiles = ceil_div(m, kDmmaMediumGemmTile.m) * ceil_div(n, kDmmaMediumGemmTile.n);
      EXPECT_EQ(contains(plan.rule, ", 128x64 "),
                device.dmma_m16n8k16 && medium_tiles >= std::int64_t{device.sm_count} * kDmmaMediumBlocksPerSm)
          << plan.rule;
      // The skinny tile, priced only where C has one row tile of it.
      EXPECT_EQ(contains(plan.rule, ", 16x128 "), m <= kDmmaSkinnyGemmTile.m) << plan.rule;
      if (skinny) {
        EXPECT_LE(m, kDmmaSkinnyGemmTile.m);
      }
    }
    EXPECT_EQ(plan.pieces, ceil_div(m, plan.tile.m) * ceil_div(n, plan.tile.n));
    EXPECT_EQ(plan.cluster_m, plan.kernel == GemmKernel::wgmma && m > plan.tile.m ? 2 : 1);
    if (plan.kernel == GemmKernel::wgmma) {
      // One of its four tiles, all priced.
      EXPECT_TRUE(plan.tile.m == kWgmmaGemmTile.m || plan.tile.m == kWgmmaHalfGemmTile.m) << plan.tile.m;
      EXPECT_TRUE(plan.tile.n == kWgmmaGemmTile.n || plan.tile.n == kWgmmaNarrowGemmTile.n) << plan.tile.n;
      EXPECT_TRUE(contains(plan.rule, "tiles priced (128x256 ")) << plan.rule;
      EXPECT_TRUE(contains(plan.rule, ", 64x256 ")) << plan.rule;
      EXPECT_TRUE(contains(plan.rule, ", 128x128 ")) << plan.rule;
      EXPECT_TRUE(contains(plan.rule, ", 64x128 ")) << plan.rule;
    }
  }
  // 4. k split only where the pieces are too few, into non-empty parts of at least the
  //    split depth, no more than the blocks in flight need.
  const std::int64_t slots = static_cast<std::int64_t>(device.sm_count) * plan.blocks_per_sm;
  // Split to fill a wave, not priced: the matrix-vector kernels and the f64 narrow kernel.
  const bool split_per_wave = matrix_vector || (narrow && !sixteen_bit);
  // (The 16-bit narrow kernel splits in its warps' 32-deep steps, not in its 256-deep stages.)
  const std::int64_t depth = narrow && sixteen_bit ? kNarrowSplitStep : plan.tile.k;
  EXPECT_GE(plan.splits, 1);
  EXPECT_EQ(plan.split_k % depth, 0);
  EXPECT_GE(plan.split_k * plan.splits, k);
  EXPECT_LT(plan.split_k * (plan.splits - 1), k);
  // The priced splits of the tiles may fill several waves, the 16-bit narrow kernel's one.
  const std::int64_t waves = split_per_wave || narrow ? 1 : kSplitMaxWaves;
  // (The 16-bit narrow kernel keeps a k within one of its stages whole.)
  const bool one_stage = narrow && sixteen_bit && k <= kNarrowGemmTile.k;
  const bool may_split = plan.pieces < slots && k >= 2 * depth && waves * slots / plan.pieces >= 2 && !one_stage;
  if (split_per_wave) {
    EXPECT_EQ(plan.splits > 1, may_split);  // every wave filled
  } else {
    // Priced: a split only where one may be, always where k is hundreds of steps deep, and
    // the tiles too few for the SMs always show their prices.
    if (plan.splits > 1) {
      EXPECT_TRUE(may_split);
    }
    // (Where two parts of each tile fit one wave: beyond it, parts buy only whole waves.)
    if (may_split && slots / plan.pieces >= 2 && k >= 512 * depth) {
      EXPECT_GE(k, 2 * 64);  // k of two steps at least: all rows in one block would split it
    }
    if (plan.pieces < slots && !widened && !one_stage) {
      EXPECT_TRUE(contains(plan.rule, "(priced ")) << plan.rule;
    }
  }
  if (plan.splits > 1) {
    EXPECT_GE(plan.split_k, depth);
    EXPECT_LE(plan.splits * plan.pieces, waves * slots);
    // The partials stay within those waves' tiles.
    EXPECT_LE(plan.splits * m * plan.n_kernel, waves * slots * plan.tile.m * std::int64_t{plan.tile.n});
    EXPECT_TRUE(contains(plan.rule, "k=" + std::to_string(k) + " split in " + std::to_string(plan.splits) + " parts of " +
                                        std::to_string(plan.split_k)))
        << plan.rule;
  } else {
    EXPECT_TRUE(contains(plan.rule, ": no split")) << plan.rule;
  }
  EXPECT_TRUE(contains(plan.rule, std::to_string(plan.pieces) + " ")) << plan.rule;
  // 5. Padding for the 16-bit tensor-core kernels only, and only where rows are misaligned.
  //    The SIMT kernel's are priced against its element-wise variant (step 3b below).
  const bool tensor = plan.kernel == GemmKernel::wgmma || plan.kernel == GemmKernel::mma_sync;
  if (plan.kernel != GemmKernel::simt) {
    EXPECT_EQ(plan.stage_a, tensor && k % 8 != 0);
    EXPECT_EQ(plan.stage_b, tensor && n % 8 != 0);
  }
  if (tensor) {
    EXPECT_EQ(plan.lda, ceil_div(k, 8) * 8);
    EXPECT_EQ(plan.n_kernel, ceil_div(n, 8) * 8);
    EXPECT_EQ(plan.ldb, plan.n_kernel);
    EXPECT_TRUE(plan.vectorized);
  } else if (plan.kernel != GemmKernel::simt) {
    EXPECT_EQ(plan.lda, k);
    EXPECT_EQ(plan.n_kernel, n);
  }
  if (widened) {
    expect_widened_plan(n, k, device, plan);
  } else if (plan.kernel == GemmKernel::simt) {
    expect_simt_plan(dtype, m, n, k, plan);
  }
  // The padded tensor-core plan was priced against the CUDA-core tiles and cost no more.
  if (tensor && (plan.stage_a || plan.stage_b)) {
    const double ours = price_after(plan.rule, "; priced ");
    const double theirs = price_after(plan.rule, " against ");
    const std::size_t against = plan.rule.rfind(" against ");
    ASSERT_NE(against, std::string::npos) << plan.rule;
    const double cuda_cores = parse_seconds(plan.rule, against + 9);
    EXPECT_GT(ours, 0) << plan.rule;
    EXPECT_GT(theirs, 0) << plan.rule;
    EXPECT_LE(ours, cuda_cores * 1.01) << plan.rule;
    EXPECT_TRUE(contains(plan.rule, " for the CUDA-core tiles in f32 reading the 16-bit elements one at a time"))
        << plan.rule;
  }
}

// Rule 2's thresholds: for f32 and f64 the deepest k whose FMAs an output (on the CUDA cores at
// 3/4 of an H100's rate) take no longer than writing its bytes of C at the copy bandwidth; for
// 16-bit, k below one 16-deep tensor-core step (its FMAs outgrow the write sooner, from k = 9
// at the kernel's measured rate, but the tensor-core path pads k and measured slower there).
TEST(GemmDispatch, ShortKThresholdsAreWhereTheFmasOutgrowTheWriteOfC) {
  EXPECT_EQ(short_k_max_depth(DType::f16), 15);
  EXPECT_EQ(short_k_max_depth(DType::bf16), 15);
  EXPECT_EQ(short_k_max_depth(DType::f32), 33);
  EXPECT_EQ(short_k_max_depth(DType::f64), 33);
  const double sixteen_bit_rate = short_k_fma_fraction(2) * kCudaCoreF32FmaPerSecond;
  EXPECT_EQ(static_cast<int>(sixteen_bit_rate * 2 / kShortKCopyBytesPerSecond), 9);
  for (DType dtype : {DType::f32, DType::f64}) {
    SCOPED_TRACE(to_string(dtype));
    const double fma_rate =
        short_k_fma_fraction(dtype_size(dtype)) * (dtype == DType::f64 ? kCudaCoreF64FmaPerSecond : kCudaCoreF32FmaPerSecond);
    const double write_seconds = static_cast<double>(dtype_size(dtype)) / kShortKCopyBytesPerSecond;
    const int depth = short_k_max_depth(dtype);
    EXPECT_LE(depth / fma_rate, write_seconds);
    EXPECT_GT((depth + 1) / fma_rate, write_seconds);
  }
  // The rates it rests on: 132 SMs x 128 f32 FMAs a clock at 1.98 GHz, f64 half.
  EXPECT_NEAR(kCudaCoreF32FmaPerSecond, 33.45e12, 0.01e12);
  EXPECT_DOUBLE_EQ(kCudaCoreF64FmaPerSecond * 2, kCudaCoreF32FmaPerSecond);
}

TEST(GemmDispatch, ShortKRunsUpToTheThresholdAndNoFurther) {
  for (const GemmDevice& device : {hopper(), ampere(), small_device()}) {
    for (DType dtype : all_dtypes()) {
      SCOPED_TRACE(to_string(dtype) + " on " + std::to_string(device.sm_count) + " SMs");
      const std::int64_t depth = short_k_max_depth(dtype);
      for (std::int64_t k = 1; k <= depth; ++k)
        EXPECT_EQ(plan_gemm(dtype, 830, 383, k, device).kernel, GemmKernel::short_k) << "k=" << k;
      const GemmPlan past = plan_gemm(dtype, 830, 383, depth + 1, device);
      const bool sixteen_bit = dtype == DType::f16 || dtype == DType::bf16;
      const GemmKernel tiled = sixteen_bit ? (device.no_wgmma ? GemmKernel::mma_sync : GemmKernel::wgmma)
                               : dtype == DType::f64 && !device.no_dmma ? GemmKernel::dmma
                                                                        : GemmKernel::simt;
      // (16-bit 830 x 383: rows of B not whole chunks, a small product: the CUDA-core tiles where
      // they price lower, as on an H100 against the padded copies and the wgmma kernel's start.)
      if (sixteen_bit && past.kernel == GemmKernel::simt) {
        expect_plan_follows_the_rule(dtype, 830, 383, depth + 1, device, past);
      } else {
        EXPECT_EQ(past.kernel, tiled) << past.rule;
      }
      if (sixteen_bit && !device.no_wgmma) {
        EXPECT_EQ(past.kernel, GemmKernel::simt) << past.rule;
      }
      // The matrix-vector shapes keep their kernels at any k; one wider runs the short-k kernel.
      const bool f64_narrow = dtype == DType::f64 && device.dmma_m16n8k16;
      const std::int64_t side = sixteen_bit || f64_narrow ? kSixteenBitVectorMaxSide : kMatmulVectorMaxSide;
      const std::int64_t columns = sixteen_bit || f64_narrow ? kSixteenBitVectorMaxSide : side;
      EXPECT_EQ(plan_gemm(dtype, 4096, columns, 1, device).kernel, GemmKernel::matrix_vector);
      EXPECT_EQ(plan_gemm(dtype, side, 4096, 1, device).kernel, GemmKernel::vector_matrix);
      EXPECT_EQ(plan_gemm(dtype, 4096, columns + 1, 1, device).kernel, GemmKernel::short_k);
      EXPECT_EQ(plan_gemm(dtype, side + 1, 4096, depth, device).kernel, GemmKernel::short_k);
    }
  }
  // It needs no tensor cores: 16-bit short k runs where no tensor-core kernel does.
  GemmDevice none = ampere();
  none.no_mma = "mma_gemm needs sm_80 or newer";
  const std::int64_t depth = short_k_max_depth(DType::f16);
  EXPECT_EQ(plan_gemm(DType::f16, 512, 512, depth, none).kernel, GemmKernel::short_k);
  EXPECT_THROW(plan_gemm(DType::f16, 512, 512, depth + 1, none), std::runtime_error);
}

TEST(GemmDispatch, ShortKBlocksAndRuleText) {
  // The cliff check's worst case: f16 830 x 383 x 1 (3.59x behind cuBLAS on the padded wgmma
  // path). n odd: element stores; 64 x 128 and 32 x 256 store a row of C in the fewest sectors
  // (a row of threads writes 32 or 64 bytes an instruction), and 64 x 128 pads C less (832 x 384).
  const GemmPlan f16 = plan_gemm(DType::f16, 830, 383, 1, hopper());
  EXPECT_EQ(f16.kernel, GemmKernel::short_k);
  EXPECT_EQ(f16.tile.m, 64);
  EXPECT_EQ(f16.tile.n, 128);
  EXPECT_EQ(f16.tile.k, 1);
  EXPECT_EQ(f16.pieces, 13 * 3);
  EXPECT_FALSE(f16.vectorized);
  EXPECT_FALSE(f16.stage_a || f16.stage_b);
  EXPECT_EQ(f16.splits, 1);
  EXPECT_EQ(f16.rule.rfind("k=1 <= 15 (f16) runs the short-k kernel, k below one 16-deep tensor-core step, where "
                           "the wgmma tiles would pad k to their stage (copying A where k is not a multiple of 8) "
                           "and leave a narrow C's SMs idle (CUDA-core FMAs at 0.42 of an H100's 33.5 TFMA/s); "
                           "blocks of 64x128 (C stored element by element: the width whose rows' stores take the "
                           "fewest 32-byte sectors, then pad C least): 39 blocks, no split; C, A and B ",
                           0),
            0u)
      << f16.rule;
  // A square C takes the widest block (a tie), 16-byte stores; its bytes and their time.
  const GemmPlan f32 = plan_gemm(DType::f32, 4096, 4096, 3, hopper());
  EXPECT_EQ(f32.tile.m, 64);
  EXPECT_EQ(f32.tile.n, 128);
  EXPECT_EQ(f32.pieces, 64 * 32);
  EXPECT_TRUE(f32.vectorized);
  EXPECT_TRUE(contains(f32.rule, "2048 blocks, no split; C, A and B 67.2 MB: 22.4 us at 3 TB/s, FMAs ")) << f32.rule;
  const GemmPlan f64 = plan_gemm(DType::f64, 8192, 8192, 16, hopper());
  EXPECT_TRUE(contains(f64.rule, "its 8 bytes at 3 TB/s up to k=33")) << f64.rule;
  EXPECT_TRUE(contains(f64.rule, "16.7 TFMA/s")) << f64.rule;
  // A narrow C takes a narrow block: f32 513 x 17 in blocks of 256 x 32 (3 of them); 16-bit
  // 1000 x 5 in 128 x 64 (32 wide, a row of its threads stores 8 bytes an instruction: a row of
  // C in two sectors, not one).
  const GemmPlan narrow = plan_gemm(DType::f32, 513, 17, 3, hopper());
  EXPECT_EQ(narrow.tile.m, 256);
  EXPECT_EQ(narrow.tile.n, 32);
  EXPECT_EQ(narrow.pieces, 3);
  EXPECT_FALSE(narrow.vectorized);
  EXPECT_EQ(plan_gemm(DType::bf16, 1000, 5, 3, hopper()).tile.n, 64);
  // An odd wide C on 16-bit, stored element by element: blocks 256 wide (a row of threads stores
  // 64 bytes an instruction), not the 32 that pad it least (8 bytes an instruction).
  const GemmPlan odd_wide = plan_gemm(DType::f16, 9906, 2450, 8, hopper());
  EXPECT_EQ(odd_wide.tile.n, 256);
  EXPECT_FALSE(odd_wide.vectorized);
  EXPECT_EQ(plan_gemm(DType::f64, 100, 4096, 3, hopper()).tile.n, 64);  // f64's widest: 32 x 2
}

// Seeded shapes around the thresholds: k from 1 to 8 past the dtype's threshold, m and n
// log-uniform from 1 to 2^16 (so across the matrix-vector side too), on three devices. Each
// plan follows the rule's invariants (short k exactly where rule 2 says, its block the least
// padding); moving k across the threshold moves the kernel, and nothing else does.
TEST(GemmDispatch, SeededShapesAroundTheShortKThreshold) {
  SplitMix64 rng(20260214);
  const std::vector<GemmDevice> devices = {hopper(), ampere(), small_device()};
  int short_k = 0, past = 0, matrix_vector = 0, widened = 0;
  for (int draw = 0; draw < 4000; ++draw) {
    const DType dtype = all_dtypes()[static_cast<std::size_t>(draw) % all_dtypes().size()];
    const GemmDevice& device = devices[static_cast<std::size_t>(draw / 4) % devices.size()];
    const std::int64_t depth = short_k_max_depth(dtype);
    const std::int64_t m = log_uniform(rng, 16), n = log_uniform(rng, 16);
    const std::int64_t k = 1 + static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(depth + 8));
    SCOPED_TRACE(to_string(dtype) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                 " on " + std::to_string(device.sm_count) + " SMs");
    const GemmPlan plan = plan_gemm(dtype, m, n, k, device);
    expect_plan_follows_the_rule(dtype, m, n, k, device, plan);
    const bool vector_shape = plan.kernel == GemmKernel::matrix_vector || plan.kernel == GemmKernel::vector_matrix;
    short_k += plan.kernel == GemmKernel::short_k;
    widened += plan.kernel == GemmKernel::simt && (dtype == DType::f16 || dtype == DType::bf16);
    past += k > depth && !vector_shape;
    matrix_vector += vector_shape;
    // The boundary for this m and n: the threshold short k, one past it tiled (or both on the
    // matrix-vector kernels).
    const GemmKernel at = plan_gemm(dtype, m, n, depth, device).kernel;
    const GemmKernel beyond = plan_gemm(dtype, m, n, depth + 1, device).kernel;
    EXPECT_EQ(at == GemmKernel::short_k, !vector_shape);
    EXPECT_NE(beyond, GemmKernel::short_k);
    if (vector_shape) {
      EXPECT_EQ(at, beyond);
    }
  }
  EXPECT_GT(short_k, 1000);
  EXPECT_GT(past, 300);
  EXPECT_GT(matrix_vector, 300);
  EXPECT_GT(widened, 20) << widened;  // 16-bit k just past the threshold, B padded: the widened SIMT tiles
}

TEST(GemmDispatch, SeededRandomShapesFollowTheRule) {
  SplitMix64 rng(20251125);
  const std::vector<GemmDevice> devices = {hopper(), ampere(), small_device()};
  int splits = 0, matrix_vector = 0, staged = 0, short_k = 0;
  for (int draw = 0; draw < 3000; ++draw) {
    // m, n, k log-uniform over 1 .. 2^24, k sometimes far beyond.
    const std::int64_t m = log_uniform(rng, 24), n = log_uniform(rng, 24);
    const std::int64_t k = log_uniform(rng, draw % 10 == 0 ? 30 : 24);
    const DType dtype = all_dtypes()[static_cast<std::size_t>(draw) % all_dtypes().size()];
    const GemmDevice& device = devices[static_cast<std::size_t>(draw / 4) % devices.size()];
    SCOPED_TRACE(to_string(dtype) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                 " on " + std::to_string(device.sm_count) + " SMs");
    const GemmPlan plan = plan_gemm(dtype, m, n, k, device);
    expect_plan_follows_the_rule(dtype, m, n, k, device, plan);
    splits += plan.splits > 1;
    matrix_vector += plan.kernel == GemmKernel::matrix_vector || plan.kernel == GemmKernel::vector_matrix;
    staged += plan.stage_a || plan.stage_b;
    short_k += plan.kernel == GemmKernel::short_k;
  }
  // The draw reaches every branch of the rule.
  EXPECT_GT(short_k, 100);
  EXPECT_GT(splits, 100);
  EXPECT_GT(matrix_vector, 100);
  EXPECT_GT(staged, 100);
  // Small odd 16-bit products, where the widened SIMT tiles run, are too few over 1 .. 2^24 to
  // count on here: the short-k draw above checks their plans.
}

// Rule 5's other way for 16-bit rows that are not whole 16-byte chunks: the SIMT tiles in f32,
// elements read one at a time, where the padded copies and the wgmma kernel's start (more where
// B is padded) outweigh a small product's FMAs and stages (H200, graph timing: 830 x 383 x 16
// 3.7 us against 8.0 on the padded wgmma path); the padded tensor cores everywhere else, the
// price of the CUDA-core tiles in their rule. Since C's element-wise stores were batched (GEMM
// version 23) the padded path also takes 1000 x 333 x 77, 129 x 257 x 65 and 43 x 203 x 57; and
// since the CUDA-core tiles' stages count once a round of tiles over the SMs, 7288 x 201 x 26
// (H100, graph timing: 399 CUDA-core tiles 15.0 us, the padded wgmma path 8.1). C's element-wise
// stores priced by its size keep k = 26 on the 64 x 64 tile up to 228 tiles (H100, kernel
// timing: 3000 x 201 x 26 8.4 us against the padded path's 9.6, 7288 x 99 x 26 9.1 against
// 10.0, 2000 x 383 x 26 8.9 against 9.6).
TEST(GemmDispatch, SixteenBitOddRowsTakeTheCheaperOfCudaCoresAndPaddedTensorCores) {
  for (DType dtype : {DType::f16, DType::bf16}) {
    SCOPED_TRACE(to_string(dtype));
    for (const auto& [m, n, k] : {std::array<std::int64_t, 3>{830, 383, 16}, {830, 383, 24}, {17, 71, 17},
                                  {3000, 201, 26}, {7288, 99, 26}, {2000, 383, 26}}) {
      SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
      const GemmPlan small = plan_gemm(dtype, m, n, k, hopper());
      EXPECT_EQ(small.kernel, GemmKernel::simt) << small.rule;
      EXPECT_EQ(std::make_pair(small.tile.m, small.tile.n),
                std::make_pair(kSimtSmallGemmTile.m, kSimtSmallGemmTile.n));
      EXPECT_EQ(small.pieces, ceil_div(m, kSimtSmallGemmTile.m) * ceil_div(n, kSimtSmallGemmTile.n));
      EXPECT_EQ(small.ldb, n);
      expect_plan_follows_the_rule(dtype, m, n, k, hopper(), small);
    }
    // Products whose FMAs outweigh the copies and the start keep the padded tensor cores.
    for (const auto& [m, n, k] : {std::array<std::int64_t, 3>{4097, 4097, 4097}, {300, 300, 300}, {2000, 2000, 301},
                                  {128, 333, 262144}, {1000, 333, 77}, {129, 257, 65}, {43, 203, 57},
                                  {7288, 201, 26}, {16000, 201, 26}, {7288, 301, 26}}) {
      SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
      const GemmPlan plan = plan_gemm(dtype, m, n, k, hopper());
      EXPECT_EQ(plan.kernel, GemmKernel::wgmma);
      EXPECT_EQ(plan.stage_b, n % 8 != 0);
      EXPECT_TRUE(contains(plan.rule, " for the CUDA-core tiles in f32 reading the 16-bit elements one at a time"))
          << plan.rule;
      expect_plan_follows_the_rule(dtype, m, n, k, hopper(), plan);
    }
    // Whole chunks: no copies, nothing to weigh.
    const GemmPlan aligned = plan_gemm(dtype, 1000, 336, 80, hopper());
    EXPECT_EQ(aligned.kernel, GemmKernel::wgmma);
    EXPECT_FALSE(contains(aligned.rule, "CUDA-core")) << aligned.rule;
    // With only A padded the wgmma path took 4.7 us on an H200 and the widened tiles 8.3: the
    // padded tensor cores stay.
    const GemmPlan odd_k = plan_gemm(dtype, 1000, 336, 81, hopper());
    EXPECT_EQ(odd_k.kernel, GemmKernel::wgmma) << odd_k.rule;
    EXPECT_TRUE(odd_k.stage_a && !odd_k.stage_b);
  }
}

}  // namespace
}  // namespace gpb
