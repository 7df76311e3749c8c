// A 1-D launch shape. Host code in gpu_backend/ chooses it (in prepare, from the
// device's limits); the launch functions in kernels/ only apply it.
#pragma once

namespace gpb::kernels {

struct LaunchConfig {
  unsigned blocks = 1;
  unsigned threads = 256;
};

// The elementwise and sum kernel files also answer how many blocks of a given size one
// SM keeps resident (the occupancy calculator, from the kernel's registers and
// shared memory): a grid of exactly that many blocks per SM runs in one wave.

}  // namespace gpb::kernels
