// The "cuda" backend: gpubench's own kernels (kernels/), with the launch policy here.
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "gpu_backend/gpu_backends.cuh"
#include "gpu_backend/gpu_prepared.cuh"
#include "kernels/elementwise.cuh"
#include "kernels/gemm.cuh"
#include "kernels/reduce.cuh"
#include "kernels/spmv.cuh"

namespace gpb::cuda {
namespace {

using kernels::LaunchConfig;

constexpr unsigned kBlockThreads = 256;

// The sum's first pass gets as many blocks as the device keeps resident at once (one full
// wave: more would leave SMs idle while a partial second wave runs, and the second pass
// has one partial per block), or fewer when the work needs fewer; threads loop over the rest.
LaunchConfig resident_grid(const DeviceLimits& limits, int blocks_per_sm, std::int64_t blocks_needed) {
  const std::int64_t resident = static_cast<std::int64_t>(limits.sm_count) * std::max(1, blocks_per_sm);
  return {static_cast<unsigned>(std::clamp<std::int64_t>(blocks_needed, 1, resident)), kBlockThreads};
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

template <class T>
constexpr std::int64_t kVecLanes = 16 / sizeof(T);

std::string launch_text(const LaunchConfig& config) {
  return "blocks=" + std::to_string(config.blocks) + " threads=" + std::to_string(config.threads);
}

// One block per tile rather than a resident grid that strides: on an H200 (f32, 256M
// elements) 4.11 TB/s against 3.79 for sqrt and 4.12 against 3.80 for sin.
template <class T>
LaunchConfig elementwise_grid(std::int64_t n) {
  const std::int64_t tile = kVecLanes<T> * kBlockThreads * kernels::kElementwiseVectorsPerThread;
  return {static_cast<unsigned>(std::max<std::int64_t>(1, ceil_div(n, tile))), kBlockThreads};
}

template <class T, class Fn>
class ElementwiseCase final : public GpuPrepared {
 public:
  ElementwiseCase(const Problem& problem, const BackendSettings& settings)
      : GpuPrepared(problem, settings),
        n_(static_cast<std::int64_t>(problem.x.size())),
        launch_(elementwise_grid<T>(n_)) {}
  void run() override {
    kernels::launch_elementwise<T>(Fn{}, device_x<T>(), device_output<T>(), n_, launch_, stream());
  }
  std::string details() const override { return "kernel=elementwise_vec16 " + launch_text(launch_); }

 private:
  std::int64_t n_;
  LaunchConfig launch_;
};

template <class T>
class SumCase final : public GpuPrepared {
 public:
  SumCase(const Problem& problem, const BackendSettings& settings)
      : GpuPrepared(problem, settings),
        n_(static_cast<std::int64_t>(problem.x.size())),
        launch_(resident_grid(limits(), kernels::sum_blocks_per_sm<T>(kBlockThreads),
                              ceil_div(n_, kVecLanes<T> * kBlockThreads))),
        block_sums_(launch_.blocks, "sum block partials") {}
  void run() override {
    kernels::launch_sum<T>(device_x<T>(), n_, block_sums_.data(), device_output<T>(), launch_, stream());
  }
  std::string details() const override { return "kernel=two_pass_block_reduce " + launch_text(launch_); }

 private:
  std::int64_t n_;
  LaunchConfig launch_;
  DeviceBuffer<T> block_sums_;
};

template <class T>
class GemmCase final : public GpuPrepared {
 public:
  GemmCase(const Problem& problem, const BackendSettings& settings)
      : GpuPrepared(problem, settings),
        m_(int_dimension(problem.shape.m, "matmul m")),
        n_(int_dimension(problem.shape.n, "matmul n")),
        k_(int_dimension(problem.shape.k, "matmul k")),
        // 16-byte global accesses need every row of A (k wide) and B, C (n wide) aligned.
        vectorized_(n_ % kVecLanes<T> == 0 && k_ % kVecLanes<T> == 0) {}
  void run() override {
    kernels::launch_gemm<T>(m_, n_, k_, device_a<T>(), device_b<T>(), device_output<T>(), vectorized_, stream());
  }
  std::string details() const override {
    using Tile = kernels::GemmTile;
    return "kernel=tiled_gemm block_tile=" + std::to_string(Tile::kBlockM) + "x" + std::to_string(Tile::kBlockN) + "x" +
           std::to_string(Tile::kBlockK) + " thread_tile=" + std::to_string(Tile::kThreadM) + "x" +
           std::to_string(Tile::kThreadN) + " global_access=" + (vectorized_ ? "vec16" : "scalar");
  }

 private:
  int m_, n_, k_;
  bool vectorized_;
};

// Lanes that share one row in the vector kernel: the smallest power of two (2..32) that
// leaves at most `entries_per_lane` entries per lane on an average row; rows averaging at
// most one entry get a thread each (the scalar kernel). Measured on an H200 (random rows):
// f32 does best with about four entries per lane (independent gathers in flight; 8M rows
// of 5: 15 % faster than one per lane, even at 16 and 40), f64 with one (1M rows of 16:
// 144 us against 162 us with four per lane).
template <class T>
int spmv_threads_per_row(double average_row_length) {
  constexpr double entries_per_lane = sizeof(T) == 4 ? 4.0 : 1.0;
  if (average_row_length <= 1.0) return 1;
  for (int lanes : {2, 4, 8, 16})
    if (average_row_length <= entries_per_lane * lanes) return lanes;
  return 32;
}

// One block per group of rows rather than a resident grid that strides: row lengths vary,
// and the block scheduler balances many short blocks better than a fixed share per thread
// (on an H200, 8M rows of 16: 1.31 ms against 1.43 ms).
LaunchConfig row_group_grid(std::int64_t rows, int threads_per_row) {
  const std::int64_t rows_per_block = kBlockThreads / threads_per_row;
  return {static_cast<unsigned>(std::max<std::int64_t>(1, ceil_div(rows, rows_per_block))), kBlockThreads};
}

template <class T>
class SpmvCase final : public GpuPrepared {
 public:
  SpmvCase(const Problem& problem, const BackendSettings& settings)
      : GpuPrepared(problem, settings),
        matrix_{problem.csr->rows, device_row_ptr(), device_col_idx()},
        average_row_length_(problem.csr->rows == 0 ? 0.0
                                                   : static_cast<double>(problem.csr->nnz()) /
                                                         static_cast<double>(problem.csr->rows)),
        threads_per_row_(spmv_threads_per_row<T>(average_row_length_)),
        launch_(row_group_grid(matrix_.rows, threads_per_row_)) {}
  void run() override {
    if (threads_per_row_ == 1)
      kernels::launch_spmv_scalar<T>(matrix_, device_csr_values<T>(), device_x<T>(), device_output<T>(), launch_,
                                     stream());
    else
      kernels::launch_spmv_vector<T>(threads_per_row_, matrix_, device_csr_values<T>(), device_x<T>(),
                                     device_output<T>(), launch_, stream());
  }
  std::string details() const override {
    char average[32];
    std::snprintf(average, sizeof average, "%.1f", average_row_length_);
    const std::string kernel =
        threads_per_row_ == 1 ? "csr_scalar" : "csr_vector threads_per_row=" + std::to_string(threads_per_row_);
    return "kernel=" + kernel + " avg_row_nnz=" + average + " " + launch_text(launch_);
  }

 private:
  kernels::CsrView matrix_;
  double average_row_length_;
  int threads_per_row_;
  LaunchConfig launch_;
};

class CudaKernelsBackend final : public Backend {
 public:
  std::string name() const override { return "cuda"; }
  std::string description() const override {
    return "gpubench's own CUDA kernels: vectorised elementwise, two-pass reduction, tiled GEMM, CSR vector/scalar SpMV";
  }
  DeviceKind kind() const override { return DeviceKind::gpu; }
  Availability availability() const override { return device_availability(); }
  Support supports(Op, DType) const override { return {}; }
  std::unique_ptr<Prepared> prepare(const Problem& problem, const BackendSettings& settings) override {
    return dispatch_dtype(problem.dtype, [&](auto tag) -> std::unique_ptr<Prepared> {
      using T = decltype(tag);
      switch (problem.op) {
        case Op::sin:
          return std::make_unique<ElementwiseCase<T, kernels::SinFn>>(problem, settings);
        case Op::sqrt:
          return std::make_unique<ElementwiseCase<T, kernels::SqrtFn>>(problem, settings);
        case Op::sum:
          return std::make_unique<SumCase<T>>(problem, settings);
        case Op::matmul:
          return std::make_unique<GemmCase<T>>(problem, settings);
        case Op::spmv:
          return std::make_unique<SpmvCase<T>>(problem, settings);
      }
      throw std::logic_error("cuda backend: unknown op");
    });
  }
};

}  // namespace

std::unique_ptr<Backend> make_cuda_kernels_backend() { return std::make_unique<CudaKernelsBackend>(); }

}  // namespace gpb::cuda
