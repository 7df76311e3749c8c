// A typed host array whose element type is chosen at run time (one of HostElementTypes).
#pragma once

#include <cstddef>
#include <utility>
#include <variant>
#include <vector>

#include "model/types.hpp"

namespace gpb {

namespace host_array_detail {

template <class List>
struct VectorsOf;
template <class... T>
struct VectorsOf<TypeList<T...>> {
  using type = std::variant<std::vector<T>...>;
};

// f(T{}) for the index-th type of the list.
template <class F, class First, class... Rest>
decltype(auto) call_with_type(std::size_t index, F&& f, TypeList<First, Rest...>) {
  if constexpr (sizeof...(Rest) == 0) {
    return f(First{});
  } else {
    if (index == 0) return f(First{});
    return call_with_type(index - 1, std::forward<F>(f), TypeList<Rest...>{});
  }
}

}  // namespace host_array_detail

// Calls f(tag) with a value-initialised T, the dtype's host element type; used to dispatch templates.
template <class F>
decltype(auto) dispatch_dtype(DType dtype, F&& f) {
  return host_array_detail::call_with_type(static_cast<std::size_t>(dtype), std::forward<F>(f), HostElementTypes{});
}

class HostArray {
 public:
  HostArray() = default;
  HostArray(DType dtype, std::size_t size);
  template <class T>
  explicit HostArray(std::vector<T> values) : data_(std::move(values)) {}

  // The variant's alternatives follow HostElementTypes, which follows the DType enumerators.
  DType dtype() const { return static_cast<DType>(data_.index()); }
  std::size_t size() const;
  std::size_t bytes() const { return size() * dtype_size(dtype()); }
  bool empty() const { return size() == 0; }

  // Element i converted to double, for verification.
  double at(std::size_t i) const;

  template <class T> std::vector<T>& as() { return std::get<std::vector<T>>(data_); }
  template <class T> const std::vector<T>& as() const { return std::get<std::vector<T>>(data_); }
  const void* raw() const;
  void* raw();

 private:
  host_array_detail::VectorsOf<HostElementTypes>::type data_;
};

}  // namespace gpb
