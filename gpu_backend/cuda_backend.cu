// The "cuda" backend: gpubench's own kernels (kernels/), with the launch policy here.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_backend/cuda_check.cuh"
#include "gpu_backend/cuda_gemm.cuh"
#include "gpu_backend/cuda_types.cuh"
#include "gpu_backend/gpu_backends.cuh"
#include "gpu_backend/gpu_prepared.cuh"
#include "kernels/elementwise.cuh"
#include "kernels/reduce.cuh"
#include "kernels/spmv.cuh"
#include "kernels/spmv_widened.cuh"
#include "op_table.hpp"

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

// Whether a matrix's rows hold runs of neighbouring columns (banded, stencils): most
// neighbouring entries of a row, over a sample of rows, are neighbouring columns.
bool columns_are_contiguous(const CsrMatrix& matrix) {
  constexpr std::int64_t kSampledRows = 4096;
  const std::int64_t step = std::max<std::int64_t>(1, matrix.rows / kSampledRows);
  std::int64_t pairs = 0, neighbours = 0;
  for (std::int64_t row = 0; row < matrix.rows; row += step) {
    const auto begin = static_cast<std::size_t>(matrix.row_ptr[static_cast<std::size_t>(row)]);
    const auto end = static_cast<std::size_t>(matrix.row_ptr[static_cast<std::size_t>(row) + 1]);
    for (std::size_t j = begin + 1; j < end; ++j) {
      ++pairs;
      neighbours += matrix.col_idx[j] == matrix.col_idx[j - 1] + 1;
    }
  }
  return pairs > 0 && 2 * neighbours > pairs;
}

// How the vector kernel runs a matrix; measured on an H200 (L2 flushed, 8M rows of 16 unless
// said otherwise, cuSPARSE CSR_ALG1 in brackets; docs/kernel-notes.md has the full table):
//   - streaming loads of values and indices: f32 random 1312 -> 1183 us; 16-byte loads on
//     top, 1152 us [1163]. f64 random with 16-byte loads: 2196 us at 8 lanes (2 entries per
//     lane) against 2317 us at 16 lanes with plain loads [2240]; 2M rows of 64: 1016 us at
//     16 lanes, 1026 at 32 [1031], hence at most 16 lanes for f64.
//   - contiguous columns (banded): one entry per lane per step and 4 entries per lane, f64
//     428 us against 566 us with 16-byte loads [601], f32 352 against 360 [383].
enum class SpmvKernel { csr_scalar, csr_vector, csr_merge_path };

struct SpmvPlan {
  SpmvKernel kernel = SpmvKernel::csr_scalar;
  int threads_per_row = 1;  // csr_vector
  bool vector_loads = false;
  std::int32_t long_row_limit = 0;
  bool forced = false;  // chosen by --spmv-kernel, not by the row lengths
  std::string rule;     // why, for the details: the rule and this matrix's numbers
};

// The spread of the row lengths, over all rows.
struct RowLengths {
  double mean = 0;
  double variation = 0;  // coefficient of variation: standard deviation / mean
  std::int64_t longest = 0;
};

RowLengths row_lengths(const CsrMatrix& matrix) {
  RowLengths lengths;
  if (matrix.rows == 0) return lengths;
  double sum = 0, sum_of_squares = 0;
  for (std::size_t row = 0; row < static_cast<std::size_t>(matrix.rows); ++row) {
    const std::int64_t length = matrix.row_ptr[row + 1] - matrix.row_ptr[row];
    sum += static_cast<double>(length);
    sum_of_squares += static_cast<double>(length) * static_cast<double>(length);
    lengths.longest = std::max(lengths.longest, length);
  }
  const double rows = static_cast<double>(matrix.rows);
  lengths.mean = sum / rows;
  const double variance = std::max(0.0, sum_of_squares / rows - lengths.mean * lengths.mean);
  lengths.variation = lengths.mean > 0 ? std::sqrt(variance) / lengths.mean : 0.0;
  return lengths;
}

// Splitting by rows leaves each warp as slow as its longest row: where row lengths vary
// more than their mean (power-law: about 2.4, long-tail and skew far more; random, banded,
// blockdiag, wide, tall: 0) and some row is far longer than the mean, the merge-path
// kernel, which splits by rows and nonzeros together, takes the matrix. The second
// condition keeps rows of 0 or 1 entries (coefficient of variation 1 when half are empty,
// either side of it by chance) with the row split: a warp there waits at most for a row
// of one or two entries.
constexpr double kMergePathMinVariation = 1.0;
constexpr double kMergePathMinLongestOverMean = 8.0;
// Rows averaging under 1.5 entries (random at 1, short rows of 0-2) get a thread each: a
// row group of two lanes would leave one idle on most rows. Between 1 and 2 so that the
// mean of 0-2 entry rows (1, give or take a draw) does not flip the choice.
constexpr double kScalarMaxMean = 1.5;

// Splitting by rows. Lanes per row: the smallest power of two from 2 up to the cap that
// leaves at most entries_per_lane entries per lane on an average row; rows averaging
// under kScalarMaxMean entries get a thread each (the scalar kernel). A row more than 32 times as long as
// its row group is sized for goes to the block-per-row kernel: such rows would keep their
// row group, and its block, busy long after the rest of the grid has finished.
template <class T>
SpmvPlan plan_row_split(const CsrMatrix& matrix, double average_row_length) {
  SpmvPlan plan;
  if (average_row_length < kScalarMaxMean) return plan;
  plan.kernel = SpmvKernel::csr_vector;
  const bool contiguous = columns_are_contiguous(matrix);
  plan.vector_loads = !contiguous;
  const double entries_per_lane = contiguous || sizeof(T) == 4 ? 4.0 : 2.0;
  const int max_lanes = contiguous || sizeof(T) == 4 ? 32 : 16;
  plan.threads_per_row = 2;
  while (plan.threads_per_row < max_lanes && average_row_length > entries_per_lane * plan.threads_per_row)
    plan.threads_per_row *= 2;
  plan.long_row_limit = static_cast<std::int32_t>(32 * entries_per_lane * plan.threads_per_row);
  return plan;
}

// --spmv-kernel merge_path or row_split forces that split (for A/B runs and tests); auto
// chooses from the row lengths.
template <class T>
SpmvPlan plan_spmv(const CsrMatrix& matrix, const RowLengths& lengths, SpmvKernelChoice choice) {
  const double longest_over_mean = lengths.mean > 0 ? static_cast<double>(lengths.longest) / lengths.mean : 0.0;
  const bool skewed = lengths.variation > kMergePathMinVariation && longest_over_mean > kMergePathMinLongestOverMean;
  SpmvPlan plan;
  if (choice == SpmvKernelChoice::merge_path || (choice == SpmvKernelChoice::automatic && skewed))
    plan.kernel = SpmvKernel::csr_merge_path;
  else
    plan = plan_row_split<T>(matrix, lengths.mean);
  plan.forced = choice != SpmvKernelChoice::automatic;
  char rule[160];
  std::snprintf(rule, sizeof rule, "merge_path when row_nnz_cv > %.0f and max/avg row nnz > %.0f (here %.2f and %.1f: %s)",
                kMergePathMinVariation, kMergePathMinLongestOverMean, lengths.variation, longest_over_mean,
                skewed ? "skewed" : "not skewed");
  plan.rule = rule;
  return plan;
}

std::vector<std::int32_t> rows_longer_than(const CsrMatrix& matrix, std::int32_t limit) {
  std::vector<std::int32_t> rows;
  for (std::int64_t row = 0; row < matrix.rows; ++row)
    if (matrix.row_ptr[static_cast<std::size_t>(row) + 1] - matrix.row_ptr[static_cast<std::size_t>(row)] > limit)
      rows.push_back(static_cast<std::int32_t>(row));
  return rows;
}

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

template <class T>
DeviceBuffer<T> device_copy(const std::vector<T>& host, const std::string& what) {
  DeviceBuffer<T> buffer(host.size(), what);
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

template <class T>
class SpmvCase final : public GpuPrepared {
 public:
  SpmvCase(const Problem& problem, const BackendSettings& settings)
      : GpuPrepared(problem, settings),
        matrix_{problem.csr->rows, device_row_ptr(), device_col_idx()},
        lengths_(row_lengths(*problem.csr)),
        plan_(plan_spmv<T>(*problem.csr, lengths_, settings.spmv_kernel)),
        launch_(row_group_grid(matrix_.rows, plan_.threads_per_row)) {
    switch (plan_.kernel) {
      case SpmvKernel::csr_scalar:
        break;
      case SpmvKernel::csr_vector:
        long_rows_ = device_copy(rows_longer_than(*problem.csr, plan_.long_row_limit), "spmv long rows");
        break;
      case SpmvKernel::csr_merge_path: {
        const MergePathTiles starts = merge_path_tiles(*problem.csr, kernels::SpmvMergeTile<T>::kItems);
        tiles_ = static_cast<unsigned>(starts.rows.size() - 1);
        tile_rows_ = device_copy(starts.rows, "spmv merge-path tile rows");
        tile_nonzeros_ = device_copy(starts.nonzeros, "spmv merge-path tile nonzeros");
        tile_carries_ = DeviceBuffer<T>(tiles_, "spmv merge-path tile carries");
        const CarryRuns runs = carry_runs(starts.rows, problem.csr->rows);
        carry_runs_ = device_copy(runs.runs, "spmv merge-path carry runs");
        long_carry_runs_ = runs.long_runs;
        longest_carry_run_ = runs.longest;
        break;
      }
    }
  }
  void run() override {
    switch (plan_.kernel) {
      case SpmvKernel::csr_scalar:
        kernels::launch_spmv_scalar<T>(matrix_, device_csr_values<T>(), device_x<T>(), device_output<T>(), launch_,
                                       stream());
        return;
      case SpmvKernel::csr_vector:
        kernels::launch_spmv_vector<T>(plan_.threads_per_row, plan_.vector_loads, matrix_, device_csr_values<T>(),
                                       device_x<T>(), device_output<T>(), plan_.long_row_limit, launch_, stream());
        kernels::launch_spmv_long_rows<T>(long_rows_.data(), static_cast<unsigned>(long_rows_.size()), matrix_,
                                          device_csr_values<T>(), device_x<T>(), device_output<T>(), kBlockThreads,
                                          stream());
        return;
      case SpmvKernel::csr_merge_path:
        kernels::launch_spmv_merge_path<T>(
            matrix_, tile_rows_.data(), tile_nonzeros_.data(), tiles_, device_csr_values<T>(), device_x<T>(),
            device_output<T>(), tile_carries_.data(),
            {carry_runs_.data(), static_cast<unsigned>(carry_runs_.size()), long_carry_runs_}, stream());
        return;
    }
  }
  std::string details() const override {
    char row_stats[96];
    std::snprintf(row_stats, sizeof row_stats, " avg_row_nnz=%.1f row_nnz_cv=%.2f max_row_nnz=%lld", lengths_.mean,
                  lengths_.variation, static_cast<long long>(lengths_.longest));
    std::string kernel;
    std::string launch = launch_text(launch_);
    switch (plan_.kernel) {
      case SpmvKernel::csr_scalar:
        kernel = "csr_scalar";
        break;
      case SpmvKernel::csr_vector:
        kernel = "csr_vector threads_per_row=" + std::to_string(plan_.threads_per_row) +
                 (plan_.vector_loads ? " loads=vec16 (scattered columns)" : " loads=scalar (contiguous columns)") +
                 " long_rows=" + std::to_string(long_rows_.size()) + " (over " +
                 std::to_string(plan_.long_row_limit) + " entries, one block each)";
        break;
      case SpmvKernel::csr_merge_path: {
        using Tile = kernels::SpmvMergeTile<T>;
        kernel = "csr_merge_path items_per_tile=" + std::to_string(Tile::kItems) + " (" +
                 std::to_string(Tile::kThreads) + " threads x " + std::to_string(Tile::kItemsPerThread) +
                 " rows+nonzeros) carry_runs=" + std::to_string(carry_runs_.size()) + " (" +
                 std::to_string(long_carry_runs_) + " over " + std::to_string(kernels::SpmvCarryRuns::kLongTiles) +
                 " tiles, a block each; longest " + std::to_string(longest_carry_run_) + " tiles)";
        launch = "blocks=" + std::to_string(tiles_) + " threads=" + std::to_string(Tile::kThreads);
        break;
      }
    }
    return "kernel=" + kernel + (plan_.forced ? " (forced by --spmv-kernel)" : "") + row_stats + " " + launch +
           " rule: " + plan_.rule;
  }

 private:
  kernels::CsrView matrix_;
  RowLengths lengths_;
  SpmvPlan plan_;
  LaunchConfig launch_;
  DeviceBuffer<std::int32_t> long_rows_;
  unsigned tiles_ = 0;
  DeviceBuffer<std::int32_t> tile_rows_;
  DeviceBuffer<std::int32_t> tile_nonzeros_;
  DeviceBuffer<T> tile_carries_;
  DeviceBuffer<kernels::SpmvCarryRun> carry_runs_;
  unsigned long_carry_runs_ = 0;
  std::int32_t longest_carry_run_ = 0;
};

// f16 and bf16 SpMV: one row-split kernel that multiplies and adds in f32
// (kernels/spmv_widened.cu). Lanes per row as plan_row_split gives f32 (about 4 entries
// per lane, up to 32); a thread per row where rows average under kScalarMaxMean entries. The
// merge-path and long-row kernels are f32/f64 only, so skewed matrices run row split here too.
int widened_lanes_per_row(double average_row_length) {
  if (average_row_length < kScalarMaxMean) return 1;
  int lanes = 2;
  while (lanes < 32 && average_row_length > 4.0 * lanes) lanes *= 2;
  return lanes;
}

template <class T>
class WidenedSpmvCase final : public GpuPrepared {
  using D = DeviceType<T>;

 public:
  WidenedSpmvCase(const Problem& problem, const BackendSettings& settings)
      : GpuPrepared(problem, settings),
        matrix_{problem.csr->rows, device_row_ptr(), device_col_idx()},
        lengths_(row_lengths(*problem.csr)),
        threads_per_row_(widened_lanes_per_row(lengths_.mean)),
        launch_(row_group_grid(matrix_.rows, threads_per_row_)),
        forced_(settings.spmv_kernel == SpmvKernelChoice::row_split) {}
  void run() override {
    kernels::launch_spmv_widened<D>(threads_per_row_, matrix_, device_csr_values<D>(), device_x<D>(), device_output<D>(),
                                    launch_, stream());
  }
  std::string details() const override {
    char row_stats[96];
    std::snprintf(row_stats, sizeof row_stats, " avg_row_nnz=%.1f row_nnz_cv=%.2f max_row_nnz=%lld", lengths_.mean,
                  lengths_.variation, static_cast<long long>(lengths_.longest));
    return "kernel=csr_vector_f32_accumulate threads_per_row=" + std::to_string(threads_per_row_) +
           " (16-bit values, f32 sums; row split only: no merge-path or long-row variant for 16-bit)" +
           (forced_ ? " (forced by --spmv-kernel)" : "") + row_stats + " " + launch_text(launch_);
  }

 private:
  kernels::CsrView matrix_;
  RowLengths lengths_;
  int threads_per_row_;
  LaunchConfig launch_;
  bool forced_;
};

class CudaKernelsBackend final : public GpuBackend {
 public:
  using GpuBackend::GpuBackend;
  Support supports(Op op, DType) const override { return is_builtin(op) ? Support{} : no_kernel_for(name(), op); }
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
          return make_cuda_gemm_case(problem, settings);
        case Op::spmv:
          if constexpr (kComputedWider<T>) {
            if (settings.spmv_kernel == SpmvKernelChoice::merge_path)
              throw std::invalid_argument("--spmv-kernel merge_path: the merge-path kernel runs f32 and f64 only");
            return std::make_unique<WidenedSpmvCase<T>>(problem, settings);
          } else {
            return std::make_unique<SpmvCase<T>>(problem, settings);
          }
      }
      throw std::logic_error("cuda backend: no kernel for " + to_string(problem.op) + " " + to_string(problem.dtype));
    });
  }
};

}  // namespace

std::unique_ptr<Backend> make_cuda_kernels_backend(const GpuBackendEntry& entry) {
  return std::make_unique<CudaKernelsBackend>(entry);
}

}  // namespace gpb::cuda
