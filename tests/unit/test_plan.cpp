#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "config/plan.hpp"
#include "config/run_config.hpp"
#include "measure/backend.hpp"

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

// A size option whose value was left out reads the next option as its size: the error says so
// rather than calling "--out" negative.
TEST(ParseSize, AnOptionInPlaceOfTheSizeSaysTheSizeIsMissing) {
  for (const char* option : {"--out", "-o", "--backend"}) {
    try {
      parse_size(option);
      ADD_FAILURE() << "accepted '" << option << "'";
    } catch (const UsageError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find(std::string("'") + option + "' is an option"), std::string::npos) << message;
      EXPECT_NE(message.find("missing"), std::string::npos) << message;
      EXPECT_EQ(message.find("negative"), std::string::npos) << message;
    }
  }
  try {
    parse_size("-5");
    ADD_FAILURE() << "accepted '-5'";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("negative"), std::string::npos) << error.what();
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

TEST(ParseSizeList, RangesNeverOverflow) {
  // 16M times the factor is beyond 2^63: the next size is only computed when it fits under the end.
  try {
    parse_size_list("16M..1024G:x1099511607776");
    ADD_FAILURE() << "accepted a range that holds only its start";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("holds only its start"), std::string::npos) << error.what();
  }
  EXPECT_EQ(parse_size_list("1..1024G:x1024G"), (std::vector<std::int64_t>{1, std::int64_t{1} << 40}));
  EXPECT_EQ(parse_size_list("1024G..1024G:+1024G"), (std::vector<std::int64_t>{std::int64_t{1} << 40}));
  EXPECT_THROW(parse_size_list("1..1024G:+1024G"), UsageError);
}

TEST(AppendSizeList, AtMostOneHundredThousandSizesInAll) {
  std::vector<std::int64_t> sizes;
  for (int i = 0; i < 10; ++i) append_size_list(sizes, "1..10000:+1", "--size");
  EXPECT_EQ(sizes.size(), kMaxCases);
  try {
    append_size_list(sizes, "1", "--size");
    ADD_FAILURE() << "accepted more than kMaxCases sizes";
  } catch (const UsageError& error) {
    EXPECT_EQ(std::string(error.what()).rfind("--size: more than 100000 sizes", 0), 0u) << error.what();
  }
}

TEST(ParseMatmulShape, MxNxK) {
  const Shape s = parse_matmul_shape("1000x333x77");
  EXPECT_EQ(s.m, 1000);
  EXPECT_EQ(s.n, 333);
  EXPECT_EQ(s.k, 77);
  EXPECT_THROW(parse_matmul_shape("10x10"), UsageError);
  EXPECT_THROW(parse_matmul_shape("10x0x3"), UsageError);
  // A bad side is named, with the shape it is in.
  for (const auto& [text, side, value] : std::vector<std::array<std::string, 3>>{
           {"0x4x4", "m", "0"}, {"4x-3x4", "n", "-3"}, {"4x4x4q", "k", "4q"}, {"4x4x0", "k", "0"}}) {
    try {
      parse_matmul_shape(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const UsageError& error) {
      const std::string message = error.what();
      EXPECT_EQ(message.rfind("matmul shape '" + text + "' (MxNxK): " + side + ": ", 0), 0u) << message;
      EXPECT_NE(message.find("'" + value + "'"), std::string::npos) << message;
    }
  }
}

// An upper-case X reads as x; another separator, a missing side or a side too many is named
// with what was probably meant.
TEST(ParseMatmulShape, WhatWasProbablyMeant) {
  const Shape upper = parse_matmul_shape("64X32X16");
  EXPECT_EQ(upper.m, 64);
  EXPECT_EQ(upper.n, 32);
  EXPECT_EQ(upper.k, 16);
  const auto refusal = [](const std::string& text) {
    try {
      parse_matmul_shape(text);
    } catch (const UsageError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  for (const char* other : {"4096*4096*4096", "4096 4096 4096", "4096\xC3\x97" "4096\xC3\x97" "4096", "4096, 4096, 4096", "4096/4096/4096"})
    EXPECT_NE(refusal(other).find("(did you mean '4096x4096x4096'? expected MxNxK"), std::string::npos) << refusal(other);
  EXPECT_NE(refusal("1000x333").find("two sizes, and a shape has three, the inner size k last: e.g. '1000x333x333'"),
            std::string::npos);
  EXPECT_NE(refusal("8x8x8x2").find("4 sizes, and a shape has three"), std::string::npos);
  EXPECT_EQ(refusal("4096x4096x"), "matmul shape '4096x4096x' (MxNxK): k: empty size");
  EXPECT_EQ(refusal("x4x4").rfind("matmul shape 'x4x4' (MxNxK): m: empty size", 0), 0u);
  for (const char* nothing_meant : {"abc", "4096*four*4096", "1.5x"})
    EXPECT_EQ(refusal(nothing_meant).find("did you mean"), std::string::npos) << refusal(nothing_meant);
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

// Only a backend with a TF32 path (cublas) runs and tags it: the custom GEMM and the CPU
// backends run plain FP32 and keep the f32 id and the FP32 peak.
TEST(ExpandCases, Tf32OnlyForF32MatmulOnABackendWithATf32Path) {
  RunOptions options;
  options.ops = {Op::matmul, Op::sum};
  options.dtypes = all_dtypes();
  options.sizes = {8};
  options.tf32 = true;
  const auto cases = expand_cases(options, {"eigen", "cuda", "cublas"});
  EXPECT_EQ(cases.size(), 2u * all_dtypes().size() * 3);
  for (const auto& spec : cases)
    EXPECT_EQ(spec.tf32, spec.op == Op::matmul && spec.dtype == DType::f32 && spec.backend == "cublas") << spec.id();
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

// --l2 is the GPU backends' setting: nothing flushes a CPU backend's caches, so its cases
// have no L2 mode and --l2 warm leaves their ids as they are.
TEST(ExpandCases, OnlyGpuCasesTakeTheL2Mode) {
  RunOptions options;
  options.ops = {Op::sum};
  options.sizes = {4096};
  options.l2 = L2Mode::warm;
  const auto cases = expand_cases(options, {"eigen", "openblas", "cuda", "cub"});
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_FALSE(cases[0].l2.has_value());
  EXPECT_EQ(cases[0].id(), "sum/eigen/f32/4096");
  EXPECT_FALSE(cases[1].l2.has_value());
  EXPECT_EQ(cases[1].id(), "sum/openblas/f32/4096");
  EXPECT_EQ(cases[2].l2, L2Mode::warm);
  EXPECT_EQ(cases[2].id(), "sum/cuda/f32/4096/l2warm");
  EXPECT_EQ(cases[3].l2, L2Mode::warm);
  EXPECT_EQ(cases[3].id(), "sum/cub/f32/4096/l2warm");
  options.l2 = L2Mode::flush;
  const auto flushed = expand_cases(options, {"eigen", "cuda"});
  EXPECT_FALSE(flushed[0].l2.has_value());
  EXPECT_EQ(flushed[1].l2, L2Mode::flush);
  EXPECT_EQ(flushed[1].id(), "sum/cuda/f32/4096");
}

TEST(ExpandCases, EachSpmvPatternIsACaseWithItsColumns) {
  RunOptions options;
  options.ops = {Op::spmv};
  options.spmv_rows = 1024;
  options.patterns = {SpmvPattern::random, SpmvPattern::wide, SpmvPattern::tall, SpmvPattern::skew};
  const auto cases = expand_cases(options, {"eigen"});
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0].id(), "spmv/eigen/f32/1024x1024/16/random");
  EXPECT_EQ(cases[1].id(), "spmv/eigen/f32/1024x65536/16/wide");
  EXPECT_EQ(cases[2].id(), "spmv/eigen/f32/1024x16/16/tall");
  EXPECT_EQ(cases[3].id(), "spmv/eigen/f32/1024x1024/16/skew");
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

TEST(CheckPlanFitsMemory, HugeSparseMatricesAreRefusedWithoutOverflow) {
  Plan plan;
  CaseSpec spec;
  spec.op = Op::spmv;
  spec.backend = "eigen";
  spec.shape = spmv_shape(std::int64_t{1} << 40, std::numeric_limits<std::int64_t>::max(), SpmvPattern::random);
  plan.cases = {spec};
  EXPECT_THROW(check_plan_fits_memory(plan), UsageError);
}

// ---- build_plan ----

RunConfig config_of(std::vector<RunOptions> groups) {
  RunConfig config;
  config.settings = default_run_settings();
  for (auto& options : groups) config.groups.push_back({std::move(options), std::nullopt});
  return config;
}

RunOptions eigen_options(std::vector<Op> ops, std::vector<std::int64_t> sizes) {
  RunOptions options;
  options.ops = std::move(ops);
  options.sizes = std::move(sizes);
  options.backends = {"eigen"};
  return options;
}

std::string plan_error_of(const RunConfig& config) {
  auto backends = make_all_backends();
  try {
    build_plan(config, backends);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "<no UsageError>";
}

TEST(BuildPlan, CountsTheCasesBeforeBuildingThem) {
  std::vector<std::int64_t> sizes(60000);
  for (std::size_t i = 0; i < sizes.size(); ++i) sizes[i] = static_cast<std::int64_t>(i) + 1;
  const RunConfig config = config_of({eigen_options({Op::sum}, sizes), eigen_options({Op::sin}, sizes)});
  EXPECT_EQ(plan_error_of(config), "the plan has 120000 cases, more than the 100000 one run may hold (docs/bounds.md)");
}

TEST(BuildPlan, RefusesACaseAskedForTwice) {
  const std::string message = plan_error_of(config_of({eigen_options({Op::sum}, {1024}), eigen_options({Op::sum}, {1024})}));
  EXPECT_EQ(message.rfind("case sum/eigen/f32/1024 is asked for twice", 0), 0u) << message;
}

TEST(BuildPlan, ChecksGeneratedMatricesUpFront) {
  RunOptions options = eigen_options({Op::spmv}, {});
  options.spmv_rows = 8;
  const std::string message = plan_error_of(config_of({options}));
  EXPECT_EQ(message, "case spmv/eigen/f32/8x8/16/random: spmv nnz per row (16) cannot exceed the row count (8)");
}

TEST(BuildPlan, SelectingOpsFromASuiteKeepsItsSizesAsFootprints) {
  // A sweep group reads sizes as footprints (matmul n = sqrt(size)); --op matmul picks its
  // matmul cases without turning 1M into a million-square matmul.
  RunConfig config = config_of({eigen_options({Op::sin, Op::matmul}, {1 << 10, 1 << 20})});
  config.only_ops = {Op::matmul};
  auto backends = make_all_backends();
  const Plan plan = build_plan(config, backends);
  ASSERT_EQ(plan.cases.size(), 2u);
  EXPECT_EQ(plan.cases[0].id(), "matmul/eigen/f32/32x32x32");
  EXPECT_EQ(plan.cases[1].id(), "matmul/eigen/f32/1024x1024x1024");
}

TEST(SizesApply, OnlyWhereAnOpReadsThem) {
  RunOptions options;
  options.sizes = {64};
  options.ops = {Op::matmul};
  EXPECT_TRUE(sizes_apply(options));
  options.matmul_shapes = {matmul_shape(4, 4, 4)};
  EXPECT_FALSE(sizes_apply(options));
  options.ops = {Op::spmv};
  options.spmv_rows = 1024;
  EXPECT_FALSE(sizes_apply(options));
  options.ops = {Op::sum, Op::spmv};
  EXPECT_TRUE(sizes_apply(options));
}

}  // namespace
}  // namespace gpb
