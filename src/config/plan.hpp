// Turning options and suites into the list of cases to run.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/result.hpp"
#include "model/statistics.hpp"
#include "model/types.hpp"

namespace gpb {

class Backend;
struct RunConfig;

// Bounds on what one run may ask for (docs/bounds.md): cases in a plan, and so sizes in all
// of its lists; nonzeros per row of a generated matrix (its indices are 32-bit).
inline constexpr std::size_t kMaxCases = 100000;
inline constexpr std::int64_t kMaxNnzPerRow = 2147483647;

// Parses "4096", "4K", "16M", "1G" (powers of two), lists "1M,16M" and ranges
// "1K..256M:x4" (geometric, factor after x) or "1K..8K:+1K" (arithmetic).
// Throws UsageError naming the bad token; rejects zero, negative and absurd (> 2^40) sizes.
std::int64_t parse_size(const std::string& text);
std::vector<std::int64_t> parse_size_list(const std::string& text);
// Appends the sizes of `text`; UsageError (naming `where`) beyond kMaxCases sizes in all.
void append_size_list(std::vector<std::int64_t>& sizes, const std::string& text, const std::string& where);
// "MxNxK" for matmul.
Shape parse_matmul_shape(const std::string& text);

// What the user asked for, from the command line and/or a suite file.
struct RunOptions {
  std::vector<Op> ops;
  std::vector<std::string> backends;      // empty: every available backend
  std::vector<DType> dtypes{DType::f32};
  std::vector<std::int64_t> sizes;        // sin/sqrt/sum n, matmul n (square), spmv rows
  std::vector<Shape> matmul_shapes;       // from --shape
  std::int64_t spmv_rows = 0;             // 0: use sizes or the op default
  std::int64_t nnz_per_row = 16;
  std::vector<SpmvPattern> patterns{SpmvPattern::random};  // generated matrices: one case each
  std::string matrix_path;
  SpmvKernelChoice spmv_kernel = SpmvKernelChoice::automatic;  // cuda spmv cases only
  std::vector<TimingMode> timings{TimingMode::kernel};
  L2Mode l2 = L2Mode::flush;
  bool tf32 = false;
  int threads = 0;
  std::uint64_t seed = 42;
};

// Whether any op of `options` reads its sizes: not matmul given shapes, not spmv given rows
// or a matrix file, nor spmv beside other ops with a single size (it keeps its default).
bool sizes_apply(const RunOptions& options);

struct Plan {
  std::vector<CaseSpec> cases;
  std::vector<std::string> notes;  // e.g. "backend cuda skipped: no CUDA device", once each
  // Regression thresholds from a suite (compare uses them): "*", op name or case id.
  std::map<std::string, double> thresholds;
};

// Default sizes when none are given: sin/sqrt/sum 16M elements, matmul 1024 (square),
// spmv 1M rows. With one op, --size is n for elementwise ops and sum, the square size for
// matmul and the row count for generated spmv (unless --rows is given); with several
// ops it is a footprint in elements (matmul n = sqrt(size), spmv rows = size/nnz_per_row).
// `runs`, when given, says whether a backend runs an op and dtype; the cases it refuses are
// left out.
std::vector<CaseSpec> expand_cases(const RunOptions& options, const std::vector<std::string>& backend_names,
                                   const std::function<bool(const std::string&, Op, DType)>& runs = {});

// The plan of a run: chooses the backends of every group and expands its cases. Backends
// named in a group or by --backend run every case (an unsupported one is a skipped row with
// its reason); with none named, every available backend that implements the op and dtype
// runs. Everything that can fail before measuring fails here, as a UsageError: more than
// kMaxCases cases (counted before they are built), a case asked for twice, nothing to run,
// an unknown or unavailable named backend, a generated matrix that cannot be built, inputs
// that do not fit in memory, an unreadable matrix file, an unknown --relative-to backend.
Plan build_plan(const RunConfig& config, std::vector<std::unique_ptr<Backend>>& backends);

// The backend of that name; UsageError listing the known ones.
Backend& find_backend(std::vector<std::unique_ptr<Backend>>& backends, const std::string& name);
// Whether a case of the plan runs on a backend of that kind.
bool plan_uses(const Plan& plan, std::vector<std::unique_ptr<Backend>>& backends, DeviceKind kind);

// Refuses plans whose host inputs cannot fit in this machine's memory (UsageError naming
// the case), before anything runs.
void check_plan_fits_memory(const Plan& plan);

}  // namespace gpb
