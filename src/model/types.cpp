#include "model/types.hpp"

#include <cctype>

#include "base/text.hpp"

namespace gpb {
namespace {

template <class E>
struct Names {
  E value;
  const char* name;
};

const Names<TimingMode> kTimings[] = {{TimingMode::kernel, "kernel"}, {TimingMode::e2e, "e2e"}, {TimingMode::graph, "graph"}};
const Names<L2Mode> kL2Modes[] = {{L2Mode::flush, "flush"}, {L2Mode::warm, "warm"}};
const Names<InputData> kInputData[] = {
    {InputData::uniform, "uniform"}, {InputData::normal, "normal"}, {InputData::zeros, "zeros"}, {InputData::ones, "ones"}};
const Names<SpmvPattern> kPatterns[] = {
    {SpmvPattern::random, "random"}, {SpmvPattern::banded, "banded"},     {SpmvPattern::powerlaw, "powerlaw"},
    {SpmvPattern::skew, "skew"},     {SpmvPattern::short_rows, "short"},  {SpmvPattern::block_diagonal, "blockdiag"},
    {SpmvPattern::wide, "wide"},     {SpmvPattern::tall, "tall"},         {SpmvPattern::longtail, "longtail"},
    {SpmvPattern::few_rows, "fewrows"}, {SpmvPattern::dense, "dense"},    {SpmvPattern::file, "file"}};
const Names<ShapeKind> kShapeParameters[] = {{ShapeKind::elements, "n"},
                                             {ShapeKind::dense_matrix, "m x n x k"},
                                             {ShapeKind::sparse_matrix, "rows, nnz/row, pattern | .mtx"}};
const Names<SpmvKernelChoice> kSpmvKernels[] = {
    {SpmvKernelChoice::automatic, "auto"}, {SpmvKernelChoice::row_split, "row_split"}, {SpmvKernelChoice::merge_path, "merge_path"}};

template <class E, class Table>
std::string name_of(const Table& table, E value) {
  for (const auto& entry : table)
    if (entry.value == value) return entry.name;
  return "?";
}

template <class Table>
auto parse_name(const Table& table, std::string_view text, const char* what, const WordMeanings& meanings = {}) {
  std::vector<std::string> accepted;
  for (const auto& entry : table) {
    if (text == entry.name) return entry.value;
    accepted.push_back(entry.name);
  }
  throw UsageError(unknown_word_message(what, std::string(text), accepted, {}, meanings));
}

}  // namespace

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> dtypes = [] {
    std::vector<DType> values;
    for (const DTypeInfo& info : kDTypeTable) values.push_back(info.dtype);
    return values;
  }();
  return dtypes;
}

std::string to_string(DType dtype) { return dtype_info(dtype).name; }
std::string to_string(TimingMode mode) { return name_of(kTimings, mode); }
std::string to_string(L2Mode mode) { return name_of(kL2Modes, mode); }
std::string to_string(InputData data) { return name_of(kInputData, data); }
std::string to_string(SpmvPattern pattern) { return name_of(kPatterns, pattern); }
std::string to_string(SpmvKernelChoice choice) { return name_of(kSpmvKernels, choice); }
std::string to_string(DeviceKind kind) { return kind == DeviceKind::cpu ? "cpu" : "gpu"; }
std::string to_string(Bound bound) { return bound == Bound::memory ? "memory" : "compute"; }

DType parse_dtype(std::string_view text) {
  std::vector<std::string> names, aliases;
  for (const DTypeInfo& info : kDTypeTable) {
    if (text == info.name) return info.dtype;
    names.push_back(info.name);
    for (auto& alias : split_list(info.aliases, ' ')) {
      if (text == alias) return info.dtype;
      aliases.push_back(std::move(alias));
    }
  }
  // Words that name no one dtype here: what each probably meant.
  std::string lowered(text);
  for (auto& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string list = " (expected one of: " + join_words(names, ", ") + ")";
  if (lowered == "float")
    throw UsageError("dtype 'float' is f32 in C and CUDA but f64 in Python: write f32 or f64" + list);
  if (lowered == "tf32" || lowered == "tensorfloat32")
    throw UsageError("dtype '" + std::string(text) + "': TF32 is how cuBLAS can compute an f32 matmul, not a stored "
                     "type: write --dtype f32 --tf32");
  if (lowered.rfind("int", 0) == 0 || lowered.rfind("uint", 0) == 0 || lowered.rfind("fp8", 0) == 0 ||
      lowered.rfind("e4m3", 0) == 0 || lowered.rfind("e5m2", 0) == 0 || lowered.rfind("float8", 0) == 0 ||
      lowered == "fp4" || lowered == "bool")
    throw UsageError("dtype '" + std::string(text) + "' is not measured: gpubench's dtypes are the floating-point "
                     "f32, f64, f16 and bf16");
  throw UsageError(unknown_word_message("dtype", std::string(text), names, aliases));
}
TimingMode parse_timing_mode(std::string_view text) { return parse_name(kTimings, text, "timing mode"); }
L2Mode parse_l2_mode(std::string_view text) {
  // The words for a cache's state rather than for what is done to it.
  static const WordMeanings kMeanings = {
      {"cold", "flush"}, {"flushed", "flush"}, {"evict", "flush"}, {"hot", "warm"}, {"cached", "warm"}};
  return parse_name(kL2Modes, text, "L2 mode", kMeanings);
}
InputData parse_input_data(std::string_view text) {
  // The names NumPy and PyTorch give their draws.
  static const WordMeanings kMeanings = {{"gauss", "normal"}, {"gaussian", "normal"}, {"randn", "normal"},
                                         {"rand", "uniform"}, {"random", "uniform"},   {"zero", "zeros"},
                                         {"one", "ones"}};
  return parse_name(kInputData, text, "input data", kMeanings);
}
const std::vector<InputData>& all_input_data() {
  static const std::vector<InputData> values = [] {
    std::vector<InputData> list;
    for (const auto& entry : kInputData) list.push_back(entry.value);
    return list;
  }();
  return values;
}
SpmvPattern parse_pattern(std::string_view text) {
  if (text == "file") throw UsageError("pattern 'file' is set by --matrix, not --pattern");
  return parse_name(kPatterns, text, "pattern");
}
std::vector<SpmvPattern> generated_patterns() {
  std::vector<SpmvPattern> patterns;
  for (const auto& entry : kPatterns)
    if (entry.value != SpmvPattern::file) patterns.push_back(entry.value);
  return patterns;
}
SpmvKernelChoice parse_spmv_kernel(std::string_view text) { return parse_name(kSpmvKernels, text, "SpMV kernel"); }

std::size_t dtype_size(DType dtype) { return dtype_info(dtype).size; }

double unit_roundoff(DType dtype) { return dtype_info(dtype).unit_roundoff; }

std::string Shape::label(Op op) const {
  switch (shape_kind(op)) {
    case ShapeKind::elements:
      return std::to_string(n);
    case ShapeKind::dense_matrix:
      return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    case ShapeKind::sparse_matrix:
      if (pattern == SpmvPattern::file) {
        const auto slash = matrix_path.find_last_of('/');
        return "file:" + (slash == std::string::npos ? matrix_path : matrix_path.substr(slash + 1));
      }
      return std::to_string(rows) + "x" + std::to_string(cols) + "/" + std::to_string(nnz_per_row) + "/" + to_string(pattern);
  }
  return "?";
}

std::string shape_parameters(ShapeKind kind) { return name_of(kShapeParameters, kind); }

Shape elementwise_shape(std::int64_t n) {
  Shape s;
  s.n = n;
  return s;
}

Shape matmul_shape(std::int64_t m, std::int64_t n, std::int64_t k) {
  Shape s;
  s.m = m;
  s.n = n;
  s.k = k;
  return s;
}

Shape spmv_file_shape(const std::string& path) {
  Shape s;
  s.pattern = SpmvPattern::file;
  s.matrix_path = path;
  return s;
}

}  // namespace gpb
