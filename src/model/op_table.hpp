// The op table: one entry per op, the one home of an op's rules -- what it computes, its
// shape kind, how many bytes it must move and how many flops it does (GB/s and GFLOP/s
// everywhere come from these), its output, how its inputs are built, its fp64 reference and
// tolerance, which rates mean something and what bounds it. Problems, verification, the
// roofline, the summary, the reports and the CLI's help read it from here; only backends'
// kernels name specific ops. A new op is an entry plus kernels (docs/DESIGN.md, "How to add
// an op"); register_op adds one at run time, which is how tests prove that.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/types.hpp"

namespace gpb {

struct Problem;

// What the roofline holds an op against: bandwidth (GB/s) or the flop rate (GFLOP/s).

// The fp64 reference of one checked output entry, and the scale its error is divided by.
struct Reference {
  double value = 0;
  double scale = 0;
};

// Unit roundoffs of the arithmetic a result came from (dtype_table.hpp): of the stored
// output and of the sums inside it. Both are the same for f32 and f64; f16 and bf16 store in
// 2^-11 and 2^-8 and sum in f32's 2^-24 (a sum stored in f32 takes 2^-24 for both); a
// coarser arithmetic (TF32 matmul: 2^-11) replaces both.
struct Rounding {
  double output = 0;
  double accumulation = 0;
};

struct OpDef {
  std::string name;                // "sin": the CLI, case ids, every report
  std::string description;         // "y = sin(x)"
  std::string input_distribution;  // for `gpubench list`; the builder records each problem's own
  ShapeKind shape_kind = ShapeKind::elements;
  Bound bound = Bound::memory;
  // Where some shapes of the op are bound otherwise (matmul's matrix-vector shapes move
  // every byte of the large operand for two flops each): their bound. Unset: `bound` for all.
  std::function<Bound(const Shape&)> shape_bound;
  // Which rates reports show: a matmul moves far more than its minimum byte count, so its
  // GB/s says nothing (except on the memory-bound shapes of shape_bound, where reports show
  // it); elementwise ops count one "flop" per element by convention, so a flop rate says
  // nothing about them.
  bool shows_bandwidth = true;
  bool shows_flop_rate = true;
  bool accepts_tf32 = false;  // --tf32 applies (to dtypes that are tf32_eligible)
  // y = f(x), entry by entry: backends run every elementwise op through one kernel with the
  // op's function (eigen's per-block loop, gpu_backend/elementwise_functions.cuh on the GPU),
  // and a backend without such a kernel (openblas) refuses them all alike.
  bool elementwise = false;
  // The output is stored in the dtype's accumulation type rather than the dtype: sum, whose
  // result outgrows f16 (largest 65504) at about 2^17 inputs of uniform[0,1).
  bool output_in_accumulation_type = false;
  // Records of the op come from elsewhere (callable_op(): functions measured from Python):
  // every command reads them, no command runs the op (all_ops and parse_op leave it out).
  bool recorded_only = false;

  // The fewest bytes the op must move through memory: every input read once, every output
  // written once. Sizes are counted in double: products like m*n*k overflow 64-bit integers
  // long before they stop being meaningful as rates.
  std::function<double(const Shape&, DType)> bytes;
  std::function<double(const Shape&)> flops;
  std::function<std::int64_t(const Shape&)> output_size;  // output entries
  // Fills the problem's inputs (and input_distribution) from its op, dtype, shape and seed,
  // deterministically; may complete the shape (spmv's nnz). Throws UsageError for shapes
  // that are empty or too large. problem.hpp has the helpers.
  std::function<void(Problem&)> build_inputs;
  // The fp64 references of the given output entries (sorted, distinct), from the typed
  // inputs the backends saw.
  std::function<std::vector<Reference>(const Problem&, const std::vector<std::int64_t>& entries)> references;
  // The bound on |y - ref| / scale for this problem.
  std::function<double(const Problem&, const Rounding&)> tolerance;
  std::string error_scale;  // how the error is normalised, for the report: "error / |ref|"
};

// Matrix-vector shapes of matmul: m or n at most kMatmulVectorMaxSide (a few rows of A times
// B, or A times a few columns of B). Their flops per byte (at most 2 m n / ((m + n) size))
// are far below any GPU's flops per byte of bandwidth, so they are memory-bound, rated
// against the copy bandwidth, and the cuda backend runs them on matrix-vector kernels.
inline constexpr std::int64_t kMatmulVectorMaxSide = 16;
bool matmul_is_matrix_vector(const Shape& shape);

// The op of a function measured from Python (gpubench.benchmark), "callable": its records
// have no rates (what a function moves is unknown), every command reads them, and the
// program runs no such case (recorded_only: all_ops and parse_op leave it out).
Op callable_op();

// Throws std::logic_error for a value that names no entry.
const OpDef& op_def(Op op);

// Adds an op defined outside the core (a test's) and returns its new value, which parse_op,
// all_ops and to_string then know. Throws std::invalid_argument when the name is empty or
// taken or a rule is missing.
Op register_op(OpDef def);

// The dtype of the op's output for inputs of `dtype` (see output_in_accumulation_type).
DType op_output_dtype(Op op, DType dtype);

// Whether the op is one of the Op enumerators rather than one register_op added: what a
// backend with a kernel for each of them answers to supports().
bool is_builtin(Op op);

// The entry's rules, for callers that hold an op and a shape.
Bound op_bound(Op op, const Shape& shape);
double op_bytes(Op op, const Shape& shape, DType dtype);
double op_flops(Op op, const Shape& shape);
std::int64_t op_output_size(Op op, const Shape& shape);

// The op's size as one number that lines up across ops (a sweep's footprint), by its shape
// kind: n for elements (sin, sqrt, sum), m*n for a dense matrix (matmul: C's entries), the
// nonzeros for a sparse one (spmv; rows * nnz_per_row while the actual count is unknown).
std::int64_t op_footprint(Op op, const Shape& shape);
// What that number counts, for axis titles: "elements (n)", "m\u00b7n (entries of C)", "nonzeros".
std::string op_footprint_name(Op op);
// The same count as a unit after a number: "elements", "entries of C", "nonzeros".
std::string op_footprint_unit(Op op);

}  // namespace gpb
