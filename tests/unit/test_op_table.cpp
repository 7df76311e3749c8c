#include <gtest/gtest.h>

#include "op_table.hpp"

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
  EXPECT_DOUBLE_EQ(op_flops(Op::sum, shape), 1000);
  EXPECT_EQ(op_output_size(Op::sum, shape), 1);
}

TEST(OpTable, MatmulBytesAreThreeMatricesAndFlopsTwoMnk) {
  const Shape shape = matmul_shape(2, 3, 4);  // C 2x3 = A 2x4 * B 4x3
  EXPECT_DOUBLE_EQ(op_bytes(Op::matmul, shape, DType::f32), (8 + 12 + 6) * 4);
  EXPECT_DOUBLE_EQ(op_bytes(Op::matmul, shape, DType::f64), (8 + 12 + 6) * 8);
  EXPECT_DOUBLE_EQ(op_flops(Op::matmul, shape), 2 * 2 * 3 * 4);
  EXPECT_EQ(op_output_size(Op::matmul, shape), 6);
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

TEST(OpTable, InfoDescribesEveryOp) {
  for (Op op : all_ops()) {
    const OpInfo& info = op_info(op);
    EXPECT_EQ(info.op, op);
    EXPECT_FALSE(info.description.empty());
    EXPECT_FALSE(info.shape_parameters.empty());
    EXPECT_FALSE(info.input_distribution.empty());
    EXPECT_EQ(info.memory_bound, op != Op::matmul) << to_string(op);
  }
  EXPECT_EQ(op_info(Op::sin).input_distribution, "x uniform[-pi,pi)");
}

}  // namespace
}  // namespace gpb
