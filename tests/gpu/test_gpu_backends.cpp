// GPU backend tests: every GPU backend on every op/dtype it supports, at sizes that reach
// the kernels' tails and edge cases, plus transfers, L2 flushing, TF32, determinism,
// out-of-memory and bad device ordinals. Plain C++ through the Backend interface: no CUDA
// header here. Every test skips (not fails) where no CUDA device is present, and the
// file builds without the CUDA toolkit, where each test skips for that reason.
#include <gtest/gtest.h>

#if GPUBENCH_HAVE_CUDA

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include "measure/backend.hpp"
#include "measure/context.hpp"
#include "measure/gemm_dispatch.hpp"
#include "config/plan.hpp"
#include "model/problem.hpp"
#include "base/random.hpp"
#include "measure/runner.hpp"
#include "model/verify.hpp"
#include "same_bits.hpp"

namespace gpb {
namespace {

constexpr std::uint64_t kSeed = 20240611;

Backend& backend_named(const std::string& name) {
  static const std::vector<std::unique_ptr<Backend>> backends = make_all_backends();
  for (const auto& backend : backends)
    if (backend->name() == name) return *backend;
  throw std::logic_error("no backend named " + name);
}

// The reason `backend` cannot run here (no CUDA device, no driver), if it cannot.
std::optional<std::string> unavailable(const Backend& backend) {
  const Availability availability = backend.availability();
  if (availability.available) return std::nullopt;
  return backend.name() + " unavailable: " + availability.reason;
}

#define SKIP_UNLESS_AVAILABLE(backend)                                         \
  do {                                                                         \
    if (const auto gpb_reason = unavailable(backend)) GTEST_SKIP() << *gpb_reason; \
  } while (false)

// Hand-built matrices for what the generators do not reach on purpose.
enum class MatrixSource {
  generated, long_row, mostly_empty, one_huge_row, empty_runs, tiny, single_entry, no_nonzeros, empty_row, one_nonzero, file
};

double value_for(std::uint64_t key, std::uint64_t index) { return 2 * unit_interval(random_bits(key, index)) - 1; }

// Every third row empty, the others 1..5 entries, and row 17 holding every column: the
// vector kernel's long-row loop (forced) and the reductions over empty segments; its row
// lengths vary enough for the merge-path kernel to take it otherwise.
CsrMatrix long_row_matrix() {
  CsrMatrix matrix;
  matrix.rows = 4000;
  matrix.cols = 70000;
  matrix.row_ptr.push_back(0);
  for (std::int64_t row = 0; row < matrix.rows; ++row) {
    std::vector<std::int32_t> columns;
    if (row == 17) {
      for (std::int64_t col = 0; col < matrix.cols; ++col) columns.push_back(static_cast<std::int32_t>(col));
    } else if (row % 3 != 0) {
      for (std::int64_t i = 0; i <= row % 5; ++i)
        columns.push_back(static_cast<std::int32_t>((row * 7919 + i * (matrix.cols / 6)) % matrix.cols));
      std::sort(columns.begin(), columns.end());
    }
    matrix.col_idx.insert(matrix.col_idx.end(), columns.begin(), columns.end());
    matrix.row_ptr.push_back(static_cast<std::int32_t>(matrix.col_idx.size()));
  }
  for (std::int64_t j = 0; j < matrix.nnz(); ++j) matrix.values.push_back(value_for(17, static_cast<std::uint64_t>(j)));
  return matrix;
}

// Half the rows empty, the rest single entries, plus one row of 3000: an average under
// one entry per row, for the scalar (row-per-thread) kernel when forced; the row of 3000
// makes the lengths vary enough for the merge-path kernel otherwise.
CsrMatrix mostly_empty_matrix() {
  CsrMatrix matrix;
  matrix.rows = 100000;
  matrix.cols = 100000;
  matrix.row_ptr.push_back(0);
  for (std::int64_t row = 0; row < matrix.rows; ++row) {
    if (row == 99) {
      for (std::int64_t i = 0; i < 3000; ++i) matrix.col_idx.push_back(static_cast<std::int32_t>(i * 31));
    } else if (row % 2 == 0) {
      matrix.col_idx.push_back(static_cast<std::int32_t>(row * 31 % matrix.cols));
    }
    matrix.row_ptr.push_back(static_cast<std::int32_t>(matrix.col_idx.size()));
  }
  for (std::int64_t j = 0; j < matrix.nnz(); ++j) matrix.values.push_back(value_for(99, static_cast<std::uint64_t>(j)));
  return matrix;
}

// A CSR matrix from its rows' columns, values drawn under `key`.
CsrMatrix matrix_from_rows(std::int64_t cols, const std::vector<std::vector<std::int32_t>>& rows, std::uint64_t key) {
  CsrMatrix matrix;
  matrix.rows = static_cast<std::int64_t>(rows.size());
  matrix.cols = cols;
  matrix.row_ptr.push_back(0);
  for (const auto& columns : rows) {
    matrix.col_idx.insert(matrix.col_idx.end(), columns.begin(), columns.end());
    matrix.row_ptr.push_back(static_cast<std::int32_t>(matrix.col_idx.size()));
  }
  for (std::int64_t j = 0; j < matrix.nnz(); ++j) matrix.values.push_back(value_for(key, static_cast<std::uint64_t>(j)));
  return matrix;
}

// 300 rows of 0..2 entries and row 150 holding all 200000 columns: one row across about
// two hundred merge-path tiles, whose partial sums the carry pass joins.
CsrMatrix one_huge_row_matrix() {
  constexpr std::int64_t kCols = 200000;
  std::vector<std::vector<std::int32_t>> rows(300);
  for (std::size_t row = 0; row < rows.size(); ++row) {
    if (row == 150) {
      for (std::int64_t col = 0; col < kCols; ++col) rows[row].push_back(static_cast<std::int32_t>(col));
    } else {
      for (std::size_t i = 0; i < row % 3; ++i) rows[row].push_back(static_cast<std::int32_t>((row * 997 + i * 50000) % kCols));
      std::sort(rows[row].begin(), rows[row].end());
    }
  }
  return matrix_from_rows(kCols, rows, 150);
}

// Runs of empty rows longer than a merge-path tile (first rows, middle and last rows
// empty), between a few short and long rows: tiles that hold only row ends, and rows that
// end exactly on a tile boundary or span several.
CsrMatrix empty_runs_matrix() {
  constexpr std::int64_t kCols = 50000;
  std::vector<std::vector<std::int32_t>> rows(60000);
  for (std::size_t row = 7000; row < 7400; ++row)
    for (std::size_t i = 0; i < row % 7; ++i) rows[row].push_back(static_cast<std::int32_t>(i * 7000 + row % 1000));
  for (std::size_t row = 30000; row < 30005; ++row)
    for (std::int64_t col = 0; col < 3000 + 1000 * static_cast<std::int64_t>(row - 30000); ++col)
      rows[row].push_back(static_cast<std::int32_t>(col * 11 % kCols));
  for (auto& columns : rows) {
    std::sort(columns.begin(), columns.end());
    columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
  }
  return matrix_from_rows(kCols, rows, 7);
}

// Fewer nonzeros than a merge-path tile (or a warp): 6 rows, 9 nonzeros, empty rows first,
// in the middle and last.
CsrMatrix tiny_matrix() { return matrix_from_rows(9, {{}, {0, 2, 3, 7, 8}, {}, {}, {4}, {1, 5, 6}, {}}, 3); }

CsrMatrix single_entry_matrix() { return matrix_from_rows(1, {{0}}, 5); }

// 3000 rows (three merge-path tiles of row ends alone) and not one nonzero: y is all zeros.
CsrMatrix no_nonzeros_matrix() { return matrix_from_rows(500, std::vector<std::vector<std::int32_t>>(3000), 1); }

// The emptiest matrix there is: one row of 5 columns, no nonzero.
CsrMatrix empty_row_matrix() { return matrix_from_rows(5, {{}}, 2); }

// One row of 100000 columns with a single nonzero, at a column that is no multiple of 4.
CsrMatrix one_nonzero_matrix() { return matrix_from_rows(100000, {{77777}}, 4); }

Problem spmv_problem(DType dtype, CsrMatrix matrix) {
  Problem problem;
  problem.op = Op::spmv;
  problem.dtype = dtype;
  problem.seed = kSeed;
  problem.shape.rows = matrix.rows;
  problem.shape.cols = matrix.cols;
  problem.shape.nnz = matrix.nnz();
  problem.input_distribution = "hand-built matrix; values and x uniform[-1,1)";
  auto csr = std::make_shared<const CsrMatrix>(std::move(matrix));
  std::vector<double> x;
  for (std::int64_t i = 0; i < csr->cols; ++i) x.push_back(value_for(kSeed, static_cast<std::uint64_t>(i)));
  problem.csr_values = converted_values(dtype, csr->values);
  problem.x = converted_values(dtype, x);
  problem.csr = std::move(csr);
  return problem;
}

struct GpuCase {
  std::string backend;
  Op op;
  DType dtype;
  Shape shape;
  MatrixSource matrix;
  std::string label;  // the shape part of the test name
};

// How GoogleTest (and ctest's test names) show a case, instead of its bytes.
void PrintTo(const GpuCase& test_case, std::ostream* out) {
  *out << test_case.backend << " " << to_string(test_case.op) << " " << to_string(test_case.dtype) << " "
       << test_case.label;
}

Problem build_problem(const GpuCase& test_case) {
  switch (test_case.matrix) {
    case MatrixSource::long_row:
      return spmv_problem(test_case.dtype, long_row_matrix());
    case MatrixSource::mostly_empty:
      return spmv_problem(test_case.dtype, mostly_empty_matrix());
    case MatrixSource::one_huge_row:
      return spmv_problem(test_case.dtype, one_huge_row_matrix());
    case MatrixSource::empty_runs:
      return spmv_problem(test_case.dtype, empty_runs_matrix());
    case MatrixSource::tiny:
      return spmv_problem(test_case.dtype, tiny_matrix());
    case MatrixSource::single_entry:
      return spmv_problem(test_case.dtype, single_entry_matrix());
    case MatrixSource::no_nonzeros:
      return spmv_problem(test_case.dtype, no_nonzeros_matrix());
    case MatrixSource::empty_row:
      return spmv_problem(test_case.dtype, empty_row_matrix());
    case MatrixSource::one_nonzero:
      return spmv_problem(test_case.dtype, one_nonzero_matrix());
    case MatrixSource::generated:
    case MatrixSource::file:
      break;
  }
  return make_problem(test_case.op, test_case.dtype, test_case.shape, kSeed);
}

std::string identifier(std::string text) {
  for (char& c : text)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return text;
}

std::vector<std::string> test_matrix_files() {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(GPUBENCH_TEST_DATA, error))
    if (entry.path().extension() == ".mtx") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

struct ShapeCase {
  Shape shape;
  MatrixSource matrix;
  std::string label;
};

// Matrices whose nonzeros sit in a few long rows: a dot product of 300000 (nearly dense,
// gaps anywhere), a dense row of 100003 (x read 16 bytes at a time, an odd tail), a handful
// of rows, 2048 x 2048 dense (a segment a row), two rows of 5000003 (each row more segments
// than an H100 or H200 keeps blocks of the kernel resident: 1221 of 4096 f32 and f64, 611
// of 8192 16-bit, against 4 blocks of 54-64 registers a SM, 528; and 9766 merge-path
// tiles), and three rows of 1000 (under one segment unit in f32 and 16-bit, over it in f64).
std::vector<ShapeCase> fewrows_spmv_shapes() {
  std::vector<ShapeCase> shapes;
  for (const auto& [rows, nnz_per_row, pattern] : std::vector<std::tuple<std::int64_t, std::int64_t, SpmvPattern>>{
           {1, 300000, SpmvPattern::few_rows},
           {1, 100003, SpmvPattern::dense},
           {5, 70001, SpmvPattern::few_rows},
           {7, 4099, SpmvPattern::dense},
           {2048, 2048, SpmvPattern::dense},
           {2, 5000003, SpmvPattern::dense},
           {3, 1000, SpmvPattern::few_rows}})
    shapes.push_back({spmv_shape(rows, nnz_per_row, pattern), MatrixSource::generated,
                      to_string(pattern) + std::to_string(rows) + "_" + std::to_string(nnz_per_row)});
  return shapes;
}

std::vector<ShapeCase> shapes_for(Op op) {
  std::vector<ShapeCase> shapes;
  switch (op) {
    case Op::sin:
    case Op::sqrt:
    case Op::sum:
      // One element, a vector-width tail only, a tail after full vectors, and enough for
      // several grid-stride rounds.
      for (std::int64_t n : {1, 31, 1000003, (1 << 24) + 3})
        shapes.push_back({elementwise_shape(n), MatrixSource::generated, "n" + std::to_string(n)});
      break;
    case Op::matmul:
      // 1x1x1 a matrix-vector kernel (test_gemm_paths.cpp has the rest of the dispatch); odd
      // sizes the element-wise path (f32, f64) or padded copies (16-bit); 130x260x68 the
      // vectorised path with partial tiles in m, n and k (f32, f64), 136x264x72 the 16-bit
      // tensor-core kernels without padding (n and k multiples of 8); 512 whole tiles only.
      for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{
               {1, 1, 1}, {1000, 333, 77}, {129, 257, 65}, {130, 260, 68}, {136, 264, 72}, {512, 512, 512}}) {
        const Shape shape = matmul_shape(m, n, k);
        shapes.push_back({shape, MatrixSource::generated, shape.label(Op::matmul)});
      }
      break;
    case Op::spmv:
      // Average row lengths that select each kernel variant (scalar, 2..32 lanes per row)
      // under both dtypes' rules.
      for (std::int64_t nnz_per_row : {1, 2, 3, 6, 12, 24, 40, 200})
        shapes.push_back({spmv_shape(20000, nnz_per_row, SpmvPattern::random), MatrixSource::generated,
                          "random20000_" + std::to_string(nnz_per_row)});
      shapes.push_back({spmv_shape(100000, 8, SpmvPattern::powerlaw), MatrixSource::generated, "powerlaw100000_8"});
      shapes.push_back({spmv_shape(100000, 16, SpmvPattern::powerlaw), MatrixSource::generated, "powerlaw100000_16"});
      shapes.push_back({spmv_shape(100000, 5, SpmvPattern::banded), MatrixSource::generated, "banded100000_5"});
      shapes.push_back({spmv_shape(1000003, 4, SpmvPattern::random), MatrixSource::generated, "random1000003_4"});
      // The matrix zoo's classes (README.md): the generated classes at 20000 rows of 8, and
      // skew at a million nonzeros, whose 8 heavy rows of 114688 entries each span 112
      // merge-path tiles (more than SpmvCarryRuns::kLongTiles: a carry block each).
      for (SpmvPattern pattern : {SpmvPattern::skew, SpmvPattern::short_rows, SpmvPattern::block_diagonal,
                                  SpmvPattern::wide, SpmvPattern::tall, SpmvPattern::longtail})
        shapes.push_back({spmv_shape(20000, 8, pattern), MatrixSource::generated, to_string(pattern) + "20000_8"});
      shapes.push_back({spmv_shape(std::int64_t{1} << 20, 1, SpmvPattern::skew), MatrixSource::generated, "skew1048576_1"});
      // The work in a few rows (fewrows_spmv_shapes): one row, a handful, rows longer than
      // a whole grid's worth of segments and of merge-path tiles.
      for (const ShapeCase& shape : fewrows_spmv_shapes()) shapes.push_back(shape);
      shapes.push_back({Shape{}, MatrixSource::one_nonzero, "one_nonzero"});
      shapes.push_back({Shape{}, MatrixSource::long_row, "long_row"});
      shapes.push_back({Shape{}, MatrixSource::mostly_empty, "mostly_empty"});
      shapes.push_back({Shape{}, MatrixSource::one_huge_row, "one_huge_row"});
      shapes.push_back({Shape{}, MatrixSource::empty_runs, "empty_runs"});
      shapes.push_back({Shape{}, MatrixSource::tiny, "tiny"});
      shapes.push_back({Shape{}, MatrixSource::single_entry, "single_entry"});
      for (const std::string& file : test_matrix_files())
        shapes.push_back({spmv_file_shape(file), MatrixSource::file,
                          "file_" + std::filesystem::path(file).stem().string()});
      break;
  }
  return shapes;
}

// Evaluated when GoogleTest registers the tests (after static initialisation), and
// touching no device: supports() is a static property of each backend.
std::vector<GpuCase> all_gpu_cases() {
  std::vector<GpuCase> cases;
  for (const std::string name : {"cuda", "cublas", "cub", "cusparse"}) {
    const Backend& backend = backend_named(name);
    for (Op op : all_ops())
      for (DType dtype : all_dtypes()) {
        if (!backend.supports(op, dtype).supported) continue;
        for (const ShapeCase& shape : shapes_for(op)) cases.push_back({name, op, dtype, shape.shape, shape.matrix, shape.label});
      }
  }
  return cases;
}

std::string describe(const Verification& verification) {
  return "max error " + std::to_string(verification.max_error) + " vs tolerance " +
         std::to_string(verification.tolerance) + " over " + verification.method;
}

// Runs a prepared case to completion and expects its result checked and within the op
// table's tolerance of the host's fp64 reference; `details` names the kernel on failure.
void expect_verified_run(const Problem& problem, Prepared& prepared, const std::string& details) {
  prepared.run();
  prepared.synchronize();
  const Verification verification = verify(problem, prepared.result());
  EXPECT_TRUE(verification.checked);
  EXPECT_TRUE(verification.passed) << describe(verification) << "; details: " << details;
}

class GpuBackendCase : public ::testing::TestWithParam<GpuCase> {};

TEST_P(GpuBackendCase, ComputesVerifiedResult) {
  const GpuCase& test_case = GetParam();
  Backend& backend = backend_named(test_case.backend);
  SKIP_UNLESS_AVAILABLE(backend);
  const Problem problem = build_problem(test_case);
  auto prepared = backend.prepare(problem, BackendSettings{});
  prepared->run();
  prepared->synchronize();
  const Verification verification = verify(problem, prepared->result(), prepared->unit_roundoff_override());
  EXPECT_TRUE(verification.checked);
  EXPECT_TRUE(verification.passed) << describe(verification) << "; details: " << prepared->details();
}

INSTANTIATE_TEST_SUITE_P(AllGpuBackends, GpuBackendCase, ::testing::ValuesIn(all_gpu_cases()),
                         [](const ::testing::TestParamInfo<GpuCase>& param_info) {
                           const GpuCase& c = param_info.param;
                           return identifier(c.backend + "_" + to_string(c.op) + "_" + to_string(c.dtype) + "_" + c.label);
                         });

// Settings that force the cuda backend's SpMV kernel (--spmv-kernel).
BackendSettings forcing(SpmvKernelChoice choice) {
  BackendSettings settings;
  settings.spmv_kernel = choice;
  return settings;
}

// One SpMV matrix under a forced choice of the cuda backend's kernel.
struct ForcedSpmvCase {
  SpmvKernelChoice choice;
  GpuCase matrix;
};

void PrintTo(const ForcedSpmvCase& test_case, std::ostream* out) {
  *out << to_string(test_case.choice) << " ";
  PrintTo(test_case.matrix, out);
}

// Every spmv matrix of the backend tests, and one with no nonzeros at all (cuda only: what
// a library takes for the null arrays of an empty matrix is its own business).
std::vector<ForcedSpmvCase> forced_spmv_cases() {
  std::vector<ShapeCase> shapes = shapes_for(Op::spmv);
  shapes.push_back({Shape{}, MatrixSource::no_nonzeros, "no_nonzeros"});
  shapes.push_back({Shape{}, MatrixSource::empty_row, "empty_row"});
  std::vector<ForcedSpmvCase> cases;
  for (SpmvKernelChoice choice : {SpmvKernelChoice::merge_path, SpmvKernelChoice::row_split})
    for (DType dtype : all_dtypes())
      for (const ShapeCase& shape : shapes)
        cases.push_back({choice, {"cuda", Op::spmv, dtype, shape.shape, shape.matrix, shape.label}});
  return cases;
}

// Both of the cuda backend's ways to split SpMV on every matrix and in every dtype, whatever
// the row lengths would choose: the merge-path kernel on uniform, banded and power-law
// matrices, empty rows, one row across many tiles, fewer nonzeros than a tile, a single
// entry, a handful of rows of millions; the row-split kernels (scalar, vector, long rows)
// on the skewed ones too. The run after the first gives the same bits.
class CudaForcedSpmvCase : public ::testing::TestWithParam<ForcedSpmvCase> {};

TEST_P(CudaForcedSpmvCase, ComputesVerifiedResult) {
  const ForcedSpmvCase& test_case = GetParam();
  Backend& backend = backend_named("cuda");
  SKIP_UNLESS_AVAILABLE(backend);
  const Problem problem = build_problem(test_case.matrix);
  auto prepared = backend.prepare(problem, forcing(test_case.choice));
  const std::string details = prepared->details();
  EXPECT_NE(details.find("(forced by --spmv-kernel)"), std::string::npos) << details;
  EXPECT_EQ(details.find("kernel=csr_merge_path") != std::string::npos, test_case.choice == SpmvKernelChoice::merge_path)
      << details;
  expect_verified_run(problem, *prepared, details);
  expect_same_bits_on_rerun(*prepared, prepared->result(), 1, "details: " + details);
}

INSTANTIATE_TEST_SUITE_P(ForcedSpmvKernel, CudaForcedSpmvCase, ::testing::ValuesIn(forced_spmv_cases()),
                         [](const ::testing::TestParamInfo<ForcedSpmvCase>& param_info) {
                           const ForcedSpmvCase& c = param_info.param;
                           return identifier(to_string(c.choice) + "_spmv_" + to_string(c.matrix.dtype) + "_" + c.matrix.label);
                         });

// --spmv-kernel through the plan and the runner: the forced cuda case verifies and says so
// in its id and details; CUB's case is the one it would be without the option. (Not
// cuSPARSE: its own kernel trips racecheck, which runs the *Spmv* tests.)
TEST(GpuBackends, ForcedSpmvKernelVerifiesAndShowsInTheIdAndDetails) {
  SKIP_UNLESS_AVAILABLE(backend_named("cuda"));
  RunOptions options;
  options.ops = {Op::spmv};
  options.spmv_rows = 100000;
  options.patterns = {SpmvPattern::powerlaw};
  RunnerOptions runner;
  runner.warmup = 1;
  runner.stopping.min_samples = 3;
  runner.stopping.max_samples = 5;
  runner.stopping.min_time_s = 0;
  runner.stopping.max_time_s = 1;
  for (SpmvKernelChoice choice : {SpmvKernelChoice::row_split, SpmvKernelChoice::merge_path}) {
    options.spmv_kernel = choice;
    const auto cases = expand_cases(options, {"cuda", "cub"});
    ASSERT_EQ(cases.size(), 2u);
    const Problem problem = make_problem(Op::spmv, DType::f32, cases[0].shape, kSeed);
    for (const CaseSpec& spec : cases) {
      const ResultRecord record = run_case(spec, problem, backend_named(spec.backend), runner);
      EXPECT_EQ(record.status, Status::ok) << spec.id() << ": " << record.reason;
      EXPECT_TRUE(record.verification.passed) << spec.id() << ": " << describe(record.verification);
      if (spec.backend == "cuda") {
        EXPECT_EQ(record.spec.id(), "spmv/cuda/f32/100000x100000/16/powerlaw/" + to_string(choice));
        EXPECT_NE(record.details.find("(forced by --spmv-kernel)"), std::string::npos) << record.details;
        EXPECT_EQ(record.details.find("kernel=csr_merge_path") != std::string::npos, choice == SpmvKernelChoice::merge_path)
            << record.details;
      } else {
        EXPECT_EQ(record.spec.id(), "spmv/cub/f32/100000x100000/16/powerlaw");
      }
    }
  }
}

TEST(GpuBackends, AllFourAreRegisteredAsGpuBackends) {
  for (const std::string name : {"cuda", "cublas", "cub", "cusparse"}) {
    const Backend& backend = backend_named(name);
    EXPECT_EQ(backend.kind(), DeviceKind::gpu) << name;
    const Availability availability = backend.availability();
    if (!availability.available) {
      EXPECT_FALSE(availability.reason.empty()) << name;
    }
  }
  SKIP_UNLESS_AVAILABLE(backend_named("cuda"));
}

TEST(GpuBackends, UnsupportedOpsCarryAReason) {
  SKIP_UNLESS_AVAILABLE(backend_named("cuda"));
  for (const auto& [name, op] : std::vector<std::pair<std::string, Op>>{
           {"cublas", Op::sin}, {"cub", Op::matmul}, {"cusparse", Op::sum}}) {
    const Support support = backend_named(name).supports(op, DType::f32);
    EXPECT_FALSE(support.supported) << name;
    EXPECT_FALSE(support.reason.empty()) << name;
  }
}

// upload, run, download as the runner's end-to-end phases: the same verified result.
TEST(GpuBackends, EndToEndTransfersGiveVerifiedResult) {
  SKIP_UNLESS_AVAILABLE(backend_named("cuda"));
  const std::vector<std::pair<std::string, Problem>> cases = [] {
    std::vector<std::pair<std::string, Problem>> built;
    built.emplace_back("cuda", make_problem(Op::sum, DType::f32, elementwise_shape(1000003), kSeed));
    built.emplace_back("cublas", make_problem(Op::matmul, DType::f64, matmul_shape(129, 257, 65), kSeed));
    built.emplace_back("cub", make_problem(Op::sin, DType::f32, elementwise_shape(1000003), kSeed));
    built.emplace_back("cusparse", make_problem(Op::spmv, DType::f32, spmv_shape(20000, 12, SpmvPattern::random), kSeed));
    return built;
  }();
  for (const auto& [name, problem] : cases) {
    auto prepared = backend_named(name).prepare(problem, BackendSettings{});
    ASSERT_TRUE(prepared->has_transfers()) << name;
    for (int repeat = 0; repeat < 2; ++repeat) {
      prepared->upload();
      prepared->run();
      prepared->download();
    }
    prepared->synchronize();
    const Verification verification = verify(problem, prepared->result());
    EXPECT_TRUE(verification.passed) << name << ": " << describe(verification);
  }
}

TEST(GpuBackends, FlushCacheBetweenRunsKeepsResultsCorrect) {
  SKIP_UNLESS_AVAILABLE(backend_named("cuda"));
  const Problem problem = make_problem(Op::sqrt, DType::f64, elementwise_shape(1000003), kSeed);
  for (const std::string name : {"cuda", "cub"}) {
    auto prepared = backend_named(name).prepare(problem, BackendSettings{});
    for (int repeat = 0; repeat < 3; ++repeat) {
      prepared->flush_cache();
      prepared->run();
    }
    prepared->synchronize();
    const Verification verification = verify(problem, prepared->result());
    EXPECT_TRUE(verification.passed) << name << ": " << describe(verification);
  }
}

// The output is poisoned with NaN in prepare: a case that never runs must fail.
TEST(GpuBackends, UnwrittenOutputFailsVerification) {
  SKIP_UNLESS_AVAILABLE(backend_named("cuda"));
  const Problem problem = make_problem(Op::sin, DType::f32, elementwise_shape(31), kSeed);
  auto prepared = backend_named("cuda").prepare(problem, BackendSettings{});
  EXPECT_FALSE(verify(problem, prepared->result()).passed);
}

TEST(GpuBackends, EventTimerMeasuresTheStream) {
  SKIP_UNLESS_AVAILABLE(backend_named("cuda"));
  const Problem problem = make_problem(Op::sin, DType::f32, elementwise_shape(1 << 22), kSeed);
  auto prepared = backend_named("cuda").prepare(problem, BackendSettings{});
  auto timer = prepared->make_timer();
  EXPECT_EQ(timer->name(), "cuda_event");
  timer->start();
  prepared->run();
  timer->stop();
  const double seconds = timer->elapsed_seconds();
  EXPECT_GT(seconds, 0.0);
  EXPECT_LT(seconds, 1.0);
}

TEST(GpuBackends, CudaSumIsDeterministic) {
  SKIP_UNLESS_AVAILABLE(backend_named("cuda"));
  const Problem problem = make_problem(Op::sum, DType::f32, elementwise_shape((1 << 24) + 3), kSeed);
  for (const std::string name : {"cuda", "cub"}) {
    auto prepared = backend_named(name).prepare(problem, BackendSettings{});
    prepared->run();
    expect_same_bits_on_rerun(*prepared, prepared->result(), 3, name);
  }
}

// Carries are joined in a fixed order, with no atomics: the same bits on every run.
TEST(GpuBackends, CudaSpmvMergePathIsDeterministic) {
  SKIP_UNLESS_AVAILABLE(backend_named("cuda"));
  for (DType dtype : all_dtypes()) {
    const Problem problem = make_problem(Op::spmv, dtype, spmv_shape(100000, 16, SpmvPattern::powerlaw), kSeed);
    auto prepared = backend_named("cuda").prepare(problem, BackendSettings{});
    ASSERT_NE(prepared->details().find("kernel=csr_merge_path"), std::string::npos) << prepared->details();
    prepared->run();
    expect_same_bits_on_rerun(*prepared, prepared->result(), 3, to_string(dtype));
  }
}

// A skewed matrix's heavy rows span about a hundred tiles each: their carries are combined
// by a block each, in a fixed tree, so every run gives the same bits; the automatic rule
// picks the merge path and says why, in every dtype (16-bit tiles are twice as long: 2048
// items, so about half as many tiles a row).
TEST(GpuBackends, CudaSpmvLongCarryRunsAreDeterministic) {
  SKIP_UNLESS_AVAILABLE(backend_named("cuda"));
  for (DType dtype : all_dtypes()) {
    SCOPED_TRACE(to_string(dtype));
    const Problem problem = make_problem(Op::spmv, dtype, spmv_shape(std::int64_t{1} << 20, 1, SpmvPattern::skew), kSeed);
    auto prepared = backend_named("cuda").prepare(problem, BackendSettings{});
    const std::string details = prepared->details();
    ASSERT_NE(details.find("kernel=csr_merge_path"), std::string::npos) << details;
    if (dtype_info(dtype).accumulation == dtype) {
      EXPECT_NE(details.find("items_per_tile=1024 "), std::string::npos) << details;
      EXPECT_NE(details.find(" (8 over 32 tiles, a block each; longest 11"), std::string::npos) << details;
    } else {
      EXPECT_NE(details.find("items_per_tile=2048 "), std::string::npos) << details;
      EXPECT_NE(details.find("accumulate=f32"), std::string::npos) << details;
      // The long runs: at least one (a row over 32 tiles of 2048 items), each a block.
      const std::size_t over = details.find(" over 32 tiles, a block each; longest ");
      ASSERT_NE(over, std::string::npos) << details;
      const std::size_t open = details.rfind('(', over);
      ASSERT_NE(open, std::string::npos) << details;
      EXPECT_GE(std::stoi(details.substr(open + 1, over - open - 1)), 1) << details;
      EXPECT_GT(std::stoi(details.substr(over + std::string(" over 32 tiles, a block each; longest ").size())), 32)
          << details;
    }
    EXPECT_NE(details.find("rule: merge_path when"), std::string::npos) << details;
    EXPECT_NE(details.find(": skewed)"), std::string::npos) << details;
    prepared->run();
    const HostArray first = prepared->result();
    EXPECT_TRUE(verify(problem, first).passed);
    expect_same_bits_on_rerun(*prepared, first, 3, to_string(dtype));
  }
}

// Small sums are one launch whose last block combines the block partials: every size from
// one element to 64K (a sample: vector-width and block edges, one block and several) is
// right against the fp64 reference, run after run (the finished-block counter resets).
// The 16-bit sums accumulate in f32 and are stored in f32.
TEST(GpuBackends, CudaSmallSumsAreVerifiedAndRepeatable) {
  SKIP_UNLESS_AVAILABLE(backend_named("cuda"));
  std::vector<std::int64_t> sizes;
  for (std::int64_t n = 1; n <= 33; ++n) sizes.push_back(n);
  for (std::int64_t edge : {255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097,
                            10007, 32767, 32768, 32769, 65535, 65536})
    sizes.push_back(edge);
  for (DType dtype : all_dtypes())
    for (std::int64_t n : sizes) {
      const Problem problem = make_problem(Op::sum, dtype, elementwise_shape(n), kSeed);
      auto prepared = backend_named("cuda").prepare(problem, BackendSettings{});
      EXPECT_NE(prepared->details().find("kernel=one_launch_block_reduce"), std::string::npos) << prepared->details();
      prepared->run();
      const HostArray first = prepared->result();
      ASSERT_EQ(first.dtype(), dtype_info(dtype).accumulation) << to_string(dtype);
      const Verification verification = verify(problem, first);
      EXPECT_TRUE(verification.passed) << to_string(dtype) << " n=" << n << ": " << describe(verification);
      expect_same_bits_on_rerun(*prepared, first, 2, to_string(dtype) + " n=" + std::to_string(n));
    }
}

TEST(GpuBackends, CudaSpmvNamesTheChosenKernel) {
  SKIP_UNLESS_AVAILABLE(backend_named("cuda"));
  Backend& backend = backend_named("cuda");
  // At most one entry per row, all alike: a thread per row.
  const Problem single_entries = make_problem(Op::spmv, DType::f32, spmv_shape(20000, 1, SpmvPattern::random), kSeed);
  EXPECT_NE(backend.prepare(single_entries, BackendSettings{})->details().find("kernel=csr_scalar"), std::string::npos);
  // Rows of 0 to 2 entries (mean 1, or 1/2 with half of them empty: a coefficient of
  // variation of 1) are no skew: a thread per row, whatever the draw.
  for (std::int64_t nnz_per_row : {1, 2}) {
    const Problem short_rows = make_problem(Op::spmv, DType::f32, spmv_shape(20000, nnz_per_row, SpmvPattern::short_rows), kSeed);
    const std::string details = backend.prepare(short_rows, BackendSettings{})->details();
    EXPECT_NE(details.find("kernel=csr_scalar"), std::string::npos) << details;
    EXPECT_NE(details.find(": not skewed)"), std::string::npos) << details;
  }
  // Row lengths that vary more than their mean, with rows far longer than it: the merge-path
  // kernel, in every dtype.
  for (const Problem& skewed :
       {spmv_problem(DType::f32, mostly_empty_matrix()), spmv_problem(DType::f64, long_row_matrix()),
        spmv_problem(DType::f16, mostly_empty_matrix()), spmv_problem(DType::bf16, long_row_matrix()),
        make_problem(Op::spmv, DType::f32, spmv_shape(100000, 16, SpmvPattern::powerlaw), kSeed),
        make_problem(Op::spmv, DType::f16, spmv_shape(100000, 16, SpmvPattern::powerlaw), kSeed),
        make_problem(Op::spmv, DType::f32, spmv_shape(100000, 16, SpmvPattern::longtail), kSeed),
        make_problem(Op::spmv, DType::bf16, spmv_shape(100000, 16, SpmvPattern::longtail), kSeed),
        make_problem(Op::spmv, DType::f64, spmv_shape(100000, 4, SpmvPattern::skew), kSeed),
        make_problem(Op::spmv, DType::f16, spmv_shape(100000, 4, SpmvPattern::skew), kSeed)}) {
    const std::string details = backend.prepare(skewed, BackendSettings{})->details();
    EXPECT_NE(details.find("kernel=csr_merge_path"), std::string::npos) << details;
    EXPECT_EQ(details.find("forced"), std::string::npos) << details;
  }
  const Problem powerlaw = make_problem(Op::spmv, DType::f64, spmv_shape(100000, 16, SpmvPattern::powerlaw), kSeed);
  const std::string forced_details = backend.prepare(powerlaw, forcing(SpmvKernelChoice::row_split))->details();
  EXPECT_NE(forced_details.find("kernel=csr_vector"), std::string::npos) << forced_details;
  EXPECT_NE(forced_details.find("(forced by --spmv-kernel)"), std::string::npos) << forced_details;
  const Problem rows_of_12 = make_problem(Op::spmv, DType::f32, spmv_shape(20000, 12, SpmvPattern::random), kSeed);
  const std::string random_details = backend.prepare(rows_of_12, BackendSettings{})->details();
  EXPECT_NE(random_details.find("kernel=csr_vector threads_per_row=4"), std::string::npos) << random_details;
  EXPECT_NE(random_details.find("row_nnz_cv=0.00"), std::string::npos) << random_details;
  EXPECT_NE(random_details.find("loads=vec16"), std::string::npos) << random_details;
  // Banded rows are runs of neighbouring columns: one entry per lane, so x reads coalesce.
  const Problem banded = make_problem(Op::spmv, DType::f64, spmv_shape(20000, 12, SpmvPattern::banded), kSeed);
  const std::string banded_details = backend.prepare(banded, BackendSettings{})->details();
  EXPECT_NE(banded_details.find("kernel=csr_vector"), std::string::npos) << banded_details;
  EXPECT_NE(banded_details.find("loads=scalar"), std::string::npos) << banded_details;
}

// The kernel the automatic rule picks for the few-rows matrices on an H100 or H200 (132 SMs
// of 2048 resident threads; any device with 65536 resident threads or more chooses alike):
// every row in segments where rows average a segment unit or more (256 threads x one
// 16-byte vector: 1024 f32, 512 f64, 2048 16-bit entries); three rows of 1000 fall under it
// in f32 and 16-bit (lanes); the empty row and the single nonzero a thread.
std::string expected_fewrows_kernel(const std::string& label, DType dtype) {
  if (label == "fewrows3_1000") return dtype == DType::f64 ? "csr_row_segments" : "csr_vector";
  if (label == "empty_row" || label == "one_nonzero") return "csr_scalar";
  return "csr_row_segments";
}

struct FewRowsSpmvCase {
  DType dtype;
  ShapeCase matrix;
};

void PrintTo(const FewRowsSpmvCase& test_case, std::ostream* out) {
  *out << to_string(test_case.dtype) << " " << test_case.matrix.label;
}

std::vector<FewRowsSpmvCase> fewrows_spmv_cases() {
  std::vector<ShapeCase> shapes = fewrows_spmv_shapes();
  shapes.push_back({Shape{}, MatrixSource::empty_row, "empty_row"});
  shapes.push_back({Shape{}, MatrixSource::one_nonzero, "one_nonzero"});
  std::vector<FewRowsSpmvCase> cases;
  for (DType dtype : all_dtypes())
    for (const ShapeCase& shape : shapes) cases.push_back({dtype, shape});
  return cases;
}

// The work in a few rows, chosen automatically: the kernel the rule names (and its rule in
// the details, with the device's numbers), a result verified against fp64, and the same bits
// on every run (each row's segments summed in a fixed order, the arrival counters reset).
class CudaFewRowsSpmvCase : public ::testing::TestWithParam<FewRowsSpmvCase> {};

TEST_P(CudaFewRowsSpmvCase, RunsTheKernelTheRuleNamesVerifiedAndRepeatable) {
  const FewRowsSpmvCase& test_case = GetParam();
  Backend& backend = backend_named("cuda");
  SKIP_UNLESS_AVAILABLE(backend);
  const Problem problem =
      build_problem({"cuda", Op::spmv, test_case.dtype, test_case.matrix.shape, test_case.matrix.matrix, test_case.matrix.label});
  auto prepared = backend.prepare(problem, BackendSettings{});
  const std::string details = prepared->details();
  const std::string kernel = expected_fewrows_kernel(test_case.matrix.label, test_case.dtype);
  EXPECT_EQ(details.rfind("kernel=" + kernel + " ", 0), 0u) << details;
  EXPECT_NE(details.find("rule: merge_path when row_nnz_cv > 1"), std::string::npos) << details;
  if (kernel != "csr_scalar") {
    EXPECT_NE(details.find(" resident threads ("), std::string::npos) << details;
  }
  if (kernel == "csr_row_segments") {
    EXPECT_NE(details.find("every row in segments"), std::string::npos) << details;
  }
  // Two rows of 5000003: each more segments than the device keeps resident blocks.
  if (test_case.matrix.label == "dense2_5000003") {
    EXPECT_NE(details.find("segmented_rows=2 ("), std::string::npos) << details;
  }
  prepared->run();
  prepared->synchronize();
  const HostArray first = prepared->result();
  const Verification verification = verify(problem, first);
  EXPECT_TRUE(verification.checked);
  EXPECT_TRUE(verification.passed) << describe(verification) << "; details: " << details;
  expect_same_bits_on_rerun(*prepared, first, 2, "details: " + details);
}

INSTANTIATE_TEST_SUITE_P(FewRowsSpmv, CudaFewRowsSpmvCase, ::testing::ValuesIn(fewrows_spmv_cases()),
                         [](const ::testing::TestParamInfo<FewRowsSpmvCase>& param_info) {
                           return identifier("cuda_spmv_" + to_string(param_info.param.dtype) + "_" +
                                             param_info.param.matrix.label);
                         });

TEST(GpuBackends, CublasTf32IsVerifiedAtTf32Precision) {
  Backend& backend = backend_named("cublas");
  SKIP_UNLESS_AVAILABLE(backend);
  BackendSettings settings;
  settings.tf32 = true;
  const Problem problem = make_problem(Op::matmul, DType::f32, matmul_shape(512, 512, 512), kSeed);
  auto prepared = backend.prepare(problem, settings);
  EXPECT_EQ(prepared->unit_roundoff_override(), std::ldexp(1.0, -11));
  EXPECT_NE(prepared->details().find("CUBLAS_TF32_TENSOR_OP_MATH"), std::string::npos) << prepared->details();
  prepared->run();
  const Verification verification = verify(problem, prepared->result(), prepared->unit_roundoff_override());
  EXPECT_TRUE(verification.passed) << describe(verification);

  // f64 has no TF32: the setting is ignored and the dtype's own precision applies.
  const Problem f64_problem = make_problem(Op::matmul, DType::f64, matmul_shape(130, 260, 68), kSeed);
  auto f64_prepared = backend.prepare(f64_problem, settings);
  EXPECT_EQ(f64_prepared->unit_roundoff_override(), 0.0);
  EXPECT_NE(f64_prepared->details().find("CUBLAS_DEFAULT_MATH"), std::string::npos) << f64_prepared->details();
  f64_prepared->run();
  EXPECT_TRUE(verify(f64_problem, f64_prepared->result()).passed);
}

// Small GEMMs of random shape in every dtype, on both GEMM backends, verify at the bound of
// f32 accumulation (cuBLAS's 16-bit split-k partials reduced in the output type failed it at
// bf16 9x72x14, which is kept as a named case). Seeded: a failure names its shape.
TEST(GpuBackends, SmallGemmsOfRandomShapeVerifyOnBothBackends) {
  std::vector<Shape> shapes{matmul_shape(9, 72, 14)};
  SplitMix64 rng(20261125);
  const auto side = [&rng] { return static_cast<std::int64_t>(1 + rng.next() % 300); };
  while (shapes.size() < 24) shapes.push_back(matmul_shape(side(), side(), side()));
  for (const char* name : {"cuda", "cublas"}) {
    Backend& backend = backend_named(name);
    SKIP_UNLESS_AVAILABLE(backend);
    for (DType dtype : {DType::f32, DType::f64, DType::f16, DType::bf16})
      for (const Shape& shape : shapes) {
        const Problem problem = make_problem(Op::matmul, dtype, shape, kSeed);
        auto prepared = backend.prepare(problem, BackendSettings{});
        prepared->run();
        const Verification verification = verify(problem, prepared->result(), prepared->unit_roundoff_override());
        EXPECT_TRUE(verification.passed) << name << " " << to_string(dtype) << " " << shape.m << "x" << shape.n << "x"
                                         << shape.k << ": " << describe(verification) << "; " << prepared->details();
      }
  }
}

// The custom GEMM has no TF32 path: its f32 case says so, runs plain FP32 and is verified at
// f32 precision; the plan gives it no tf32 tag (tests/unit/test_plan.cpp).
TEST(GpuBackends, CustomF32GemmSaysItHasNoTf32Path) {
  Backend& backend = backend_named("cuda");
  SKIP_UNLESS_AVAILABLE(backend);
  const Problem problem = make_problem(Op::matmul, DType::f32, matmul_shape(130, 260, 68), kSeed);
  auto prepared = backend.prepare(problem, BackendSettings{});
  EXPECT_NE(prepared->details().find("no TF32 path"), std::string::npos) << prepared->details();
  EXPECT_EQ(prepared->unit_roundoff_override(), 0.0);
  prepared->run();
  const Verification verification = verify(problem, prepared->result());
  EXPECT_TRUE(verification.passed) << describe(verification);
}

// Device 0's compute capability as major * 10 + minor (90 for "9.0"), as the cuda backend
// compares it when it chooses its f64 GEMM.
int device_compute_capability() {
  Context context;
  append_gpu_context(context);
  if (context.gpus.empty()) throw std::runtime_error("no CUDA device in the context");
  const std::string& text = context.gpus[0].compute_capability;
  const std::size_t dot = text.find('.');
  return 10 * std::stoi(text.substr(0, dot)) + std::stoi(text.substr(dot + 1));
}

// The custom f64 GEMM's tiled kernel (on the FP64 tensor cores from sm_80 on, the SIMT kernel
// below) at shapes that are no multiple of its tiles, against the host's fp64 reference with
// the op table's tolerance, u (2 sqrt(k) + 16) times sum |a||b| (op_table.cpp): the smallest
// tiled shape and odd n or k (element-wise copies); even n and k with partial tiles in m, n
// and k (16-byte copies); whole 128 x 128 tiles over 8 stages of k; k of 250 (16 stages, the
// last partial); and k = 34, the shortest k the tiled kernel takes (one stage and a partial
// one). The output is poisoned before the run, so an entry the kernel never writes fails too.
// (Matrix-vector shapes, m or n up to 16, and k up to 33 run other kernels:
// test_gemm_paths.cpp.)
TEST(GpuBackends, CudaF64GemmIsVerifiedAtOddShapes) {
  Backend& backend = backend_named("cuda");
  SKIP_UNLESS_AVAILABLE(backend);
  for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{{17, 17, 35},
                                                                        {19, 23, 37},
                                                                        {33, 65, 49},
                                                                        {1000, 333, 77},
                                                                        {128, 128, 128},
                                                                        {130, 260, 68},
                                                                        {257, 130, 250},
                                                                        {300, 18, 34}}) {
    const Problem problem = make_problem(Op::matmul, DType::f64, matmul_shape(m, n, k), kSeed);
    SCOPED_TRACE(problem.shape.label(Op::matmul));
    auto prepared = backend.prepare(problem, BackendSettings{});
    const std::string details = prepared->details();
    const bool even = n % 2 == 0 && k % 2 == 0;
    EXPECT_NE(details.find(even ? "global_access=vec16" : "global_access=scalar"), std::string::npos) << details;
    expect_verified_run(problem, *prepared, details);
  }
}

// The SIMT f32 GEMM on both of its tiles, against the host's fp64 reference with the op
// table's tolerance: the 64 x 64 tile where the 128 x 128 grid has fewer blocks than the
// device has SMs and k is too short to split (the smallest tiled shape, odd shapes with
// element-wise copies, 1000 x 333 x 77 and its 16-byte neighbour 1000 x 332 x 76, partial
// 64 x 64 x 16 tiles; test_gemm_paths.cpp has the split shapes), the 128 x 128 one where
// it fills the device (4096 x 2048 x 40: 512 blocks; 4097 x 1031 x 41, element-wise). k is
// past 33 throughout: shorter ones run the short-k kernel (test_gemm_paths.cpp). The output
// is poisoned before the run, so an entry the kernel never writes fails too.
// The SIMT f32 GEMM on each of its tiles, element-wise and over padded copies: the details
// name the tile and the access the dispatch plans, and the result verifies.
TEST(GpuBackends, CudaF32GemmIsVerifiedOnEveryTile) {
  Backend& backend = backend_named("cuda");
  SKIP_UNLESS_AVAILABLE(backend);
  Context context;
  append_gpu_context(context);
  ASSERT_FALSE(context.gpus.empty());
  const int sm_count = context.gpus[0].sm_count;
  std::set<std::string> tiles;
  for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{{17, 17, 35},
                                                                        {19, 23, 37},
                                                                        {1000, 333, 77},
                                                                        {1000, 332, 76},
                                                                        {130, 260, 68},
                                                                        {4096, 2048, 40},
                                                                        {4097, 1031, 41},
                                                                        {2212, 30, 964},
                                                                        {32, 2048, 3000},
                                                                        {366, 2962, 863}}) {
    const Problem problem = make_problem(Op::matmul, DType::f32, matmul_shape(m, n, k), kSeed);
    SCOPED_TRACE(problem.shape.label(Op::matmul));
    auto prepared = backend.prepare(problem, BackendSettings{});
    const std::string details = prepared->details();
    GemmDevice facts;  // f32's plan asks only for the SM count
    facts.sm_count = sm_count;
    const GemmPlan plan = plan_gemm(DType::f32, m, n, k, facts);
    const std::string tile = std::to_string(plan.tile.m) + "x" + std::to_string(plan.tile.n) + "x" +
                             std::to_string(plan.tile.k);
    const std::string thread_tile = plan.tile.m == 64 ? "4x4" : plan.tile.n == 32 || plan.tile.m == 32 ? "8x4" : "8x8";
    EXPECT_NE(details.find("block_tile=" + tile + " thread_tile=" + thread_tile + " stage_depth=16"), std::string::npos)
        << details;
    // 16-byte loads where n and k allow them, or where A and B were padded for them.
    EXPECT_EQ(plan.vectorized, (n % 4 == 0 && k % 4 == 0) || plan.stage_a || plan.stage_b);
    EXPECT_NE(details.find(plan.vectorized ? "global_access=vec16" : "global_access=scalar"), std::string::npos)
        << details;
    tiles.insert(tile);
    expect_verified_run(problem, *prepared, details);
  }
  if (sm_count >= 100) {  // the shapes reach every tile on an H100-sized device
    EXPECT_EQ(tiles, (std::set<std::string>{"128x128x16", "64x64x16", "128x32x16", "32x128x16"}));
  }
}

// Which kernel the f64 GEMM runs follows the device, and the details say which: DMMA on the
// data-centre parts from sm_80 on (A100, H100/H200, B200: 8.0, 9.0, 10.0), with the m8n8k4
// shape below sm_90 and m16n8k16 from sm_90 on (the build compiles sm_90 code); the SIMT
// kernel with the reason below sm_80 and, where the DMMA kernel's shared memory does not fit
// (some GeForce/RTX parts of sm_8x and sm_12x), either with its reason. f32 stays on the
// CUDA cores everywhere.
TEST(GpuBackends, CudaF64GemmNamesTheDmmaKernelFromSm80) {
  Backend& backend = backend_named("cuda");
  SKIP_UNLESS_AVAILABLE(backend);
  const Problem problem = make_problem(Op::matmul, DType::f64, matmul_shape(130, 260, 68), kSeed);
  const std::string details = backend.prepare(problem, BackendSettings{})->details();
  const int compute_capability = device_compute_capability();
  const std::string dmma_kernel = std::string("kernel=dmma_gemm (FP64 tensor cores, mma.sync ") +
                                  (compute_capability >= 90 ? "m16n8k16)" : "m8n8k4)");
  const bool dmma = details.find(dmma_kernel) != std::string::npos;
  if (compute_capability < 80) {
    EXPECT_NE(details.find("kernel=tiled_gemm (CUDA-core FMA; no TF32 path; no FP64 tensor cores below sm_80)"),
              std::string::npos)
        << details;
  } else if (compute_capability == 80 || compute_capability == 90 || compute_capability == 100) {
    EXPECT_TRUE(dmma) << "expected " << dmma_kernel << " in " << details;
  } else if (!dmma) {
    EXPECT_NE(details.find("KiB of shared memory per block, this device allows"), std::string::npos) << details;
  }
  const Problem f32_problem = make_problem(Op::matmul, DType::f32, matmul_shape(130, 260, 68), kSeed);
  const std::string f32_details = backend.prepare(f32_problem, BackendSettings{})->details();
  EXPECT_NE(f32_details.find("kernel=tiled_gemm (CUDA-core FMA; no TF32 path)"), std::string::npos) << f32_details;
}

// The custom f16 and bf16 GEMMs' tiled kernels at the edges of their tiles, against the host's
// fp64 reference with the op table's tolerance. The wgmma kernel on sm_90 (128 x 256 x 64
// tiles, or 64 x 256, 128 x 128 or 64 x 128 ones where the dispatch prices them lower;
// persistent; clusters of two row tiles, or of one where C has one row tile), the
// mma.sync kernel on sm_80 and sm_100 (128 x 256 x 32, 8 block rows to a group): one partial
// tile (24 x 72 x 24; n is past 64 throughout, narrower C runs the narrow kernel), partial
// tiles in m, n and k (136 x 264 x 72), a single column block (4096 x 72 x 24; k is past 16
// throughout, shorter ones run the short-k kernel), a whole tile in one stage, whole tiles over several stages, k of 1000
// (the last stage partial), ten block rows (a full group and a partial one; an odd number of
// row tiles), and two shapes with more tiles than an H100 has clusters at once, so that each
// cluster walks several tiles and the stage ring runs on across them (4352 x 2048 x 40, one
// partial stage each; 4096 x 2048 x 136, three). n or k not a multiple of 8 (129 x 257 x 65,
// 17 x 71 x 17) run the same kernels on padded copies, which the details say. The output is
// poisoned before the run, so an entry the kernel never writes fails.
TEST(GpuBackends, CudaSixteenBitGemmIsVerifiedAtTileEdges) {
  Backend& backend = backend_named("cuda");
  SKIP_UNLESS_AVAILABLE(backend);
  const int compute_capability = device_compute_capability();
  Context context;
  append_gpu_context(context);
  const int sm_count = context.gpus[0].sm_count;
  std::set<std::pair<int, int>> tiles;  // the wgmma tiles planned
  int widened_cases = 0, padded_cases = 0;  // odd rows on the widened SIMT tiles, on padded wgmma
  for (DType dtype : {DType::f16, DType::bf16}) {
    for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{{24, 72, 24},
                                                                          {136, 264, 72},
                                                                          {4096, 72, 24},
                                                                          {128, 256, 64},
                                                                          {256, 512, 256},
                                                                          {264, 520, 1000},
                                                                          {1160, 264, 40},
                                                                          {4352, 2048, 40},
                                                                          {4096, 2048, 136},
                                                                          {129, 257, 65},
                                                                          {17, 71, 17},
                                                                          {129, 257, 1001},
                                                                          {1025, 1031, 1027},
                                                                          {17, 71, 400}}) {
      const Problem problem = make_problem(Op::matmul, dtype, matmul_shape(m, n, k), kSeed);
      SCOPED_TRACE(to_string(dtype) + " " + problem.shape.label(Op::matmul));
      auto prepared = backend.prepare(problem, BackendSettings{});
      const std::string details = prepared->details();
      // Rows not whole 16-byte chunks: padded copies for the tensor cores, or, for small
      // products, the SIMT tiles widened to f32 reading the elements one at a time (rule 5).
      const bool widened =
          details.rfind("kernel=tiled_gemm (CUDA-core FMA, f32 accumulation, elements read one at a time) ", 0) == 0;
      if (widened) {
        EXPECT_TRUE(n % 8 != 0 || k % 8 != 0) << details;
        EXPECT_NE(details.find(" global_access=scalar "), std::string::npos) << details;
      }
      EXPECT_EQ(details.find("staged: ") != std::string::npos, !widened && (n % 8 != 0 || k % 8 != 0)) << details;
      if (compute_capability == 90) {
        // The tile the dispatch prices lowest for this device: 128 x 256, or a smaller one
        // where the larger tiles would leave most SMs idle or pad C's columns.
        GemmDevice facts;
        facts.sm_count = sm_count;
        const GemmPlan plan = plan_gemm(dtype, m, n, k, facts);
        EXPECT_EQ(plan.kernel == GemmKernel::simt, widened) << details;
        const int block_m = static_cast<int>(plan.tile.m), block_n = static_cast<int>(plan.tile.n);
        if (widened) {
          ++widened_cases;
        } else {
          tiles.insert({block_m, block_n});
          padded_cases += plan.stage_a || plan.stage_b;
          EXPECT_NE(details.find("kernel=wgmma_gemm (tensor cores, wgmma m64n" + std::to_string(block_n) +
                                 "k16, f32 accumulation) block_tile=" + std::to_string(block_m) + "x" +
                                 std::to_string(block_n) + "x64 stages=4 cluster=" + (m > block_m ? "2x1" : "1x1")),
                    std::string::npos)
              << details;
        }
      } else if ((compute_capability == 80 || compute_capability == 100) && !widened) {
        EXPECT_NE(details.find("kernel=mma_gemm (tensor cores, mma.sync m16n8k16, f32 accumulation; wgmma_gemm needs "
                               "sm_90) block_tile=128x256x32 warp_tile=64x64 stages=4"),
                  std::string::npos)
            << details;
      }
      expect_verified_run(problem, *prepared, details);
    }
  }
  // On an H100-sized device the shapes reach a 256-wide and a 128-wide tile of each height.
  if (compute_capability == 90 && sm_count >= 100) {
    std::set<int> heights, widths;
    for (const auto& [block_m, block_n] : tiles) {
      heights.insert(block_m);
      widths.insert(block_n);
    }
    EXPECT_EQ(heights, (std::set<int>{64, 128}));
    EXPECT_EQ(widths, (std::set<int>{128, 256}));
    EXPECT_GT(widened_cases, 0);
    EXPECT_GT(padded_cases, 0);
  }
}

// The 16-bit SpMV on skewed rows: the automatic rule takes the merge path (2048-item tiles,
// f32 sums) and says why; forcing merge_path is accepted; forcing row_split gives the lanes
// with the long rows in segments. Each verified, and the same bits run after run.
TEST(GpuBackends, SixteenBitSpmvTakesTheMergePathOnSkewedRows) {
  Backend& backend = backend_named("cuda");
  SKIP_UNLESS_AVAILABLE(backend);
  for (DType dtype : {DType::f16, DType::bf16})
    for (SpmvPattern pattern : {SpmvPattern::powerlaw, SpmvPattern::longtail}) {
      SCOPED_TRACE(to_string(dtype) + " " + to_string(pattern));
      const Problem problem = make_problem(Op::spmv, dtype, spmv_shape(100000, 16, pattern), kSeed);
      for (SpmvKernelChoice choice : {SpmvKernelChoice::automatic, SpmvKernelChoice::merge_path}) {
        auto prepared = backend.prepare(problem, forcing(choice));
        const std::string details = prepared->details();
        EXPECT_EQ(details.rfind("kernel=csr_merge_path items_per_tile=2048 (256 threads x 8 rows+nonzeros)", 0), 0u)
            << details;
        EXPECT_NE(details.find("accumulate=f32"), std::string::npos) << details;
        EXPECT_NE(details.find(": skewed)"), std::string::npos) << details;
        EXPECT_EQ(details.find("no merge path"), std::string::npos) << details;
        EXPECT_EQ(details.find("(forced by --spmv-kernel)") != std::string::npos,
                  choice == SpmvKernelChoice::merge_path)
            << details;
        expect_verified_run(problem, *prepared, details);
        expect_same_bits_on_rerun(*prepared, prepared->result(), 2, details);
      }
      auto split = backend.prepare(problem, forcing(SpmvKernelChoice::row_split));
      const std::string details = split->details();
      EXPECT_EQ(details.rfind("kernel=csr_vector threads_per_row=", 0), 0u) << details;
      EXPECT_NE(details.find(" loads=scalar long_rows="), std::string::npos) << details;
      EXPECT_EQ(details.find("long_rows=0 "), std::string::npos) << details;
      expect_verified_run(problem, *split, details);
    }
}

// Each y entry of the 16-bit merge path is rounded once, from its f32 sum: with small
// integer values (-2..4) and x (-4..5), every f32 partial sum here is exact (under 2^24),
// so y must be exactly the f64 sum rounded to the 16-bit type, for rows within a tile, rows
// across a few tiles and a row of 70000 across more than 32 (a long carry run, a block's
// tree), where rounding the partials first would be off (row sums of about half their
// length, up to some 35000, where f16 keeps steps of 2 to 32 and bf16 of 8 to 256).
TEST(GpuBackends, SixteenBitSpmvMergePathRoundsEachRowOnce) {
  Backend& backend = backend_named("cuda");
  SKIP_UNLESS_AVAILABLE(backend);
  constexpr std::int64_t kCols = 70000;
  std::vector<std::vector<std::int32_t>> rows;
  for (std::int32_t length : {3, 1500, 0, 2600, 5, 70000, 1, 0, 9000, 4100, 2}) {
    rows.emplace_back();
    for (std::int32_t col = 0; col < length; ++col) rows.back().push_back(col);
  }
  CsrMatrix matrix = matrix_from_rows(kCols, rows, 1);
  for (std::size_t j = 0; j < matrix.values.size(); ++j) matrix.values[j] = static_cast<double>(j % 7) - 2;
  std::vector<double> x;
  for (std::int64_t i = 0; i < kCols; ++i) x.push_back(static_cast<double>(i % 10) - 4);
  std::vector<double> exact(static_cast<std::size_t>(matrix.rows), 0.0);
  for (std::size_t row = 0; row < exact.size(); ++row)
    for (std::int32_t j = matrix.row_ptr[row]; j < matrix.row_ptr[row + 1]; ++j)
      exact[row] += matrix.values[static_cast<std::size_t>(j)] *
                    x[static_cast<std::size_t>(matrix.col_idx[static_cast<std::size_t>(j)])];
  for (DType dtype : {DType::f16, DType::bf16}) {
    SCOPED_TRACE(to_string(dtype));
    Problem problem = spmv_problem(dtype, matrix);
    problem.x = converted_values(dtype, x);
    const HostArray expected = converted_values(dtype, exact);
    // The automatic rule takes the merge path here (skewed rows); the row split (its long
    // rows in segments) rounds once too, and must agree.
    for (SpmvKernelChoice choice : {SpmvKernelChoice::automatic, SpmvKernelChoice::row_split}) {
      auto prepared = backend.prepare(problem, forcing(choice));
      const std::string details = prepared->details();
      EXPECT_EQ(details.rfind("kernel=csr_merge_path", 0) == 0, choice == SpmvKernelChoice::automatic) << details;
      if (choice == SpmvKernelChoice::automatic) {
        EXPECT_EQ(details.find("carry_runs=0 "), std::string::npos) << details;
        EXPECT_EQ(details.find("(0 over 32 tiles"), std::string::npos) << details;
      }
      prepared->run();
      prepared->synchronize();
      EXPECT_TRUE(same_bits(expected, prepared->result())) << details;
      expect_same_bits_on_rerun(*prepared, expected, 1, details);
    }
  }
}

// What each GPU backend runs in f16 and bf16, and the reason where it does not: a static
// property, checked without a device.
TEST(GpuBackends, SixteenBitSupportMatrix) {
  for (DType dtype : {DType::f16, DType::bf16}) {
    SCOPED_TRACE(to_string(dtype));
    for (Op op : all_ops()) EXPECT_TRUE(backend_named("cuda").supports(op, dtype).supported) << to_string(op);
    for (Op op : {Op::sin, Op::sqrt, Op::sum}) EXPECT_TRUE(backend_named("cub").supports(op, dtype).supported);
    EXPECT_TRUE(backend_named("cublas").supports(Op::matmul, dtype).supported);
    EXPECT_TRUE(backend_named("cusparse").supports(Op::spmv, dtype).supported);
    const Support spmv = backend_named("cub").supports(Op::spmv, dtype);
    EXPECT_FALSE(spmv.supported);
    EXPECT_NE(spmv.reason.find("use cusparse"), std::string::npos) << spmv.reason;
  }
}

// The 16-bit sums are stored in f32, their accumulation type, on every backend that runs them.
TEST(GpuBackends, SixteenBitSumsAreStoredInF32) {
  for (const char* name : {"cuda", "cub"}) {
    Backend& backend = backend_named(name);
    SKIP_UNLESS_AVAILABLE(backend);
    for (DType dtype : {DType::f16, DType::bf16}) {
      const Problem problem = make_problem(Op::sum, dtype, elementwise_shape(1000003), kSeed);
      auto prepared = backend.prepare(problem, BackendSettings{});
      prepared->run();
      const HostArray result = prepared->result();
      EXPECT_EQ(result.dtype(), DType::f32) << name;
      // The exact sum of a million uniform[0,1) values is far above f16's largest finite (65504).
      EXPECT_GT(result.at(0), 4.0e5) << name;
      EXPECT_TRUE(verify(problem, result).passed) << name << " " << to_string(dtype);
    }
  }
}

// A product whose 200000 x 200000 output (149 GiB in f32) no current GPU holds, from
// inputs of a few hundred KiB: prepare must fail with a message that says what did not
// fit, and the device must stay usable.
TEST(GpuBackends, OutOfDeviceMemoryFailsWithAClearMessage) {
  Backend& backend = backend_named("cuda");
  SKIP_UNLESS_AVAILABLE(backend);
  Problem huge;
  huge.op = Op::matmul;
  huge.dtype = DType::f32;
  huge.seed = kSeed;
  huge.shape = matmul_shape(200000, 200000, 1);
  huge.a = HostArray(DType::f32, 200000);
  huge.b = HostArray(DType::f32, 200000);
  try {
    backend.prepare(huge, BackendSettings{});
    FAIL() << "prepare of a 149 GiB output succeeded";
  } catch (const std::runtime_error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("out of device memory"), std::string::npos) << message;
    EXPECT_NE(message.find("GiB"), std::string::npos) << message;
  }
  const Problem small = make_problem(Op::sum, DType::f32, elementwise_shape(1000), kSeed);
  auto prepared = backend.prepare(small, BackendSettings{});
  prepared->run();
  EXPECT_TRUE(verify(small, prepared->result()).passed);
}

TEST(GpuBackends, InvalidDeviceOrdinalFailsWithAClearMessage) {
  SKIP_UNLESS_AVAILABLE(backend_named("cuda"));
  const Problem problem = make_problem(Op::sin, DType::f32, elementwise_shape(31), kSeed);
  for (const std::string name : {"cuda", "cub"})
    for (int ordinal : {-1, 4096}) {
      BackendSettings settings;
      settings.device = ordinal;
      try {
        backend_named(name).prepare(problem, settings);
        FAIL() << name << " accepted device " << ordinal;
      } catch (const std::runtime_error& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("invalid CUDA device ordinal " + std::to_string(ordinal)), std::string::npos) << message;
      }
    }
}

}  // namespace
}  // namespace gpb

#else  // built without the CUDA toolkit

TEST(GpuBackends, RequireCuda) { GTEST_SKIP() << "built without CUDA: the GPU backends are not compiled in"; }

#endif
