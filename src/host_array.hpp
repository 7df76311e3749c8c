// A typed host array whose element type is chosen at run time (f32 or f64).
#pragma once

#include <cstddef>
#include <variant>
#include <vector>

#include "types.hpp"

namespace gpb {

class HostArray {
 public:
  HostArray() = default;
  HostArray(DType dtype, std::size_t size);
  explicit HostArray(std::vector<float> values) : data_(std::move(values)) {}
  explicit HostArray(std::vector<double> values) : data_(std::move(values)) {}

  DType dtype() const { return std::holds_alternative<std::vector<float>>(data_) ? DType::f32 : DType::f64; }
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
  std::variant<std::vector<float>, std::vector<double>> data_;
};

// Calls f(tag) with a value-initialised T of the array's dtype; used to dispatch templates.
template <class F> decltype(auto) dispatch_dtype(DType dtype, F&& f) {
  if (dtype == DType::f32) return f(float{});
  return f(double{});
}

}  // namespace gpb
