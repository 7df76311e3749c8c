// The "cuda" backend: gpubench's own kernels (kernels/), with the launch policy here.
#include <algorithm>
#include <cstddef>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_backend/cuda_check.cuh"
#include "gpu_backend/cuda_gemm.cuh"
#include "gpu_backend/cuda_types.cuh"
#include "gpu_backend/elementwise_functions.cuh"
#include "gpu_backend/gpu_backends.cuh"
#include "gpu_backend/gpu_prepared.cuh"
#include "kernels/elementwise.cuh"
#include "kernels/reduce.cuh"
#include "kernels/spmv.cuh"
#include "kernels/spmv_segments.cuh"
#include "kernels/spmv_widened.cuh"
#include "measure/spmv_plan.hpp"
#include "model/op_table.hpp"

namespace gpb::cuda {
namespace {

using kernels::LaunchConfig;

constexpr unsigned kBlockThreads = 256;

// The sum gets as many blocks as the device keeps resident at once (one full wave: more
// would leave SMs idle while a partial second wave runs, and the last block sums one
// partial per block), or fewer when the work needs fewer; threads loop over the rest.
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
    using D = DeviceType<T>;
    kernels::launch_elementwise<D>(Fn{}, device_x<D>(), device_output<D>(), n_, launch_, stream());
  }
  std::string details() const override {
    return std::string("kernel=elementwise_vec16 ") + (kComputedWider<T> ? "compute=f32 " : "") + launch_text(launch_);
  }

 private:
  std::int64_t n_;
  LaunchConfig launch_;
};

// Sums in T's accumulation type (f32 for f16 and bf16), in which the result is stored.
template <class T>
class SumCase final : public GpuPrepared {
  using D = DeviceType<T>;
  using Acc = kernels::Accumulate<D>;

 public:
  SumCase(const Problem& problem, const BackendSettings& settings)
      : GpuPrepared(problem, settings),
        n_(static_cast<std::int64_t>(problem.x.size())),
        launch_(resident_grid(limits(), kernels::sum_blocks_per_sm<D>(kBlockThreads),
                              ceil_div(n_, kVecLanes<T> * kBlockThreads * kernels::kSumUnroll))),
        block_sums_(launch_.blocks, "sum block partials"),
        finished_blocks_(1, "sum finished-block counter") {
    GPB_CUDA_CHECK(cudaMemsetAsync(finished_blocks_.data(), 0, finished_blocks_.bytes(), stream()));
  }
  void run() override {
    kernels::launch_sum<D>(device_x<D>(), n_, block_sums_.data(), finished_blocks_.data(), device_output<Acc>(), launch_,
                           stream());
  }
  std::string details() const override {
    return std::string("kernel=one_launch_block_reduce (the last block to finish sums the block partials) ") +
           (kComputedWider<T> ? "accumulate=f32 (result stored as f32) " : "") + launch_text(launch_);
  }

 private:
  std::int64_t n_;
  LaunchConfig launch_;
  DeviceBuffer<Acc> block_sums_;
  DeviceBuffer<unsigned> finished_blocks_;
};

// The 16-bit types' row split reads one entry at a time; every type has the merge path.
template <class T>
SpmvTarget spmv_target(const DeviceLimits& limits) {
  SpmvTarget target;
  target.value_bytes = sizeof(T);
  target.vector_loads = !kComputedWider<T>;
  target.sm_count = limits.sm_count;
  target.threads_per_sm = limits.threads_per_sm;
  return target;
}
static_assert(kernels::SpmvSegmentShape::kThreads == SpmvSegmentBlock::kThreads &&
                  kernels::SpmvSegmentShape::max_vectors_per_thread(2) == SpmvSegmentBlock::max_vectors_per_thread(2) &&
                  kernels::SpmvSegmentShape::max_vectors_per_thread(4) == SpmvSegmentBlock::max_vectors_per_thread(4) &&
                  kernels::SpmvSegmentShape::max_vectors_per_thread(8) == SpmvSegmentBlock::max_vectors_per_thread(8),
              "the host's segment sizes (spmv_plan.hpp) and the kernel's block (spmv_segments.cuh) must agree");

// Where each merge-path tile starts: the point at which the merge of the row ends
// (row_ptr[1..rows]) with the nonzero indices crosses diagonal t * tile_items, for
// t = 0..tiles, the last point being (rows, nnz). The same search as the kernel's
// per-thread one, over the whole matrix.
struct MergePathTiles {
  std::vector<std::int32_t> rows;
  std::vector<std::int32_t> nonzeros;
};

MergePathTiles merge_path_tiles(const CsrMatrix& matrix, std::int64_t tile_items) {
  const std::int64_t nnz = matrix.nnz();
  const std::int64_t items = matrix.rows + nnz;
  const std::int64_t tiles = ceil_div(items, tile_items);
  MergePathTiles starts;
  for (std::int64_t tile = 0; tile <= tiles; ++tile) {
    const std::int64_t diagonal = std::min(tile * tile_items, items);
    std::int64_t low = std::max<std::int64_t>(0, diagonal - nnz);
    std::int64_t high = std::min(diagonal, matrix.rows);
    while (low < high) {
      const std::int64_t middle = (low + high) / 2;
      if (matrix.row_ptr[static_cast<std::size_t>(middle) + 1] <= diagonal - middle - 1)
        low = middle + 1;
      else
        high = middle;
    }
    starts.rows.push_back(static_cast<std::int32_t>(low));
    starts.nonzeros.push_back(static_cast<std::int32_t>(diagonal - low));
  }
  return starts;
}

// The carry runs of a merge-path split: tile t (0..tiles-1) stops inside row
// tile_rows[t + 1] unless that is past the last row; neighbouring tiles that stop in the
// same row form one run. Long runs first (the kernel gives each a block), then short ones.
struct CarryRuns {
  std::vector<kernels::SpmvCarryRun> runs;
  unsigned long_runs = 0;
  std::int32_t longest = 0;  // tiles
};

CarryRuns carry_runs(const std::vector<std::int32_t>& tile_rows, std::int64_t rows) {
  std::vector<kernels::SpmvCarryRun> long_runs, short_runs;
  CarryRuns result;
  const auto tiles = static_cast<std::int32_t>(tile_rows.size() - 1);
  for (std::int32_t first = 0; first < tiles;) {
    const std::int32_t row = tile_rows[static_cast<std::size_t>(first) + 1];
    if (row >= rows) break;  // this tile and the ones after it end with the last row
    std::int32_t end = first + 1;
    while (end < tiles && tile_rows[static_cast<std::size_t>(end) + 1] == row) ++end;
    (end - first > kernels::SpmvCarryRuns::kLongTiles ? long_runs : short_runs).push_back({row, first, end});
    result.longest = std::max(result.longest, end - first);
    first = end;
  }
  result.long_runs = static_cast<unsigned>(long_runs.size());
  result.runs = std::move(long_runs);
  result.runs.insert(result.runs.end(), short_runs.begin(), short_runs.end());
  return result;
}

// A host vector on the device, as Device: the same bytes (a layout the kernels declare too).
template <class Host, class Device = Host>
DeviceBuffer<Device> device_copy(const std::vector<Host>& host, const std::string& what) {
  static_assert(sizeof(Device) == sizeof(Host));
  DeviceBuffer<Device> buffer(host.size(), what);
  if (!host.empty()) GPB_CUDA_CHECK(cudaMemcpy(buffer.data(), host.data(), buffer.bytes(), cudaMemcpyHostToDevice));
  return buffer;
}

// One block per group of rows rather than a resident grid that strides: row lengths vary,
// and the block scheduler balances many short blocks better than a fixed share per thread
// (on an H200, 8M rows of 16: 1.31 ms against 1.43 ms).
LaunchConfig row_group_grid(std::int64_t rows, int threads_per_row) {
  const std::int64_t rows_per_block = kBlockThreads / threads_per_row;
  return {static_cast<unsigned>(std::max<std::int64_t>(1, ceil_div(rows, rows_per_block))), kBlockThreads};
}

// The host's segment layouts (spmv_plan.hpp) are the kernel's (spmv_segments.cuh), copied as bytes.
static_assert(sizeof(RowSegment) == sizeof(kernels::SpmvSegment) &&
                  offsetof(RowSegment, row) == offsetof(kernels::SpmvSegment, row) &&
                  offsetof(RowSegment, begin) == offsetof(kernels::SpmvSegment, begin) &&
                  offsetof(RowSegment, end) == offsetof(kernels::SpmvSegment, end) &&
                  offsetof(RowSegment, ticket) == offsetof(kernels::SpmvSegment, ticket),
              "RowSegment and kernels::SpmvSegment must have one layout");
static_assert(sizeof(TicketRun) == sizeof(kernels::SpmvTicketRun) &&
                  offsetof(TicketRun, first_segment) == offsetof(kernels::SpmvTicketRun, first_segment) &&
                  offsetof(TicketRun, segments) == offsetof(kernels::SpmvTicketRun, segments),
              "TicketRun and kernels::SpmvTicketRun must have one layout");

// The row-segment kernel's segments and ticket runs on the device, an arrival counter per
// ticket (zeroed on `stream`) and a partial sum per segment in Acc.
template <class Acc>
class DeviceRowSegments {
 public:
  DeviceRowSegments(const RowSegmentTable& table, cudaStream_t stream)
      : rows_(table.rows),
        description_(describe(table)),
        segments_(device_copy<RowSegment, kernels::SpmvSegment>(table.segments, "spmv row segments")),
        ticket_runs_(device_copy<TicketRun, kernels::SpmvTicketRun>(table.ticket_runs, "spmv row segments: ticket runs")),
        arrivals_(table.ticket_runs.size(), "spmv row segments: arrival counters"),
        partials_(table.ticket_runs.empty() ? 0 : table.segments.size(), "spmv row segments: partial sums") {
    if (arrivals_.size() > 0) GPB_CUDA_CHECK(cudaMemsetAsync(arrivals_.data(), 0, arrivals_.bytes(), stream));
  }
  std::int64_t rows() const { return rows_; }
  kernels::SpmvRowSegments view() {
    return {segments_.data(), static_cast<unsigned>(segments_.size()), ticket_runs_.data(), arrivals_.data()};
  }
  Acc* partials() { return partials_.data(); }
  const std::string& details() const { return description_; }

 private:
  std::int64_t rows_;
  std::string description_;
  DeviceBuffer<kernels::SpmvSegment> segments_;
  DeviceBuffer<kernels::SpmvTicketRun> ticket_runs_;
  DeviceBuffer<unsigned> arrivals_;
  DeviceBuffer<Acc> partials_;
};

// SpMV in every dtype, on the kernel plan_spmv (src/spmv_plan.hpp) chooses: a thread or a
// group of lanes per row (f16 and bf16 on the kernel that multiplies and adds in f32), the
// row segments for rows too long or too few for those, the merge path for skewed rows
// (f16 and bf16 with f32 products, sums and carries).
template <class T>
class SpmvCase final : public GpuPrepared {
  using D = DeviceType<T>;
  using Acc = kernels::Accumulate<D>;

 public:
  SpmvCase(const Problem& problem, const BackendSettings& settings)
      : GpuPrepared(problem, settings),
        matrix_{problem.csr->rows, device_row_ptr(), device_col_idx()},
        lengths_(row_length_stats(*problem.csr)),
        target_(spmv_target<T>(limits())),
        plan_(plan_spmv(lengths_, columns_are_contiguous(*problem.csr), target_, settings.spmv_kernel)),
        launch_(row_group_grid(matrix_.rows, plan_.threads_per_row)),
        segments_(row_segment_table(*problem.csr, plan_, target_), stream()) {
    if (plan_.kernel == SpmvKernel::csr_merge_path) {
      using Tile = kernels::SpmvMergeTile<D>;
      const MergePathTiles starts = merge_path_tiles(*problem.csr, Tile::kItems);
      tiles_ = static_cast<unsigned>(starts.rows.size() - 1);
      tile_rows_ = device_copy(starts.rows, "spmv merge-path tile rows");
      tile_nonzeros_ = device_copy(starts.nonzeros, "spmv merge-path tile nonzeros");
      tile_carries_ = DeviceBuffer<Acc>(std::size_t{tiles_} * Tile::kCarrySlots, "spmv merge-path tile carries");
      const CarryRuns runs = carry_runs(starts.rows, problem.csr->rows);
      carry_runs_ = device_copy(runs.runs, "spmv merge-path carry runs");
      long_carry_runs_ = runs.long_runs;
      longest_carry_run_ = runs.longest;
    }
  }
  void run() override {
    if (plan_.kernel == SpmvKernel::csr_merge_path) {
      kernels::launch_spmv_merge_path<D>(
          matrix_, tile_rows_.data(), tile_nonzeros_.data(), tiles_, device_csr_values<D>(), device_x<D>(),
          device_output<D>(), tile_carries_.data(),
          {carry_runs_.data(), static_cast<unsigned>(carry_runs_.size()), long_carry_runs_}, stream());
      return;
    }
    // The rows the row segments leave to a thread or a group of lanes, if any.
    if (segments_.rows() < matrix_.rows) {
      if constexpr (kComputedWider<T>)
        kernels::launch_spmv_widened<D>(plan_.threads_per_row, matrix_, device_csr_values<D>(), device_x<D>(),
                                        device_output<D>(), plan_.long_row_limit, launch_, stream());
      else if (plan_.kernel == SpmvKernel::csr_scalar)
        kernels::launch_spmv_scalar<T>(matrix_, device_csr_values<T>(), device_x<T>(), device_output<T>(),
                                       plan_.long_row_limit, launch_, stream());
      else
        kernels::launch_spmv_vector<T>(plan_.threads_per_row, plan_.vector_loads, matrix_, device_csr_values<T>(),
                                       device_x<T>(), device_output<T>(), plan_.long_row_limit, launch_, stream());
    }
    kernels::launch_spmv_row_segments<D>(matrix_, device_csr_values<D>(), device_x<D>(), device_output<D>(),
                                         segments_.view(), segments_.partials(), stream());
  }
  std::string details() const override {
    char row_stats[96];
    std::snprintf(row_stats, sizeof row_stats, " avg_row_nnz=%.1f row_nnz_cv=%.2f max_row_nnz=%lld", lengths_.mean,
                  lengths_.variation, static_cast<long long>(lengths_.longest));
    std::string kernel = to_string(plan_.kernel);
    std::string launch = launch_text(launch_);
    const std::string long_rows =
        " long_rows=" + std::to_string(segments_.rows()) + " (over " + std::to_string(plan_.long_row_limit) + " nnz" +
        (segments_.rows() > 0 ? ": " + segments_.details() + ")" : ")");
    switch (plan_.kernel) {
      case SpmvKernel::csr_scalar:
        kernel += long_rows;
        break;
      case SpmvKernel::csr_vector:
        kernel += " threads_per_row=" + std::to_string(plan_.threads_per_row) +
                  (plan_.vector_loads ? " loads=vec16 (scattered columns)"
                                      : kComputedWider<T> ? " loads=scalar" : " loads=scalar (contiguous columns)") +
                  long_rows;
        break;
      case SpmvKernel::csr_row_segments:
        kernel += " loads=vec16 (x too where a vector's columns are neighbours) " + segments_.details();
        launch = "threads=" + std::to_string(kernels::SpmvSegmentShape::kThreads);
        break;
      case SpmvKernel::csr_merge_path: {
        using Tile = kernels::SpmvMergeTile<D>;
        kernel += " items_per_tile=" + std::to_string(Tile::kItems) + " (" + std::to_string(Tile::kThreads) +
                  " threads x " + std::to_string(Tile::kItemsPerThread) + " rows+nonzeros) carry_runs=" +
                  std::to_string(carry_runs_.size()) + " (" + std::to_string(long_carry_runs_) + " over " +
                  std::to_string(kernels::SpmvCarryRuns::kLongTiles) + " tiles, a block each; longest " +
                  std::to_string(longest_carry_run_) + " tiles)";
        launch = "blocks=" + std::to_string(tiles_) + " threads=" + std::to_string(Tile::kThreads);
        break;
      }
    }
    return "kernel=" + kernel + (kComputedWider<T> ? " accumulate=f32 (16-bit values, f32 sums)" : "") +
           (plan_.forced ? " (forced by --spmv-kernel)" : "") + row_stats + " " + launch + " rule: " + plan_.rule;
  }

 private:
  kernels::CsrView matrix_;
  RowLengthStats lengths_;
  SpmvTarget target_;
  SpmvPlan plan_;
  LaunchConfig launch_;
  DeviceRowSegments<Acc> segments_;
  unsigned tiles_ = 0;
  DeviceBuffer<std::int32_t> tile_rows_;
  DeviceBuffer<std::int32_t> tile_nonzeros_;
  DeviceBuffer<Acc> tile_carries_;
  DeviceBuffer<kernels::SpmvCarryRun> carry_runs_;
  unsigned long_carry_runs_ = 0;
  std::int32_t longest_carry_run_ = 0;
};

class CudaKernelsBackend final : public GpuBackend {
 public:
  using GpuBackend::GpuBackend;
  Support supports(Op op, DType) const override { return is_builtin(op) ? Support{} : no_kernel_for(name(), op); }
  std::unique_ptr<Prepared> prepare(const Problem& problem, const BackendSettings& settings) override {
    return dispatch_dtype(problem.dtype, [&](auto tag) -> std::unique_ptr<Prepared> {
      using T = decltype(tag);
      if (op_def(problem.op).elementwise)
        return with_elementwise_function(problem.op, [&](auto function) -> std::unique_ptr<Prepared> {
          return std::make_unique<ElementwiseCase<T, decltype(function)>>(problem, settings);
        });
      if (problem.op == Op::sum) return std::make_unique<SumCase<T>>(problem, settings);
      if (problem.op == Op::matmul) return make_cuda_gemm_case(problem, settings);
      if (problem.op == Op::spmv) return std::make_unique<SpmvCase<T>>(problem, settings);
      throw std::logic_error("cuda backend: no kernel for " + to_string(problem.op) + " " + to_string(problem.dtype));
    });
  }
};

}  // namespace

std::unique_ptr<Backend> make_cuda_kernels_backend(const GpuBackendEntry& entry) {
  return std::make_unique<CudaKernelsBackend>(entry);
}

}  // namespace gpb::cuda
