// A 1-D launch shape. Host code in gpu_backend/ chooses it (in prepare, from the
// device's limits); the launch functions in kernels/ only apply it.
#pragma once

namespace gpb::kernels {

struct LaunchConfig {
  unsigned blocks = 1;
  unsigned threads = 256;
};

}  // namespace gpb::kernels
