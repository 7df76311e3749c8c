#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "model/csr.hpp"
#include "model/host_array.hpp"
#include "model/op_table.hpp"

namespace gpb {
namespace {

TEST(OpTable, ElementwiseBytesReadInputAndWriteOutput) {
  const Shape shape = elementwise_shape(1000);
  for (Op op : {Op::sin, Op::sqrt}) {
    EXPECT_DOUBLE_EQ(op_bytes(op, shape, DType::f32), 8000);   // 1000 reads + 1000 writes of 4 bytes
    EXPECT_DOUBLE_EQ(op_bytes(op, shape, DType::f64), 16000);  // of 8 bytes
    EXPECT_DOUBLE_EQ(op_flops(op, shape), 1000);
    EXPECT_EQ(op_output_size(op, shape), 1000);
  }
}

TEST(OpTable, SumReadsInputAndWritesOneValue) {
  const Shape shape = elementwise_shape(1000);
  EXPECT_DOUBLE_EQ(op_bytes(Op::sum, shape, DType::f32), 4004);
  EXPECT_DOUBLE_EQ(op_bytes(Op::sum, shape, DType::f64), 8008);
  // The 16-bit sums store their result in f32, their accumulation type.
  EXPECT_DOUBLE_EQ(op_bytes(Op::sum, shape, DType::f16), 2004);
  EXPECT_DOUBLE_EQ(op_bytes(Op::sum, shape, DType::bf16), 2004);
  EXPECT_DOUBLE_EQ(op_flops(Op::sum, shape), 1000);
  EXPECT_EQ(op_output_size(Op::sum, shape), 1);
}

TEST(OpTable, OnlySumStoresItsResultInTheAccumulationType) {
  for (DType dtype : all_dtypes()) {
    EXPECT_EQ(op_output_dtype(Op::sum, dtype), dtype_info(dtype).accumulation) << to_string(dtype);
    for (Op op : {Op::sin, Op::sqrt, Op::matmul, Op::spmv}) EXPECT_EQ(op_output_dtype(op, dtype), dtype);
  }
  EXPECT_EQ(op_output_dtype(Op::sum, DType::f16), DType::f32);
  EXPECT_EQ(op_output_dtype(Op::sum, DType::f64), DType::f64);
}

TEST(OpTable, MatmulBytesAreThreeMatricesAndFlopsTwoMnk) {
  const Shape shape = matmul_shape(2, 3, 4);  // C 2x3 = A 2x4 * B 4x3
  EXPECT_DOUBLE_EQ(op_bytes(Op::matmul, shape, DType::f32), (8 + 12 + 6) * 4);
  EXPECT_DOUBLE_EQ(op_bytes(Op::matmul, shape, DType::f64), (8 + 12 + 6) * 8);
  EXPECT_DOUBLE_EQ(op_flops(Op::matmul, shape), 2 * 2 * 3 * 4);
  EXPECT_EQ(op_output_size(Op::matmul, shape), 6);
}

TEST(OpTable, MatmulIsMemoryBoundOnMatrixVectorShapes) {
  EXPECT_EQ(op_bound(Op::matmul, matmul_shape(4096, 4096, 4096)), Bound::compute);
  EXPECT_EQ(op_bound(Op::matmul, matmul_shape(17, 17, 1 << 20)), Bound::compute);
  for (const Shape& shape : {matmul_shape(1, 8192, 8192), matmul_shape(8192, 1, 8192), matmul_shape(16, 17, 17),
                             matmul_shape(17, 16, 17), matmul_shape(1, 1, 1)}) {
    EXPECT_TRUE(matmul_is_matrix_vector(shape)) << shape.label(Op::matmul);
    EXPECT_EQ(op_bound(Op::matmul, shape), Bound::memory) << shape.label(Op::matmul);
  }
  // The other ops keep their one bound whatever the shape.
  EXPECT_EQ(op_bound(Op::sum, elementwise_shape(1)), Bound::memory);
  EXPECT_EQ(op_bound(Op::spmv, spmv_shape(16, 1, SpmvPattern::random)), Bound::memory);
}

TEST(OpTable, MatmulCountsDoNotOverflowForLargeShapes) {
  const Shape shape = matmul_shape(1 << 20, 1 << 20, 1 << 20);
  EXPECT_DOUBLE_EQ(op_flops(Op::matmul, shape), 2.0 * 1024 * 1024 * 1024 * 1024 * 1024 * 1024);
}

TEST(OpTable, SpmvFollowsTheCsrByteModel) {
  Shape shape = spmv_shape(10, 3, SpmvPattern::random);
  shape.nnz = 30;
  // f32: values + column indices 30*(4+4) = 240, row pointers 11*4 = 44, x gathers 30*4 = 120, y 10*4 = 40.
  EXPECT_DOUBLE_EQ(op_bytes(Op::spmv, shape, DType::f32), 240 + 44 + 120 + 40);
  // f64: 30*(8+4) = 360, 44, 30*8 = 240, 10*8 = 80.
  EXPECT_DOUBLE_EQ(op_bytes(Op::spmv, shape, DType::f64), 360 + 44 + 240 + 80);
  EXPECT_DOUBLE_EQ(op_flops(Op::spmv, shape), 60);
  EXPECT_EQ(op_output_size(Op::spmv, shape), 10);
}

TEST(OpTable, EntriesSitAtTheirEnumerators) {
  const std::vector<Op> builtin{Op::sin, Op::sqrt, Op::sum, Op::matmul, Op::spmv};
  EXPECT_EQ(all_ops(), builtin);  // no test registers ops in this executable
  EXPECT_EQ(to_string(Op::sin), "sin");
  EXPECT_EQ(to_string(Op::sqrt), "sqrt");
  EXPECT_EQ(to_string(Op::sum), "sum");
  EXPECT_EQ(to_string(Op::matmul), "matmul");
  EXPECT_EQ(to_string(Op::spmv), "spmv");
  for (Op op : all_ops()) {
    EXPECT_EQ(parse_op(to_string(op)), op);
    EXPECT_TRUE(is_builtin(op));
  }
}

TEST(OpTable, EntriesDescribeEveryOp) {
  for (Op op : all_ops()) {
    const OpDef& def = op_def(op);
    EXPECT_FALSE(def.description.empty()) << def.name;
    EXPECT_FALSE(def.input_distribution.empty()) << def.name;
    EXPECT_FALSE(def.error_scale.empty()) << def.name;
    EXPECT_EQ(def.bound, op == Op::matmul ? Bound::compute : Bound::memory) << def.name;
    EXPECT_EQ(def.shows_bandwidth, op != Op::matmul) << def.name;
    EXPECT_EQ(def.shows_flop_rate, op == Op::matmul || op == Op::spmv) << def.name;
    EXPECT_EQ(def.accepts_tf32, op == Op::matmul) << def.name;
  }
  EXPECT_EQ(op_def(Op::sin).input_distribution, "x uniform[-pi,pi)");
  EXPECT_EQ(shape_kind(Op::sum), ShapeKind::elements);
  EXPECT_EQ(shape_kind(Op::matmul), ShapeKind::dense_matrix);
  EXPECT_EQ(shape_kind(Op::spmv), ShapeKind::sparse_matrix);
  EXPECT_EQ(shape_parameters(ShapeKind::dense_matrix), "m x n x k");
  EXPECT_EQ(to_string(Bound::memory), "memory");
  EXPECT_EQ(to_string(Bound::compute), "compute");
}

// Records of functions measured from Python name callable_op(): every command reads them
// (parse_recorded_op), no command runs it (all_ops, parse_op and is_builtin leave it out).
TEST(OpTable, CallableIsRecordedButNotRun) {
  const Op callable = callable_op();
  EXPECT_EQ(to_string(callable), "callable");
  EXPECT_TRUE(op_def(callable).recorded_only);
  EXPECT_FALSE(is_builtin(callable));
  const std::vector<Op> ops = all_ops();
  EXPECT_EQ(std::count(ops.begin(), ops.end(), callable), 0);
  const std::vector<Op> recorded = recorded_ops();
  EXPECT_EQ(std::count(recorded.begin(), recorded.end(), callable), 1);
  EXPECT_EQ(recorded.size(), ops.size() + 1);
  EXPECT_EQ(parse_recorded_op("callable"), callable);
  EXPECT_EQ(parse_recorded_op("matmul"), Op::matmul);
  try {
    parse_op("callable");
    ADD_FAILURE() << "parse_op accepted callable";
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("gpubench.benchmark"), std::string::npos) << message;
    EXPECT_NE(message.find("sin, sqrt, sum, matmul, spmv"), std::string::npos) << message;
  }
  try {
    parse_op("summ");
    ADD_FAILURE() << "parse_op accepted summ";
  } catch (const UsageError& error) {
    EXPECT_EQ(std::string(error.what()).find("callable"), std::string::npos) << error.what();
  }
  const OpDef& def = op_def(callable);
  EXPECT_FALSE(def.shows_bandwidth);
  EXPECT_FALSE(def.shows_flop_rate);
  EXPECT_EQ(def.flops(Shape{}), 0.0);
}

TEST(OpTable, UnknownOpValuesAreAProgrammingError) {
  EXPECT_THROW(op_def(static_cast<Op>(1000)), std::logic_error);
  EXPECT_THROW(parse_op("negate"), UsageError);
}

TEST(DTypeTable, EntriesHoldSizeRoundoffAndAccumulation) {
  EXPECT_EQ(all_dtypes(), (std::vector<DType>{DType::f32, DType::f64, DType::f16, DType::bf16}));
  EXPECT_EQ(dtype_size(DType::f32), 4u);
  EXPECT_EQ(dtype_size(DType::f64), 8u);
  EXPECT_EQ(dtype_size(DType::f16), 2u);
  EXPECT_EQ(dtype_size(DType::bf16), 2u);
  // u = 2^-p for p significand bits: 24, 53, 11 (binary16) and 8 (bfloat16).
  EXPECT_EQ(unit_roundoff(DType::f32), std::ldexp(1.0, -24));
  EXPECT_EQ(unit_roundoff(DType::f64), std::ldexp(1.0, -53));
  EXPECT_EQ(unit_roundoff(DType::f16), std::ldexp(1.0, -11));
  EXPECT_EQ(unit_roundoff(DType::bf16), std::ldexp(1.0, -8));
  EXPECT_EQ(dtype_info(DType::f32).accumulation, DType::f32);
  EXPECT_EQ(dtype_info(DType::f64).accumulation, DType::f64);
  EXPECT_EQ(dtype_info(DType::f16).accumulation, DType::f32);
  EXPECT_EQ(dtype_info(DType::bf16).accumulation, DType::f32);
  EXPECT_TRUE(dtype_info(DType::f32).tf32_eligible);
  EXPECT_FALSE(dtype_info(DType::f64).tf32_eligible);
  EXPECT_FALSE(dtype_info(DType::f16).tf32_eligible);
  EXPECT_FALSE(dtype_info(DType::bf16).tf32_eligible);
  for (DType dtype : all_dtypes()) EXPECT_EQ(parse_dtype(to_string(dtype)), dtype);
  try {
    parse_dtype("f8");
    ADD_FAILURE() << "f8 parsed";
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "unknown dtype 'f8' (expected one of: f32, f64, f16, bf16)");
  }
}

TEST(DTypeTable, HostArraysFollowTheTable) {
  for (DType dtype : all_dtypes()) {
    const HostArray array(dtype, 3);
    EXPECT_EQ(array.dtype(), dtype);
    EXPECT_EQ(array.bytes(), 3 * dtype_size(dtype));
    EXPECT_EQ(dispatch_dtype(dtype, [](auto tag) { return sizeof(tag); }), dtype_size(dtype));
  }
  EXPECT_EQ(HostArray(std::vector<double>{1, 2}).dtype(), DType::f64);
  EXPECT_EQ(HostArray().dtype(), DType::f32);
}

}  // namespace
}  // namespace gpb
