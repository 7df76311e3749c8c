// Stands in for callable_gpu.cu in a build without the CUDA toolkit.
#include <stdexcept>

#include "callable_case.hpp"

namespace gpb::python {

std::unique_ptr<GpuTiming> make_gpu_timing(const CallableTarget&) {
  throw std::runtime_error("this gpubench was built without the CUDA toolkit: it times functions on the CPU only");
}

}  // namespace gpb::python
