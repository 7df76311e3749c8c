// The L2 flush buffer (twice the L2) is allocated on a case's first flush, so a case
// measured with a warm L2 never holds one. Seen as device memory in use, which takes the
// CUDA runtime's cudaMemGetInfo: the one CUDA header among these tests. Skips without a
// CUDA device or in a build without CUDA. The readings are of the whole device, so ctest runs
// these tests alone (RUN_SERIAL, tests/CMakeLists.txt): beside other tests (device-check runs
// 16 at a time) their allocations landed between the readings.
#include <gtest/gtest.h>

#if GPUBENCH_HAVE_CUDA

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <vector>

#include "measure/backend.hpp"
#include "model/problem.hpp"
#include "model/verify.hpp"

namespace gpb {
namespace {

Backend& cuda_backend() {
  static const std::vector<std::unique_ptr<Backend>> backends = make_all_backends();
  for (const auto& backend : backends)
    if (backend->name() == "cuda") return *backend;
  throw std::logic_error("no cuda backend");
}

// Device memory in use on the current device, in bytes.
std::size_t device_memory_in_use() {
  std::size_t free = 0, total = 0;
  EXPECT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
  return total - free;
}

TEST(L2Flusher, AllocatesItsBufferOnTheFirstFlushOnly) {
  const Availability availability = cuda_backend().availability();
  if (!availability.available) GTEST_SKIP() << "cuda unavailable: " << availability.reason;
  int l2_bytes = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, 0), cudaSuccess);
  // Device memory is handed out in pages of up to 2 MiB, and a case holds a few of them:
  // a smaller L2 would not stand out.
  if (l2_bytes < (16 << 20)) GTEST_SKIP() << "an L2 of " << l2_bytes << " bytes is too small to tell apart";
  const auto l2 = static_cast<std::size_t>(l2_bytes);

  // A tiny case, its inputs and output far below the L2's size.
  const Problem problem = make_problem(Op::sum, DType::f32, elementwise_shape(1024), 7);
  auto warm_up = cuda_backend().prepare(problem, BackendSettings{});  // context and kernels loaded
  warm_up->run();
  warm_up->synchronize();
  warm_up.reset();

  const std::size_t before = device_memory_in_use();
  auto prepared = cuda_backend().prepare(problem, BackendSettings{});
  for (int i = 0; i < 3; ++i) prepared->run();  // how a warm-L2 case runs: never a flush
  prepared->synchronize();
  const std::size_t warm = device_memory_in_use();
  EXPECT_LT(warm, before + l2) << "prepare or run allocated about an L2's size without a flush";

  prepared->flush_cache();
  prepared->run();
  prepared->synchronize();
  const std::size_t flushed = device_memory_in_use();
  EXPECT_GE(flushed, warm + 2 * l2) << "the first flush allocated less than twice the L2";
  prepared->flush_cache();  // later flushes reuse the buffer
  prepared->synchronize();
  EXPECT_LT(device_memory_in_use(), flushed + l2);
  EXPECT_TRUE(verify(problem, prepared->result()).passed);
}

}  // namespace
}  // namespace gpb

#else  // built without the CUDA toolkit

TEST(L2Flusher, RequiresCuda) { GTEST_SKIP() << "built without CUDA: the GPU backends are not compiled in"; }

#endif
