// The cp.async pipeline's pieces (sm_80 and newer), shared by the GEMM kernels that stage
// global memory into shared memory without passing through registers.
#pragma once

namespace gpb::kernels {

// The shared-memory address of a pointer into shared memory.
template <class T>
__device__ __forceinline__ unsigned shared_address(const T* pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

// Copies kBytes (8 or 16) from global to shared memory asynchronously; when `inside` is
// false nothing is read (source size 0) and the destination is filled with zeros. 16-byte
// copies go through L2 only (.cg: each stage is read once from shared memory); .cg takes 16
// bytes only, so 8-byte copies use .ca.
template <int kBytes, class T>
__device__ __forceinline__ void copy_async(T* destination, const T* source, bool inside) {
  static_assert(kBytes == 8 || kBytes == 16, "cp.async copies 4, 8 or 16 bytes; these kernels use 8 and 16");
  const int source_bytes = inside ? kBytes : 0;
  if constexpr (kBytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(destination)),
                 "l"(__cvta_generic_to_global(source)), "r"(source_bytes)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(shared_address(destination)),
                 "l"(__cvta_generic_to_global(source)), "r"(source_bytes)
                 : "memory");
}

__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most kPending of this thread's committed copy groups are still in flight.
template <int kPending>
__device__ __forceinline__ void wait_for_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// The multi-stage pipeline over a block's `k_stages` stages in kStages shared-memory
// buffers. start_copy_pipeline puts the first kStages - 1 stages in flight; before computing
// on each stage s, advance_copy_pipeline waits until it has landed and starts stage
// s + kStages - 1 in the buffer stage s - 1 used, and returns stage s's buffer. Every step
// commits a group, empty or not, so that "stage s has landed" is always "at most
// kStages - 2 groups pending". copy(stage, buffer) starts a stage's copies into a buffer.
// Every thread of the block calls both.
template <int kStages, class Copy>
__device__ __forceinline__ void start_copy_pipeline(int k_stages, Copy&& copy) {
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_stages) copy(s, s);
    commit_copies();
  }
}

template <int kStages, class Copy>
__device__ __forceinline__ int advance_copy_pipeline(int s, int k_stages, Copy&& copy) {
  wait_for_copies<kStages - 2>();
  // Every thread's copies of stage s are now visible to all, and every warp is done with
  // stage s - 1, whose buffer the copy below overwrites.
  __syncthreads();
  const int ahead = s + kStages - 1;
  if (ahead < k_stages) copy(ahead, ahead % kStages);
  commit_copies();
  return s % kStages;
}

}  // namespace gpb::kernels
