// Move-only owners of device memory (cudaMalloc) and pinned host memory (cudaMallocHost).
// Never managed memory: oversubscribing it can hang the GPU instead of failing cleanly.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

namespace gpb::cuda {

// Allocation failures throw "out of device memory: <what> needs X GiB ..." (resp. pinned
// host memory), naming the buffer so that the failed case's report says what did not fit.
struct DeviceMemory {
  static void* allocate(std::size_t bytes, const std::string& what);
  static void release(void* pointer) noexcept;
};

struct PinnedHostMemory {
  static void* allocate(std::size_t bytes, const std::string& what);
  static void release(void* pointer) noexcept;
};

// Checked count * element size; throws on overflow (absurd sizes must fail, not wrap).
std::size_t checked_bytes(std::size_t count, std::size_t element_size, const std::string& what);

template <class T, class Memory>
class Buffer {
 public:
  Buffer() = default;
  Buffer(std::size_t count, const std::string& what)
      : data_(static_cast<T*>(Memory::allocate(checked_bytes(count, sizeof(T), what), what))), count_(count) {}
  ~Buffer() { Memory::release(data_); }

  Buffer(Buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  Buffer& operator=(Buffer&& other) noexcept {
    if (this != &other) {
      Memory::release(data_);
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

template <class T>
using DeviceBuffer = Buffer<T, DeviceMemory>;
template <class T>
using PinnedBuffer = Buffer<T, PinnedHostMemory>;

}  // namespace gpb::cuda
