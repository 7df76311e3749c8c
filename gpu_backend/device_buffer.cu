#include "gpu_backend/device_buffer.cuh"

#include <cstdio>
#include <limits>
#include <stdexcept>

#include "gpu_backend/cuda_check.cuh"

namespace gpb::cuda {
namespace {

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

}  // namespace

std::size_t checked_bytes(std::size_t count, std::size_t element_size, const std::string& what) {
  if (count > std::numeric_limits<std::size_t>::max() / element_size)
    throw std::runtime_error("out of memory: " + what + " size overflows the address space");
  return count * element_size;
}

void* DeviceMemory::allocate(std::size_t bytes, const std::string& what) {
  if (bytes == 0) return nullptr;
  void* pointer = nullptr;
  const cudaError_t status = cudaMalloc(&pointer, bytes);
  if (status == cudaErrorMemoryAllocation) {
    static_cast<void>(cudaGetLastError());  // not sticky: clear it so later launch checks stay clean
    std::size_t free_bytes = 0, total_bytes = 0;
    int device = 0;
    GPB_CUDA_CHECK(cudaGetDevice(&device));
    GPB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    throw std::runtime_error("out of device memory: " + what + " needs " + gib(static_cast<double>(bytes)) +
                             ", device " + std::to_string(device) + " has " + gib(static_cast<double>(free_bytes)) +
                             " free of " + gib(static_cast<double>(total_bytes)));
  }
  GPB_CUDA_CHECK(status);
  return pointer;
}

void DeviceMemory::release(void* pointer) noexcept {
  if (pointer) GPB_CUDA_CHECK_NOTHROW(cudaFree(pointer));
}

void* PinnedHostMemory::allocate(std::size_t bytes, const std::string& what) {
  if (bytes == 0) return nullptr;
  void* pointer = nullptr;
  const cudaError_t status = cudaMallocHost(&pointer, bytes);
  if (status == cudaErrorMemoryAllocation) {
    static_cast<void>(cudaGetLastError());
    throw std::runtime_error("out of pinned host memory: " + what + " needs " + gib(static_cast<double>(bytes)));
  }
  GPB_CUDA_CHECK(status);
  return pointer;
}

void PinnedHostMemory::release(void* pointer) noexcept {
  if (pointer) GPB_CUDA_CHECK_NOTHROW(cudaFreeHost(pointer));
}

}  // namespace gpb::cuda
