// Core vocabulary shared by every module: ops, dtypes, shapes, timing modes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/errors.hpp"
#include "model/dtype_table.hpp"

namespace gpb {

// The built-in ops. Op is open: the op table (op_table.hpp) holds an entry for each, and
// register_op hands out further values for ops defined elsewhere (tests). The table's entry
// after the enumerators is callable_op() (op_table.hpp), the op of records of functions
// measured from Python, which the program reads and does not run.
enum class Op : int { sin, sqrt, sum, matmul, spmv };
// What a case's shape holds (see Shape).
enum class ShapeKind { elements, dense_matrix, sparse_matrix };
// kernel: the op's launches on its stream; e2e: upload + op + download; graph: a batch of the
// op's launches captured once in a CUDA graph and replayed (GPU cases only).
enum class TimingMode { kernel, e2e, graph };
enum class L2Mode { flush, warm };
// The value distribution a case's inputs are drawn from (--data). uniform is each op's own
// range; the op table says what the others mean for each op (op_table.cpp).
enum class InputData { uniform, normal, zeros, ones };
// Generated matrix classes (csr.hpp describes each) and `file` for a Matrix Market file.
// The values key generated inputs (problem.cpp's input_key): new classes go at the end.
enum class SpmvPattern { random, banded, powerlaw, file, skew, short_rows, block_diagonal, wide, tall, longtail, few_rows, dense };
// Which SpMV kernel the cuda backend runs: chosen from the matrix's row lengths ("auto"),
// or forced (--spmv-kernel) to split by rows or along the merge path of rows and nonzeros.
enum class SpmvKernelChoice { automatic, row_split, merge_path };
enum class DeviceKind { cpu, gpu };
// What bounds an op: memory bandwidth (judged in GB/s) or arithmetic (GFLOP/s).
enum class Bound { memory, compute };

// An op's name and shape kind are its op table entry's: all_ops, shape_kind and
// to_string(Op) are defined with the table (op_table.cpp), which builds on this vocabulary.
// The ops the program runs: built-in ops in enumerator order, then registered ones.
std::vector<Op> all_ops();
// Every op a record may name: all_ops and the recorded-only ones (callable_op()).
std::vector<Op> recorded_ops();
const std::vector<DType>& all_dtypes();
ShapeKind shape_kind(Op op);

std::string to_string(Op op);
std::string to_string(DType dtype);
std::string to_string(TimingMode mode);
std::string to_string(L2Mode mode);
std::string to_string(InputData data);  // "uniform", "normal", "zeros", "ones"
std::string to_string(SpmvPattern pattern);
std::string to_string(SpmvKernelChoice choice);  // "auto", "row_split", "merge_path"
std::string to_string(DeviceKind kind);
std::string to_string(Bound bound);  // "memory", "compute"

// Parsers throw UsageError naming the bad value and the accepted ones.
Op parse_op(std::string_view text);  // an op the program runs
Op parse_recorded_op(std::string_view text);  // an op a record may name
DType parse_dtype(std::string_view text);
TimingMode parse_timing_mode(std::string_view text);
L2Mode parse_l2_mode(std::string_view text);
InputData parse_input_data(std::string_view text);
const std::vector<InputData>& all_input_data();
SpmvPattern parse_pattern(std::string_view text);
// The generated patterns, in the order `--pattern` lists them.
std::vector<SpmvPattern> generated_patterns();
SpmvKernelChoice parse_spmv_kernel(std::string_view text);

std::size_t dtype_size(DType dtype);
// Unit roundoff of the dtype's arithmetic (2^-24 for f32, 2^-53 for f64).
double unit_roundoff(DType dtype);

// The shape of one case. Which fields matter depends on the op's shape kind:
//   elements (sin, sqrt, sum): n elements
//   dense_matrix (matmul): C (m x n) = A (m x k) * B (k x n), all row-major
//   sparse_matrix (spmv): a rows x cols CSR matrix, generated (pattern, nnz_per_row; cols from
//         the pattern) or read from matrix_path; nnz is the actual count once the problem is
//         built (0 before).
struct Shape {
  std::int64_t n = 0;
  std::int64_t m = 0;
  std::int64_t k = 0;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz_per_row = 0;
  std::int64_t nnz = 0;
  SpmvPattern pattern = SpmvPattern::random;
  std::string matrix_path;

  // Stable, human-readable label used in case identities, tables and NVTX ranges:
  // "16777216", "4096x4096x4096" (m x n x k), "1048576x1048576/16/random" (rows x cols),
  // "file:name.mtx".
  std::string label(Op op) const;
};

// What a shape kind's sizes are called in help text: "n", "m x n x k", "rows, nnz/row, pattern | .mtx".
std::string shape_parameters(ShapeKind kind);

Shape elementwise_shape(std::int64_t n);
Shape matmul_shape(std::int64_t m, std::int64_t n, std::int64_t k);
Shape spmv_file_shape(const std::string& path);

}  // namespace gpb
