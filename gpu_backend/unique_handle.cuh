// Move-only owner of a library handle or descriptor (cuBLAS handle, cuSPARSE matrix
// descriptor, ...): `Destroy` releases it and reports, never throws, failures.
#pragma once

#include <utility>

namespace gpb::cuda {

template <class Handle, void (*Destroy)(Handle) noexcept>
class UniqueHandle {
 public:
  UniqueHandle() = default;
  explicit UniqueHandle(Handle handle) : handle_(handle) {}
  ~UniqueHandle() {
    if (handle_) Destroy(handle_);
  }
  UniqueHandle(UniqueHandle&& other) noexcept : handle_(std::exchange(other.handle_, Handle{})) {}
  UniqueHandle& operator=(UniqueHandle&& other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;

  Handle get() const { return handle_; }

 private:
  Handle handle_{};
};

}  // namespace gpb::cuda
