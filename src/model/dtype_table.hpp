// The dtype table: one entry per element type, the one home of a dtype's rules. A new dtype
// is an enumerator, a row of kDTypeTable, its host element type in HostElementTypes, its
// CUDA types in gpu_backend/cuda_types.cuh, and the backends' kernels for it; every other
// file reads it from here (docs/DESIGN.md, "How to add a dtype").
#pragma once

#include <cstddef>

#include "base/half_float.hpp"

namespace gpb {

enum class DType { f32, f64, f16, bf16 };

struct DTypeInfo {
  DType dtype;
  const char* name;      // "f32": the CLI, the case id, every report
  const char* aliases;   // other spellings --dtype and suites accept, as NumPy, PyTorch and CUDA write them
  std::size_t size;      // bytes per element
  double unit_roundoff;  // u = 2^-p for a p-bit significand: the bound on one rounding's relative error
  DType accumulation;    // what backends sum in for it (sums, dot products); verification's bound follows it
  bool tf32_eligible;    // --tf32 may round its matmul inputs to TF32 on tensor cores
  // The smallest positive subnormal. Below the normal range a rounding's error is absolute,
  // up to half of it, however small the value: f16's 2^-24 is within reach of a product of two
  // inputs of about 10^-3, so verification allows half of it beside the relative bound.
  double smallest_subnormal;
};

// Indexed by the DType enumerator.
inline constexpr DTypeInfo kDTypeTable[] = {
    {DType::f32, "f32", "float32 fp32 single", 4, 0x1p-24, DType::f32, true, 0x1p-149},
    {DType::f64, "f64", "float64 fp64 double", 8, 0x1p-53, DType::f64, false, 0x1p-1074},
    // The 16-bit formats are storage formats: every backend computes and sums them in f32
    // (tensor cores accumulate in f32), and rounds only the stored results to 16 bits.
    {DType::f16, "f16", "float16 fp16 half", 2, 0x1p-11, DType::f32, false, 0x1p-24},
    {DType::bf16, "bf16", "bfloat16", 2, 0x1p-8, DType::f32, false, 0x1p-133},
};

template <class... T>
struct TypeList {};

// The host element type of each dtype, in the table's order: what HostArray stores and what
// dispatch_dtype hands a template.
using HostElementTypes = TypeList<float, double, Float16, BFloat16>;

// The host type of each element type's accumulation type (the table's accumulation column):
// what a host computation of the dtype sums and computes in.
template <class T>
struct AccumulationOf {
  using type = T;
};
template <>
struct AccumulationOf<Float16> {
  using type = float;
};
template <>
struct AccumulationOf<BFloat16> {
  using type = float;
};
template <class T>
using Accumulation = typename AccumulationOf<T>::type;

constexpr const DTypeInfo& dtype_info(DType dtype) { return kDTypeTable[static_cast<std::size_t>(dtype)]; }

namespace dtype_table_checks {

template <class... T>
constexpr bool rows_match_types(TypeList<T...>) {
  std::size_t index = 0;
  const std::size_t sizes[] = {sizeof(T)...};
  const std::size_t accumulation_sizes[] = {sizeof(Accumulation<T>)...};
  for (const DTypeInfo& row : kDTypeTable) {
    if (index >= sizeof...(T) || static_cast<std::size_t>(row.dtype) != index || row.size != sizes[index]) return false;
    if (kDTypeTable[static_cast<std::size_t>(row.accumulation)].size != accumulation_sizes[index]) return false;
    ++index;
  }
  return index == sizeof...(T);
}

static_assert(rows_match_types(HostElementTypes{}),
              "kDTypeTable rows must follow the DType enumerators and HostElementTypes, one each, with matching sizes "
              "(and AccumulationOf must match the accumulation column)");

}  // namespace dtype_table_checks

}  // namespace gpb
