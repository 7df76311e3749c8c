// What the GPU tests mean by "deterministic": a prepared case run again, from an evicted L2,
// gives the bits of its first run (no float atomics whose order changes a result).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "measure/backend.hpp"
#include "model/host_array.hpp"

namespace gpb {

// The same output bytes, whatever the dtype.
inline bool same_bits(const HostArray& a, const HostArray& b) {
  return a.dtype() == b.dtype() && a.bytes() == b.bytes() && std::memcmp(a.raw(), b.raw(), a.bytes()) == 0;
}

// Runs the case `reruns` more times, each after a cache flush, and expects every result to
// have the bits of `first`, its first run's; `what` names the case on a difference.
inline void expect_same_bits_on_rerun(Prepared& prepared, const HostArray& first, int reruns, const std::string& what) {
  for (int rerun = 1; rerun <= reruns; ++rerun) {
    prepared.flush_cache();
    prepared.run();
    prepared.synchronize();
    EXPECT_TRUE(same_bits(first, prepared.result())) << what << ": run " << rerun + 1 << " differs from the first";
  }
}

}  // namespace gpb
