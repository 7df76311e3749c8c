// NVTX ranges in the "gpubench" domain. Compiles to nothing without the nvtx3 headers.
#pragma once

#include <string>

namespace gpb::nvtx {

// Loads any injection library (Nsight Systems, a test's recorder) before timing starts.
void initialize();

// Pushes a range on construction, pops it on destruction. The name is copied by NVTX,
// so callers build names outside timed regions and pass them in.
class ScopedRange {
 public:
  explicit ScopedRange(const std::string& name);
  explicit ScopedRange(const char* name);
  ~ScopedRange();
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;
};

bool enabled();  // built with NVTX support

}  // namespace gpb::nvtx
