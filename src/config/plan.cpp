#include "config/plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "base/case_selection.hpp"
#include "base/input_file.hpp"
#include "base/system.hpp"
#include "base/text.hpp"
#include "config/run_config.hpp"
#include "measure/backend.hpp"
#include "measure/gpu_backend_list.hpp"
#include "model/csr.hpp"
#include "model/op_table.hpp"
#include "model/problem.hpp"

namespace gpb {
namespace {

// Default sizes: big enough to leave the launch-overhead regime on a GPU and small
// enough to run in a second or two on a laptop CPU.
constexpr std::int64_t kDefaultElements = std::int64_t{1} << 24;
constexpr std::int64_t kDefaultMatmul = 1024;
constexpr std::int64_t kDefaultSpmvRows = std::int64_t{1} << 20;

// --size means each op's natural size: n elements for sin, sqrt and sum, the square size
// n for matmul, the row count for spmv (spmv only when it is the sole op, so that
// "--op sin,spmv --size 256M" does not ask for a 256M-row matrix). A sweep -- several ops
// sharing a list of several sizes -- reads each size as a footprint in elements instead,
// so the ops scale together: matmul n = sqrt(size) (matrices of about `size` entries)
// and spmv rows = size / nnz_per_row (about `size` nonzeros). What applies is the op's shape kind.
std::vector<Shape> shapes_for(Op op, const RunOptions& options) {
  const bool footprint = options.ops.size() > 1 && options.sizes.size() > 1;
  const bool spmv_sized = options.ops.size() == 1 || footprint;
  std::vector<Shape> shapes;
  switch (shape_kind(op)) {
    case ShapeKind::elements:
      for (auto n : options.sizes.empty() ? std::vector<std::int64_t>{kDefaultElements} : options.sizes)
        shapes.push_back(elementwise_shape(n));
      break;
    case ShapeKind::dense_matrix:
      if (!options.matmul_shapes.empty()) return options.matmul_shapes;
      for (auto size : options.sizes.empty() ? std::vector<std::int64_t>{kDefaultMatmul} : options.sizes) {
        const auto n = footprint ? std::max<std::int64_t>(1, std::llround(std::sqrt(static_cast<double>(size)))) : size;
        shapes.push_back(matmul_shape(n, n, n));
      }
      break;
    case ShapeKind::sparse_matrix:
      if (!options.matrix_path.empty()) {
        shapes.push_back(spmv_file_shape(options.matrix_path));
      } else if (options.spmv_rows > 0) {
        for (SpmvPattern pattern : options.patterns)
          shapes.push_back(spmv_shape(options.spmv_rows, options.nnz_per_row, pattern));
      } else {
        const bool use_sizes = spmv_sized && !options.sizes.empty();
        for (auto size : use_sizes ? options.sizes : std::vector<std::int64_t>{kDefaultSpmvRows}) {
          const auto rows = footprint ? std::max<std::int64_t>(1, size / options.nnz_per_row) : size;
          for (SpmvPattern pattern : options.patterns) shapes.push_back(spmv_shape(rows, options.nnz_per_row, pattern));
        }
      }
      break;
  }
  return shapes;
}

// "16M", "1024": a default size as the size syntax writes it (suffixes from M up).
std::string size_text(std::int64_t size) {
  for (const auto& [shift, suffix] : {std::pair<int, const char*>{30, "G"}, {20, "M"}})
    if (size >= (std::int64_t{1} << shift) && size % (std::int64_t{1} << shift) == 0)
      return std::to_string(size >> shift) + suffix;
  return std::to_string(size);
}

void add_note(Plan& plan, const std::string& note) {
  if (std::find(plan.notes.begin(), plan.notes.end(), note) == plan.notes.end()) plan.notes.push_back(note);
}

// The backends that run a group: the named ones (an unavailable one is skipped with a note,
// or a usage error when --backend named it), else every available one (a note says once
// when the GPU backends are not).
std::vector<std::string> choose_backends(const RunOptions& options, std::vector<std::unique_ptr<Backend>>& backends,
                                         bool unavailable_is_error, Plan& plan) {
  std::vector<std::string> names;
  if (!options.backends.empty()) {
    for (const auto& name : options.backends) {
      const Backend& backend = find_backend(backends, name);
      const Availability availability = backend.availability();
      if (availability.available)
        names.push_back(name);
      else if (unavailable_is_error)
        throw UsageError("backend '" + name + "' is unavailable: " + availability.reason);
      else
        // The GPU backends share one reason (the device's): said once, not once per backend.
        add_note(plan, backend.kind() == DeviceKind::gpu ? "GPU backends unavailable: " + availability.reason
                                                         : "backend " + name + " skipped: " + availability.reason);
    }
    return names;
  }
  for (auto& backend : backends) {
    const Availability availability = backend->availability();
    if (availability.available)
      names.push_back(backend->name());
    else if (backend->kind() == DeviceKind::gpu)
      add_note(plan, "GPU backends unavailable: " + availability.reason);
  }
  return names;
}

// Whether a group's backend runs an op and dtype: a named one runs every case (an
// unsupported one becomes a skipped row with its reason), a chosen one only what it
// implements; with a suite, ops that --op does not list are left out.
std::function<bool(const std::string&, Op, DType)> runs_in(const RunOptions& options, const std::vector<Op>& only_ops,
                                                           std::vector<std::unique_ptr<Backend>>& backends) {
  const bool named = !options.backends.empty();
  if (named && only_ops.empty()) return {};
  return [&backends, &only_ops, named](const std::string& name, Op op, DType dtype) {
    if (!only_ops.empty() && std::find(only_ops.begin(), only_ops.end(), op) == only_ops.end()) return false;
    return named || find_backend(backends, name).supports(op, dtype).supported;
  };
}

template <class T>
std::map<T, double> multiplicities(const std::vector<T>& values) {
  std::map<T, double> counts;
  for (const T& value : values) ++counts[value];
  return counts;
}

// The cases expand_cases would make, counted without making them (in double: the lengths
// of the command line's lists multiply).
double count_cases(const RunOptions& options, const std::vector<std::string>& names,
                   const std::function<bool(const std::string&, Op, DType)>& runs) {
  double count = 0;
  for (const auto& [op, op_repeats] : multiplicities(options.ops)) {
    const auto shapes = static_cast<double>(shapes_for(op, options).size());
    for (const auto& [dtype, dtype_repeats] : multiplicities(options.dtypes)) {
      double backends = 0;
      for (const auto& name : names) backends += !runs || runs(name, op, dtype) ? 1 : 0;
      count += op_repeats * dtype_repeats * shapes * static_cast<double>(options.timings.size()) * backends;
    }
  }
  return count;
}

// Why the GPU backends cannot run here; empty when they can.
std::string gpu_unavailable_reason(std::vector<std::unique_ptr<Backend>>& backends) {
  for (auto& backend : backends)
    if (backend->kind() == DeviceKind::gpu) {
      const Availability availability = backend->availability();
      if (!availability.available) return availability.reason;
    }
  return "";
}

// Why a case of the plan would be skipped; empty when it can be measured.
std::string skip_reason(const CaseSpec& spec, std::vector<std::unique_ptr<Backend>>& backends) {
  Backend& backend = find_backend(backends, spec.backend);
  const Availability availability = backend.availability();
  if (!availability.available) return availability.reason;
  const Support support = backend.supports(spec.op, spec.dtype);
  if (!support.supported) return support.reason;
  return timing_support(backend, spec.timing).reason;
}

// The flags about GPUs apply or are refused: --require-gpu needs GPU cases that can run,
// --device and --devices-serial need GPU cases and GPUs to run them on.
void check_gpu_flags(const RunConfig& config, const Plan& plan, std::vector<std::unique_ptr<Backend>>& backends) {
  const bool gpu_cases = std::any_of(plan.cases.begin(), plan.cases.end(), [&](const CaseSpec& spec) {
    return find_backend(backends, spec.backend).kind() == DeviceKind::gpu && skip_reason(spec, backends).empty();
  });
  const std::string unavailable = gpu_unavailable_reason(backends);
  const RunSettings& settings = config.settings;
  if (settings.require_gpu) {
    if (!unavailable.empty()) throw UsageError("--require-gpu: the GPU backends are unavailable: " + unavailable);
    if (!gpu_cases) throw UsageError("--require-gpu: no case of this run runs on a GPU backend");
  }
  for (const auto& [given, flag] : {std::pair<bool, std::string>{!settings.device.empty(), "--device " + settings.device},
                                    {settings.devices_serial, "--devices-serial"}}) {
    if (!given) continue;
    if (!unavailable.empty()) throw UsageError(flag + " applies to GPUs, and there is none to run on: " + unavailable);
    if (!gpu_cases) throw UsageError(flag + " applies to GPU cases, and this run has none");
  }
  if (settings.devices_serial && config.devices.devices.size() < 2)
    throw UsageError("--devices-serial applies to several GPUs (--device all or a list), and this run uses one");
}

// A run measures something or is refused: a plan whose every case would be skipped is a
// usage error naming why, as a suite with nothing to run is.
void require_something_to_measure(const Plan& plan, std::vector<std::unique_ptr<Backend>>& backends) {
  std::vector<std::string> reasons;
  for (const auto& spec : plan.cases) {
    const std::string reason = skip_reason(spec, backends);
    if (reason.empty()) return;
    if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) reasons.push_back(reason);
  }
  std::string why;
  for (std::size_t i = 0; i < reasons.size() && i < 3; ++i) why += (i ? "; " : "") + reasons[i];
  if (reasons.size() > 3) why += "; and " + std::to_string(reasons.size() - 3) + " other reasons";
  throw UsageError("nothing to measure: every case would be skipped (" + why + ")");
}

// Each case runs once: compare matches cases by id and refuses a report that lists one twice.
void refuse_duplicates(const std::vector<CaseSpec>& cases) {
  std::set<std::string> ids;
  for (const auto& spec : cases)
    if (!ids.insert(spec.id()).second)
      throw UsageError("case " + spec.id() + " is asked for twice (by a repeated size, dtype, backend or suite group); "
                       "each case runs once");
}

// --case: the cases with the ids given, each of which must name one of the plan's, and the
// cases the patterns among them match (CaseSelection), each of which must match one.
void keep_named_cases(std::vector<CaseSpec>& cases, const std::vector<std::string>& ids) {
  if (ids.empty()) return;
  std::vector<std::string> planned;
  for (const CaseSpec& spec : cases) planned.push_back(spec.id());
  CaseSelection selection(ids, {planned.begin(), planned.end()});
  cases.erase(std::remove_if(cases.begin(), cases.end(), [&](const CaseSpec& spec) { return !selection.picks(spec.id()); }),
              cases.end());
  for (const std::string& id : selection.unmatched()) {
    if (selection.is_pattern(id))
      throw UsageError("--case " + id + " matches no case of this run (the other options select the cases --case picks "
                       "from; '*' matches any text, '?' one character)");
    const std::string nearest = nearest_word(id, planned);
    throw UsageError("--case " + id + " is not a case of this run (" +
                     (nearest.empty() ? std::string() : "did you mean " + nearest + "? ") +
                     "the other options select the cases --case picks from)");
  }
}

}  // namespace

std::string default_sizes_text() {
  std::string text;
  for (ShapeKind kind : {ShapeKind::elements, ShapeKind::dense_matrix, ShapeKind::sparse_matrix}) {
    std::vector<std::string> ops;
    for (Op op : all_ops())
      if (shape_kind(op) == kind) ops.push_back(to_string(op));
    if (ops.empty()) continue;
    const std::string size = kind == ShapeKind::elements       ? size_text(kDefaultElements) + " elements"
                             : kind == ShapeKind::dense_matrix ? size_text(kDefaultMatmul) + " (square)"
                                                               : size_text(kDefaultSpmvRows) + " rows";
    text += (text.empty() ? "" : ", ") + join_words(ops) + " " + size;
  }
  return text;
}

Plan build_plan(const RunConfig& config, std::vector<std::unique_ptr<Backend>>& backends) {
  struct Group {
    RunOptions options;
    std::vector<std::string> backends;
    std::optional<double> threshold;
  };
  Plan plan;
  std::vector<Group> groups;
  double count = 0;
  for (const auto& group : config.groups) {
    RunOptions options = group.options;
    options.seed = config.settings.seed;
    options.l2 = config.settings.l2;
    options.data = config.settings.data;
    options.threads = static_cast<int>(config.settings.threads);
    auto names = choose_backends(options, backends, config.backends_named, plan);
    count += count_cases(options, names, runs_in(options, config.only_ops, backends));
    if (count > static_cast<double>(kMaxCases)) {
      char counted[32];
      std::snprintf(counted, sizeof counted, "%.0f", count);
      throw UsageError("the plan has " + std::string(counted) + (&group == &config.groups.back() ? "" : " or more") +
                       " cases, more than the " + std::to_string(kMaxCases) + " one run may hold (docs/bounds.md)");
    }
    groups.push_back({std::move(options), std::move(names), group.threshold});
  }
  plan.thresholds = config.thresholds;
  for (const auto& group : groups) {
    const std::size_t first = plan.cases.size();
    for (auto& spec : expand_cases(group.options, group.backends, runs_in(group.options, config.only_ops, backends)))
      plan.cases.push_back(std::move(spec));
    if (group.threshold)
      for (std::size_t i = first; i < plan.cases.size(); ++i) plan.thresholds[plan.cases[i].id()] = *group.threshold;
  }
  if (config.compare.threshold) plan.thresholds["*"] = *config.compare.threshold;
  if (config.relative_to) find_backend(backends, *config.relative_to);
  if (plan.cases.empty()) throw UsageError("nothing to measure: no available backend implements the requested ops and dtypes");
  refuse_duplicates(plan.cases);
  keep_named_cases(plan.cases, config.only_cases);
  check_gpu_flags(config, plan, backends);
  require_something_to_measure(plan, backends);
  // Generated matrices are checked and matrix files read (and cached) now, so that a bad
  // one is a usage error up front rather than a failure halfway through a suite.
  for (const auto& spec : plan.cases) {
    if (shape_kind(spec.op) != ShapeKind::sparse_matrix || spec.shape.pattern == SpmvPattern::file) continue;
    try {
      validate_generated_size(spec.shape.rows, spec.shape.nnz_per_row, spec.shape.pattern);
    } catch (const UsageError& error) {
      throw UsageError("case " + spec.id() + ": " + error.what());
    }
  }
  check_plan_fits_memory(plan);
  for (const auto& spec : plan.cases)
    if (shape_kind(spec.op) == ShapeKind::sparse_matrix && spec.shape.pattern == SpmvPattern::file)
      load_matrix_cached(spec.shape.matrix_path);
  return plan;
}

std::vector<CaseSpec> expand_cases(const RunOptions& options, const std::vector<std::string>& backend_names,
                                   const std::function<bool(const std::string&, Op, DType)>& runs) {
  std::vector<CaseSpec> cases;
  // Cases that share a problem (op, dtype, shape) are adjacent so the runner builds it once.
  for (Op op : options.ops)
    for (DType dtype : options.dtypes)
      for (const Shape& shape : shapes_for(op, options))
        for (TimingMode timing : options.timings)
          for (const auto& backend : backend_names) {
            if (runs && !runs(backend, op, dtype)) continue;
            CaseSpec spec;
            spec.op = op;
            spec.backend = backend;
            spec.dtype = dtype;
            spec.shape = shape;
            spec.timing = timing;
            if (has_l2_mode(backend)) spec.l2 = options.l2;
            // Only where the backend has a TF32 path: a case without one runs plain FP32 and
            // keeps its f32 id and the FP32 peak.
            spec.tf32 = options.tf32 && op_def(op).accepts_tf32 && dtype_info(dtype).tf32_eligible && takes_tf32(backend);
            // Only where the backend runs the forced kernel: a cuSPARSE case measures the
            // same thing with or without the option, so its id does not change.
            if (shape_kind(op) == ShapeKind::sparse_matrix && takes_spmv_kernel(backend)) spec.spmv_kernel = options.spmv_kernel;
            spec.threads = options.threads;
            spec.seed = options.seed;
            spec.data = options.data;
            cases.push_back(std::move(spec));
          }
  return cases;
}

void check_plan_fits_memory(const Plan& plan) {
  const double memory = allocatable_memory_bytes();
  if (memory <= 0) return;
  for (const auto& spec : plan.cases) {
    Shape shape = spec.shape;
    if (shape_kind(spec.op) == ShapeKind::sparse_matrix && shape.pattern == SpmvPattern::file) continue;  // sized by the file
    if (shape_kind(spec.op) == ShapeKind::sparse_matrix) {
      // The generator keeps fp64 values beside the typed copy. Counted in double: the
      // product of a declared row count and nonzeros per row may not fit 64 bits.
      const double nnz = static_cast<double>(shape.rows) * static_cast<double>(shape.nnz_per_row) * 1.5;
      shape.nnz = nnz < 0x1p62 ? static_cast<std::int64_t>(nnz) : std::int64_t{1} << 62;
    }
    // Inputs and output once, plus a backend's copy of the output: op_bytes counts the
    // traffic, which is at least the footprint.
    double needed = op_bytes(spec.op, shape, spec.dtype) * 1.5;
    // x is counted per nonzero; a wide matrix's x is longer than that.
    if (shape_kind(spec.op) == ShapeKind::sparse_matrix)
      needed += static_cast<double>(shape.cols) * static_cast<double>(dtype_size(spec.dtype));
    if (needed > memory * 0.8)
      throw UsageError("case " + spec.id() + " needs about " +
                       describe_bytes(needed < 0x1p63 ? static_cast<std::uint64_t>(needed) : std::uint64_t{1} << 63) +
                       " of host memory, more than 80% of the " + describe_bytes(static_cast<std::uint64_t>(memory)) +
                       " this process may allocate (the machine's memory, or ulimit -v)");
  }
}

}  // namespace gpb
