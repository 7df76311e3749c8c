#include "model/host_array.hpp"

namespace gpb {

HostArray::HostArray(DType dtype, std::size_t size) {
  dispatch_dtype(dtype, [&](auto tag) { data_ = std::vector<decltype(tag)>(size); });
}

std::size_t HostArray::size() const {
  return std::visit([](const auto& v) { return v.size(); }, data_);
}

double HostArray::at(std::size_t i) const {
  return std::visit([i](const auto& v) { return static_cast<double>(v[i]); }, data_);
}

const void* HostArray::raw() const {
  return std::visit([](const auto& v) { return static_cast<const void*>(v.data()); }, data_);
}

void* HostArray::raw() {
  return std::visit([](auto& v) { return static_cast<void*>(v.data()); }, data_);
}

}  // namespace gpb
