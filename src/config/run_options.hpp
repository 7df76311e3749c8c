// What the user asked for, from the command line and/or a suite file: the options of a
// group of cases, and the sizes, shapes and bounds they are given in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/types.hpp"

namespace gpb {

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
// "MxNxK" for matmul (an upper-case X as well).
Shape parse_matmul_shape(const std::string& text);
// The sides of a shape written with any separator (4096*4096*4096, 4096 4096 4096,
// 4096×4096×4096, 4096,4096,4096), or none if a part is not a size.
std::vector<std::string> shape_sides(std::string text);
// What a malformed shape probably was, as "did you mean '4096x4096x4096'? ", or "".
std::string meant_shape(const std::string& text);

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
  InputData data = InputData::uniform;
  bool tf32 = false;
  int threads = 0;
  std::uint64_t seed = 42;
};

// Whether any op of `options` reads its sizes: not matmul given shapes, not spmv given rows
// or a matrix file, nor spmv beside other ops with a single size (it keeps its default).
bool sizes_apply(const RunOptions& options);

}  // namespace gpb
