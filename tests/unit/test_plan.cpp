#include <gtest/gtest.h>

#include <cmath>

#include "plan.hpp"

namespace gpb {
namespace {

TEST(ParseSize, SuffixesArePowersOfTwo) {
  EXPECT_EQ(parse_size("4096"), 4096);
  EXPECT_EQ(parse_size("4K"), 4096);
  EXPECT_EQ(parse_size("4k"), 4096);
  EXPECT_EQ(parse_size("16M"), 16 << 20);
  EXPECT_EQ(parse_size("1G"), std::int64_t{1} << 30);
  EXPECT_EQ(parse_size(" 3 "), 3);
}

TEST(ParseSize, RejectsBadInputWithTheToken) {
  for (const char* bad : {"", "abc", "12Q", "1.5M", "K", "0", "-5", "0K", "4096G", "99999999999999999"}) {
    try {
      parse_size(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& error) {
      if (*bad) {
        EXPECT_NE(std::string(error.what()).find(std::string(bad).substr(0, 3)), std::string::npos) << error.what();
      }
    }
  }
}

TEST(ParseSizeList, ListsAndRanges) {
  EXPECT_EQ(parse_size_list("1M,16M"), (std::vector<std::int64_t>{1 << 20, 16 << 20}));
  EXPECT_EQ(parse_size_list("1K..16K:x4"), (std::vector<std::int64_t>{1024, 4096, 16384}));
  EXPECT_EQ(parse_size_list("1K..4K"), (std::vector<std::int64_t>{1024, 2048, 4096}));
  EXPECT_EQ(parse_size_list("1K..3K:+1K"), (std::vector<std::int64_t>{1024, 2048, 3072}));
  EXPECT_EQ(parse_size_list("1K..256M:x4").size(), 10u);
  EXPECT_EQ(parse_size_list("1..10:x3"), (std::vector<std::int64_t>{1, 3, 9}));
  for (const char* bad : {"4K..1K", "1K..4K:x1", "1K..4K:y2", ",", "1K..4K:x"}) EXPECT_THROW(parse_size_list(bad), UsageError) << bad;
}

TEST(ParseMatmulShape, MxNxK) {
  const Shape s = parse_matmul_shape("1000x333x77");
  EXPECT_EQ(s.m, 1000);
  EXPECT_EQ(s.n, 333);
  EXPECT_EQ(s.k, 77);
  EXPECT_THROW(parse_matmul_shape("10x10"), UsageError);
  EXPECT_THROW(parse_matmul_shape("10x0x3"), UsageError);
}

TEST(ExpandCases, CrossesOpsDtypesSizesAndBackendsWithSharedProblemsAdjacent) {
  RunOptions options;
  options.ops = {Op::sin, Op::matmul};
  options.dtypes = {DType::f32, DType::f64};
  options.sizes = {64};
  const auto cases = expand_cases(options, {"eigen", "openblas"});
  ASSERT_EQ(cases.size(), 8u);
  EXPECT_EQ(cases[0].id(), "sin/eigen/f32/64");
  EXPECT_EQ(cases[1].id(), "sin/openblas/f32/64");
  EXPECT_EQ(cases[4].id(), "matmul/eigen/f32/64x64x64");
  EXPECT_EQ(cases[7].id(), "matmul/openblas/f64/64x64x64");
}

TEST(ExpandCases, DefaultsPerOp) {
  RunOptions options;
  options.ops = {Op::sum, Op::matmul, Op::spmv};
  const auto cases = expand_cases(options, {"eigen"});
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0].shape.n, 1 << 24);
  EXPECT_EQ(cases[1].shape.label(Op::matmul), "1024x1024x1024");
  EXPECT_EQ(cases[2].shape.rows, 1 << 20);
}

TEST(ExpandCases, SweepReadsSizesAsFootprints) {
  RunOptions options;
  options.ops = {Op::sin, Op::matmul, Op::spmv};
  options.sizes = {1 << 10, 1 << 20};
  const auto cases = expand_cases(options, {"eigen"});
  ASSERT_EQ(cases.size(), 6u);
  EXPECT_EQ(cases[1].shape.n, 1 << 20);
  EXPECT_EQ(cases[2].shape.label(Op::matmul), "32x32x32");      // sqrt(1K)
  EXPECT_EQ(cases[3].shape.label(Op::matmul), "1024x1024x1024");
  EXPECT_EQ(cases[4].shape.rows, 64);                           // 1K / 16 nnz per row
}

TEST(ExpandCases, SpmvKeepsItsDefaultBesideOtherOpsWithOneSize) {
  RunOptions options;
  options.ops = {Op::sin, Op::spmv};
  options.sizes = {256 << 20};
  const auto cases = expand_cases(options, {"eigen"});
  EXPECT_EQ(cases[1].shape.rows, 1 << 20);
  options.ops = {Op::spmv};
  EXPECT_EQ(expand_cases(options, {"eigen"})[0].shape.rows, 256 << 20);
}

TEST(ExpandCases, Tf32OnlyForF32Matmul) {
  RunOptions options;
  options.ops = {Op::matmul, Op::sum};
  options.dtypes = {DType::f32, DType::f64};
  options.sizes = {8};
  options.tf32 = true;
  for (const auto& spec : expand_cases(options, {"eigen"}))
    EXPECT_EQ(spec.tf32, spec.op == Op::matmul && spec.dtype == DType::f32) << spec.id();
}

// The forced kernel is the cuda backend's: only its spmv cases measure something else, so
// only their ids carry the tag.
TEST(ExpandCases, SpmvKernelTagsTheCudaSpmvCasesOnly) {
  RunOptions options;
  options.ops = {Op::spmv, Op::sum};
  options.sizes = {4096};
  options.spmv_rows = 256;
  options.spmv_kernel = SpmvKernelChoice::merge_path;
  const auto cases = expand_cases(options, {"eigen", "cuda", "cusparse"});
  ASSERT_EQ(cases.size(), 6u);
  EXPECT_EQ(cases[0].id(), "spmv/eigen/f32/256x256/16/random");
  EXPECT_EQ(cases[1].id(), "spmv/cuda/f32/256x256/16/random/merge_path");
  EXPECT_EQ(cases[1].spmv_kernel, SpmvKernelChoice::merge_path);
  EXPECT_EQ(cases[2].id(), "spmv/cusparse/f32/256x256/16/random");
  EXPECT_EQ(cases[4].id(), "sum/cuda/f32/4096");
  options.spmv_kernel = SpmvKernelChoice::automatic;
  EXPECT_EQ(expand_cases(options, {"cuda"})[0].id(), "spmv/cuda/f32/256x256/16/random");
}

TEST(CheckPlanFitsMemory, RefusesAbsurdCases) {
  RunOptions options;
  options.ops = {Op::matmul};
  options.sizes = {1 << 20};
  Plan plan;
  plan.cases = expand_cases(options, {"eigen"});
  EXPECT_THROW(check_plan_fits_memory(plan), UsageError);
  options.sizes = {64};
  plan.cases = expand_cases(options, {"eigen"});
  EXPECT_NO_THROW(check_plan_fits_memory(plan));
}

}  // namespace
}  // namespace gpb
