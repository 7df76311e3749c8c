// The dtype table: one entry per element type, the one home of a dtype's rules. A new dtype
// is an enumerator, a row of kDTypeTable, its host element type in HostElementTypes, its
// CUDA types in gpu_backend/cuda_types.cuh, and the backends' kernels for it; every other
// file reads it from here (docs/DESIGN.md, "How to add a dtype").
#pragma once

#include <cstddef>

namespace gpb {

enum class DType { f32, f64 };

struct DTypeInfo {
  DType dtype;
  const char* name;      // "f32": the CLI, the case id, every report
  std::size_t size;      // bytes per element
  double unit_roundoff;  // u = 2^-p for a p-bit significand: the bound on one rounding's relative error
  DType accumulation;    // what backends sum in for it (sums, dot products); verification's bound follows it
  bool tf32_eligible;    // --tf32 may round its matmul inputs to TF32 on tensor cores
};

// Indexed by the DType enumerator.
inline constexpr DTypeInfo kDTypeTable[] = {
    {DType::f32, "f32", 4, 0x1p-24, DType::f32, true},
    {DType::f64, "f64", 8, 0x1p-53, DType::f64, false},
};

template <class... T>
struct TypeList {};

// The host element type of each dtype, in the table's order: what HostArray stores and what
// dispatch_dtype hands a template.
using HostElementTypes = TypeList<float, double>;

constexpr const DTypeInfo& dtype_info(DType dtype) { return kDTypeTable[static_cast<std::size_t>(dtype)]; }

namespace dtype_table_checks {

template <class... T>
constexpr bool rows_match_types(TypeList<T...>) {
  std::size_t index = 0;
  const std::size_t sizes[] = {sizeof(T)...};
  for (const DTypeInfo& row : kDTypeTable) {
    if (index >= sizeof...(T) || static_cast<std::size_t>(row.dtype) != index || row.size != sizes[index]) return false;
    ++index;
  }
  return index == sizeof...(T);
}

static_assert(rows_match_types(HostElementTypes{}),
              "kDTypeTable rows must follow the DType enumerators and HostElementTypes, one each, with matching sizes");

}  // namespace dtype_table_checks

}  // namespace gpb
