// Which CUDA device a case runs on, and the few of its limits that launch policy needs.
#pragma once

#include <cstddef>
#include <string>

#include "measure/backend.hpp"

namespace gpb::cuda {

// Available when cudaGetDeviceCount finds at least one device; otherwise what is missing:
// the driver, a device, or a driver new enough for this build's runtime.
Availability device_availability();

// "13.0": CUDA encodes versions as 1000 * major + 10 * minor.
std::string cuda_version_text(int version);

// Makes `ordinal` the calling thread's current device; throws a message that names the
// ordinal and the devices present when it does not exist.
void select_device(int ordinal);

struct DeviceLimits {
  int ordinal = 0;
  int sm_count = 0;
  int threads_per_sm = 0;  // resident threads per SM at most
  std::size_t l2_bytes = 0;
  int compute_capability = 0;  // major * 10 + minor: 80 for sm_80, 90 for sm_90
  std::size_t shared_bytes_per_block_optin = 0;  // dynamic shared memory a kernel may opt into
};

DeviceLimits device_limits(int ordinal);

}  // namespace gpb::cuda
