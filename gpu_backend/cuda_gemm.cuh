// The cuda backend's matmul: the kernel that plan_gemm (src/gemm_dispatch.hpp) chooses for the
// shape, the dtype and the device, with its workspace (split-k partials, padded copies)
// allocated when the case is prepared.
#pragma once

#include <memory>

#include "measure/backend.hpp"

namespace gpb::cuda {

// Throws where the dtype has no kernel on the device (gemm_dispatch.hpp).
std::unique_ptr<Prepared> make_cuda_gemm_case(const Problem& problem, const BackendSettings& settings);

}  // namespace gpb::cuda
