// The host's copy bandwidth, the memory-bound ceiling the CPU results are held against:
// a STREAM-style parallel copy over buffers far larger than the last-level cache.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <new>

#include "base/input_file.hpp"
#include "base/system.hpp"
#include "measure/context.hpp"

namespace gpb {
namespace {

constexpr std::int64_t kMinBufferBytes = std::int64_t{256} << 20;
constexpr std::int64_t kMaxBufferBytes = std::int64_t{1} << 30;
// The smallest buffer worth measuring where the cache size is unknown.
constexpr std::int64_t kFloorBufferBytes = std::int64_t{64} << 20;
// The two buffers take at most this share of the memory the process may still allocate.
constexpr std::uint64_t kShareOfAvailable = 8;
// Enough repetitions for a stable best, within about 0.1 s of copying on a slow host.
constexpr int kMinRepetitions = 3;
constexpr int kMaxRepetitions = 10;
constexpr double kBudgetSeconds = 0.1;

// Twice the machine's L3 (level3_cache_bytes: the kernel's list of L3 instances; 0 where
// nothing says) per buffer, so that a copy streams four times the cache through it; at least
// 256 MiB, at most 1 GiB, and the
// pair at most an eighth of the memory this process may still allocate (the machine's, its
// cgroup's and its ulimit -v's), so that a container's limit is never met for a ceiling.
// 0 where that leaves less than twice the cache (or 64 MiB): the copy would measure the cache.
std::int64_t buffer_bytes() {
  const std::int64_t l3 = level3_cache_bytes();
  const std::int64_t wanted = std::clamp<std::int64_t>(2 * l3, kMinBufferBytes, kMaxBufferBytes);
  const auto allowed = static_cast<std::int64_t>(std::min<std::uint64_t>(
      available_memory_bytes() / kShareOfAvailable / 2, static_cast<std::uint64_t>(kMaxBufferBytes)));
  const std::int64_t bytes = std::min(wanted, allowed);
  return bytes >= std::max(2 * l3, kFloorBufferBytes) ? bytes : 0;
}

}  // namespace

double measure_cpu_copy_gbps(int threads) {
  const std::int64_t count = buffer_bytes() / static_cast<std::int64_t>(sizeof(double));
  if (count == 0) return 0;
  // Not std::vector: its serial zero-fill would place every page on one NUMA node.
  std::unique_ptr<double[]> source(new (std::nothrow) double[static_cast<std::size_t>(count)]);
  std::unique_ptr<double[]> destination(new (std::nothrow) double[static_cast<std::size_t>(count)]);
  if (!source || !destination) return 0;
  double* const from = source.get();
  double* const to = destination.get();
  // As many threads as the address-space limit leaves stacks for, now that the buffers are
  // mapped (OpenMP ends the process when it cannot start one).
  const int team = threads_that_fit(std::max(1, threads), omp_get_max_threads());

  // First touch with the copy's own static schedule: each thread's pages are local to it,
  // and the page faults stay out of the timed copies.
#pragma omp parallel for schedule(static) num_threads(team)
  for (std::int64_t i = 0; i < count; ++i) {
    from[i] = static_cast<double>(i);
    to[i] = 0;
  }

  using Clock = std::chrono::steady_clock;
  double best_s = 0, spent_s = 0;
  for (int repetition = 0; repetition < kMaxRepetitions && (repetition < kMinRepetitions || spent_s < kBudgetSeconds); ++repetition) {
    const auto start = Clock::now();
#pragma omp parallel for schedule(static) num_threads(team)
    for (std::int64_t i = 0; i < count; ++i) to[i] = from[i];
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    spent_s += seconds;
    best_s = repetition == 0 ? seconds : std::min(best_s, seconds);
  }
  // Bytes read + written, as the op table counts an op's traffic.
  return 2.0 * static_cast<double>(count) * sizeof(double) / best_s / 1e9;
}

}  // namespace gpb
