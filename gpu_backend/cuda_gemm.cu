#include "gpu_backend/cuda_gemm.cuh"

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "gpu_backend/cuda_check.cuh"
#include "gpu_backend/cuda_types.cuh"
#include "gpu_backend/gpu_prepared.cuh"
#include "kernels/gemm.cuh"
#include "kernels/gemm_dmma.cuh"
#include "kernels/gemm_mma.cuh"
#include "kernels/gemm_narrow.cuh"
#include "kernels/gemm_padding.cuh"
#include "kernels/gemm_short_k.cuh"
#include "kernels/gemm_split_k.cuh"
#include "kernels/gemm_wgmma.cuh"
#include "kernels/gemv.cuh"
#include "measure/gemm_dispatch.hpp"
#include "model/op_table.hpp"

namespace gpb::cuda {
namespace {

// The tiles the dispatch plans with are the kernels' own.
template <class Tile>
constexpr bool same_tile(const GemmTile& planned) {
  return planned.m == Tile::kBlockM && planned.n == Tile::kBlockN && planned.k == Tile::kBlockK;
}
// A SIMT tile as the dispatch plans it: its shape, threads and blocks an SM (for f32 and f64).
template <class Tile>
constexpr bool same_simt_tile(const GemmTile& planned, int threads) {
  return same_tile<Tile>(planned) && Tile::kThreads == threads &&
         kernels::simt_min_blocks_per_sm<float, Tile>() == simt_blocks_per_sm(sizeof(float), threads) &&
         kernels::simt_min_blocks_per_sm<double, Tile>() == simt_blocks_per_sm(sizeof(double), threads);
}
static_assert(same_simt_tile<kernels::GemmTile>(kSimtGemmTile, kSimtThreads) &&
              same_simt_tile<kernels::SmallGemmTile>(kSimtSmallGemmTile, kSimtThreads) &&
              same_simt_tile<kernels::SlimGemmTile>(kSimtSlimGemmTile, kSimtSlimThreads) &&
              same_simt_tile<kernels::WideGemmTile>(kSimtWideGemmTile, kSimtSlimThreads));
// The DMMA tiles, each with the blocks an SM its launch bounds ask for.
template <class Tile>
constexpr bool same_dmma_tile(const GemmTile& planned, int blocks_per_sm) {
  return same_tile<Tile>(planned) && Tile::kBlocksPerSm == blocks_per_sm;
}
static_assert(same_dmma_tile<kernels::DmmaGemmTile<kernels::DmmaShape::m16n8k16>>(kDmmaGemmTile, 1) &&
              same_dmma_tile<kernels::DmmaGemmTile<kernels::DmmaShape::m8n8k4>>(kDmmaShallowGemmTile, 1) &&
              same_dmma_tile<kernels::DmmaGemmTile<kernels::DmmaShape::m16n8k16, kernels::DmmaTileSize::medium>>(
                  kDmmaMediumGemmTile, kDmmaMediumBlocksPerSm) &&
              same_dmma_tile<kernels::DmmaGemmTile<kernels::DmmaShape::m8n8k4, kernels::DmmaTileSize::medium>>(
                  kDmmaShallowMediumGemmTile, kDmmaMediumBlocksPerSm) &&
              same_dmma_tile<kernels::DmmaGemmTile<kernels::DmmaShape::m16n8k16, kernels::DmmaTileSize::small>>(
                  kDmmaSmallGemmTile, kDmmaSmallBlocksPerSm) &&
              same_dmma_tile<kernels::DmmaGemmTile<kernels::DmmaShape::m8n8k4, kernels::DmmaTileSize::small>>(
                  kDmmaShallowSmallGemmTile, kDmmaSmallBlocksPerSm) &&
              same_dmma_tile<kernels::DmmaGemmTile<kernels::DmmaShape::m16n8k16, kernels::DmmaTileSize::skinny>>(
                  kDmmaSkinnyGemmTile, kDmmaSkinnyBlocksPerSm) &&
              same_dmma_tile<kernels::DmmaGemmTile<kernels::DmmaShape::m8n8k4, kernels::DmmaTileSize::skinny>>(
                  kDmmaShallowSkinnyGemmTile, kDmmaSkinnyBlocksPerSm));
static_assert(same_tile<kernels::WgmmaGemmTile>(kWgmmaGemmTile) &&
              same_tile<kernels::WgmmaHalfGemmTile>(kWgmmaHalfGemmTile) &&
              same_tile<kernels::WgmmaNarrowGemmTile>(kWgmmaNarrowGemmTile) &&
              same_tile<kernels::WgmmaNarrowHalfGemmTile>(kWgmmaNarrowHalfGemmTile) &&
              same_tile<kernels::MmaGemmTile>(kMmaSyncGemmTile));
static_assert(kernels::GemvTile::kWarps == kGemvWarps && kernels::GemvTile::kMaxRows<float> == kVectorMatrixMaxRows &&
              kernels::GemvTile::kMaxRows<double> == kVectorMatrixMaxRows &&
              kernels::GemvTile::kMaxRows<__half> == kSixteenBitUnalignedVectorMatrixRows &&
              kernels::GemvTile::kMaxRows<__nv_bfloat16> == kSixteenBitUnalignedVectorMatrixRows &&
              kernels::GemvTile::kRowsPerBlock == kMatrixVectorRows &&
              kernels::GemvTile::kMaxColumns<float> == kMatmulVectorMaxSide &&
              kernels::GemvTile::kMaxColumns<double> == kMatmulVectorMaxSide &&
              kernels::GemvTile::kMaxColumns<__half> == kSixteenBitVectorMaxSide &&
              kernels::GemvTile::kMaxColumns<__nv_bfloat16> == kSixteenBitVectorMaxSide);
// The matrix_vector tile depths, kernel and dispatch alike, for each element type and load width.
template <class T>
constexpr bool same_matrix_vector_tile_k() {
  return kernels::GemvTile::kTileK<T, true> == matrix_vector_tile_k(sizeof(T), true) &&
         kernels::GemvTile::kTileK<T, false> == matrix_vector_tile_k(sizeof(T), false);
}
// ... and where matrix_vector reads B without its tile.
template <class T>
constexpr bool same_direct_b() {
  for (int n = 1; n <= kernels::GemvTile::kMaxColumns<T>; ++n)
    for (bool vectorized : {false, true})
      if (kernels::GemvTile::reads_b_directly<T>(vectorized, n) !=
          matrix_vector_reads_b_directly(sizeof(T), vectorized, n))
        return false;
  return true;
}
static_assert(same_matrix_vector_tile_k<float>() && same_matrix_vector_tile_k<double>() &&
              same_matrix_vector_tile_k<__half>() && same_matrix_vector_tile_k<__nv_bfloat16>());
static_assert(same_direct_b<float>() && same_direct_b<double>() && same_direct_b<__half>() &&
              same_direct_b<__nv_bfloat16>());
static_assert(kernels::NarrowGemmTile::kRows == kNarrowGemmTile.m &&
              kernels::NarrowGemmTile::kMaxColumns == kNarrowGemmTile.n &&
              kernels::NarrowGemmTile::kStageK == kNarrowGemmTile.k && kNarrowMaxColumns == kNarrowGemmTile.n &&
              kernels::NarrowGemmTile::kChunk == kNarrowSplitStep &&
              kernels::NarrowGemmTile::kBlocksPerSm == kNarrowBlocksPerSm);
static_assert(kernels::NarrowF64GemmTile::kRows == kNarrowF64GemmTile.m &&
              kernels::NarrowF64GemmTile::kMaxColumns == kNarrowF64GemmTile.n &&
              kernels::NarrowF64GemmTile::kStageK == kNarrowF64GemmTile.k &&
              kernels::NarrowF64GemmTile::kBlocksPerSm == kNarrowF64BlocksPerSm);
// The short-k kernel's block as the dispatch plans it, and k up to the dispatch's threshold.
template <class D>
constexpr bool same_short_k_tile() {
  using Tile = kernels::ShortKTile<D>;
  return Tile::kMaxK >= short_k_max_depth(sizeof(D)) && Tile::kThreads == kShortKThreads && Tile::kMaxColumnThreads == kShortKMaxColumnThreads &&
         Tile::kRows == short_k_thread_rows(sizeof(D)) && Tile::kVector * sizeof(D) == 16 &&
         Tile::block_columns(Tile::kMinColumnThreads) == 32;
}
static_assert(same_short_k_tile<float>() && same_short_k_tile<double>() && same_short_k_tile<__half>() &&
              same_short_k_tile<__nv_bfloat16>());

std::string shared_memory_text(std::size_t needed, const DeviceLimits& limits) {
  return std::to_string(needed / 1024) + " KiB of shared memory per block, this device allows " +
         std::to_string(limits.shared_bytes_per_block_optin / 1024) + " KiB";
}

// Why the f64 GEMM cannot run on this device's FP64 tensor cores (DMMA, from sm_80 on), or
// nothing when it can. Some sm_8x and sm_12x parts (GeForce, RTX) allow 99 KiB of shared
// memory per block, too little for the kernel's three stages.
std::optional<std::string> dmma_unavailable(const DeviceLimits& limits) {
  if (limits.compute_capability < 80) return "no FP64 tensor cores below sm_80";
  using Tile = kernels::DmmaGemmTile<kernels::DmmaShape::m8n8k4>;  // the larger m8n8k4 tile; m16n8k16 needs more
  if (limits.shared_bytes_per_block_optin < Tile::kSharedBytes)
    return "the DMMA kernel needs " + shared_memory_text(Tile::kSharedBytes, limits);
  return std::nullopt;
}

// Why the 16-bit GEMM cannot run the mma.sync kernel (gemm_mma.cu) here, or nothing when it can.
std::optional<std::string> mma_unavailable(const DeviceLimits& limits) {
  if (limits.compute_capability < 80) return "mma_gemm needs sm_80 or newer";
  using Tile = kernels::MmaGemmTile;
  if (limits.shared_bytes_per_block_optin < Tile::kSharedBytes)
    return "mma_gemm needs " + shared_memory_text(Tile::kSharedBytes, limits);
  return std::nullopt;
}

// Why the 16-bit GEMM cannot run the wgmma kernel (gemm_wgmma.cu) here, or nothing when it
// can; the mma.sync kernel runs it then. wgmma is sm_90's alone (Blackwell's tensor cores
// take other instructions), and only code compiled for sm_90a has it.
std::optional<std::string> wgmma_unavailable(const DeviceLimits& limits) {
  if (limits.compute_capability != 90) return "wgmma_gemm needs sm_90";
  using Tile = kernels::WgmmaGemmTile;
  if (limits.shared_bytes_per_block_optin < Tile::kSharedBytes)
    return "wgmma_gemm needs " + shared_memory_text(Tile::kSharedBytes, limits);
  if (!kernels::wgmma_gemm_compiled_in()) return "wgmma_gemm needs sm_90a code, which this build lacks";
  return std::nullopt;
}

// The device facts the dispatch needs for dtype T (only T's own kernels are probed).
template <class T>
GemmDevice gemm_device(const DeviceLimits& limits) {
  GemmDevice device;
  device.sm_count = limits.sm_count;
  if constexpr (kComputedWider<T>) {
    device.no_mma = mma_unavailable(limits);
    device.no_wgmma = wgmma_unavailable(limits);
  } else if constexpr (std::is_same_v<T, double>) {
    device.no_dmma = dmma_unavailable(limits);
    device.dmma_m16n8k16 =
        !device.no_dmma && kernels::dmma_shape_for_current_device(limits.compute_capability,
                                                                  limits.shared_bytes_per_block_optin) ==
                               kernels::DmmaShape::m16n8k16;
  }
  return device;
}

std::string tile_text(const GemmTile& tile) {
  return std::to_string(tile.m) + "x" + std::to_string(tile.n) + "x" + std::to_string(tile.k);
}

// A SIMT tile's outputs a thread and depth of k a stage for element type D:
// "thread_tile=8x8 stage_depth=16".
template <class Tile, class D>
std::string simt_thread_text() {
  return "thread_tile=" + std::to_string(Tile::kThreadM) + "x" + std::to_string(Tile::kThreadN) +
         " stage_depth=" + std::to_string(kernels::simt_stage_depth<kernels::Accumulate<D>, Tile>());
}

template <class T>
DeviceBuffer<T> buffer_if(bool needed, std::int64_t count, const std::string& what) {
  return needed ? DeviceBuffer<T>(static_cast<std::size_t>(count), what) : DeviceBuffer<T>();
}

template <class T>
class GemmCase final : public GpuPrepared {
  using D = DeviceType<T>;
  using Acc = kernels::Accumulate<D>;

 public:
  GemmCase(const Problem& problem, const BackendSettings& settings)
      : GpuPrepared(problem, settings),
        dims_(matmul_dimensions(problem.shape)),
        plan_(plan_gemm(problem.dtype, dims_.m, dims_.n, dims_.k, gemm_device<T>(limits()))),
        partials_(buffer_if<Acc>(plan_.splits > 1, std::int64_t{plan_.splits} * dims_.m * plan_.n_kernel,
                                 "matmul split-k partials")),
        padded_a_(buffer_if<D>(plan_.stage_a, std::int64_t{dims_.m} * plan_.lda, "matmul A padded to 16-byte rows")),
        padded_b_(buffer_if<D>(plan_.stage_b, std::int64_t{dims_.k} * plan_.ldb, "matmul B padded to 16-byte rows")),
        arrivals_(buffer_if<unsigned>(plan_.splits > 1 && sums_own_partials(),
                                      kernels::GemvTile::arrival_counters<D>(plan_.kernel == GemmKernel::vector_matrix,
                                                                             static_cast<int>(dims_.m),
                                                                             static_cast<int>(dims_.n), plan_.vector_width),
                                      "matmul split-k arrival counters")) {
    // Zero once; each launch leaves its counters at zero again.
    if (arrivals_.size() > 0) GPB_CUDA_CHECK(cudaMemsetAsync(arrivals_.data(), 0, arrivals_.bytes(), stream()));
    if (plan_.kernel == GemmKernel::dmma) kernels::configure_gemm_dmma(dmma_shape());
    if (plan_.kernel == GemmKernel::mma_sync) kernels::configure_gemm_mma();
    if (plan_.kernel == GemmKernel::wgmma) wgmma_grid_ = kernels::configure_gemm_wgmma();
  }

  // The padded copies (operands whose rows are not whole 16-byte chunks, for the kernels that
  // read whole chunks), the kernel, then the sum of split k's partials (the matrix-vector
  // kernels add their own, in the last block of each piece to finish): all of it is the timed op.
  void run() override {
    const D* a = device_a<D>();
    const D* b = device_b<D>();
    kernels::PaddedCopy<D> copies[2];
    int count = 0;
    if (plan_.stage_a) {
      copies[count++] = {a, padded_a_.data(), dims_.m, dims_.k, int_lda()};
      a = padded_a_.data();
    }
    if (plan_.stage_b) {
      copies[count++] = {b, padded_b_.data(), dims_.k, dims_.n, int_ldb()};
      b = padded_b_.data();
    }
    if (count > 0) kernels::launch_padded_copies(copies, count, stream());
    Acc* partials = plan_.splits > 1 ? partials_.data() : nullptr;
    multiply(a, b, device_output<D>(), partials, count > 0);
    if (partials && !sums_own_partials())
      kernels::launch_add_partials(partials, plan_.splits, dims_.m, dims_.n, plan_.n_kernel, device_output<D>(), dims_.n,
                                   stream());
  }

  std::string details() const override {
    std::string text = std::string("kernel=") + gemm_kernel_name(plan_.kernel) + " (" + description() +
                       (plan_.fallback.empty() ? "" : "; " + plan_.fallback) + ") " + geometry();
    if (plan_.splits > 1) text += " split_k=" + std::to_string(plan_.splits) + "x" + std::to_string(plan_.split_k);
    return text + " global_access=" + (plan_.vectorized ? "vec16" : "scalar") + " rule: " + plan_.rule;
  }

 private:
  // The matrix-vector kernels add their split k's partials themselves.
  bool sums_own_partials() const {
    return plan_.kernel == GemmKernel::vector_matrix || plan_.kernel == GemmKernel::matrix_vector;
  }
  int int_lda() const { return static_cast<int>(plan_.lda); }
  int int_ldb() const { return static_cast<int>(plan_.ldb); }
  int n_kernel() const { return static_cast<int>(plan_.n_kernel); }
  int split_k() const { return static_cast<int>(plan_.split_k); }
  // The SIMT kernel's tile, as planned.
  kernels::SimtTile simt_tile() const {
    if (same_tile<kernels::SmallGemmTile>(plan_.tile)) return kernels::SimtTile::small;
    if (same_tile<kernels::SlimGemmTile>(plan_.tile)) return kernels::SimtTile::slim;
    if (same_tile<kernels::WideGemmTile>(plan_.tile)) return kernels::SimtTile::wide;
    return kernels::SimtTile::large;
  }
  // The DMMA kernel's instruction shape, which its planned tile's depth follows, and its tile size.
  kernels::DmmaShape dmma_shape() const {
    return plan_.tile.k == kDmmaGemmTile.k ? kernels::DmmaShape::m16n8k16 : kernels::DmmaShape::m8n8k4;
  }
  kernels::DmmaTileSize dmma_tile_size() const {
    return plan_.tile.m == kDmmaSmallGemmTile.m    ? kernels::DmmaTileSize::small
           : plan_.tile.m == kDmmaSkinnyGemmTile.m ? kernels::DmmaTileSize::skinny
           : plan_.tile.n == kDmmaMediumGemmTile.n ? kernels::DmmaTileSize::medium
                                                   : kernels::DmmaTileSize::large;
  }
  // The wgmma kernel's consumer warpgroups: one for its 64-row tiles, two for the 128-row ones
  // (0 for any other m, which launch_gemm_wgmma rejects); its tile's width is plan_.tile.n.
  int wgmma_consumers() const {
    static_assert(kWgmmaHalfGemmTile.m == kWgmmaNarrowHalfGemmTile.m && kWgmmaGemmTile.m == kWgmmaNarrowGemmTile.m);
    return plan_.tile.m == kWgmmaHalfGemmTile.m ? 1 : plan_.tile.m == kWgmmaGemmTile.m ? 2 : 0;
  }

  // after_copies: padded copies of A or B were launched just before, on the same stream.
  void multiply(const D* a, const D* b, D* c, Acc* partials, bool after_copies) {
    switch (plan_.kernel) {
      case GemmKernel::short_k:
        kernels::launch_gemm_short_k<D>(plan_.tile.n, plan_.vectorized, dims_.m, dims_.n, dims_.k, a, b, c, stream());
        return;
      case GemmKernel::vector_matrix:
        kernels::launch_vector_matrix<D>(plan_.vector_width, plan_.vectorized, dims_.m, dims_.n, dims_.k, a, b, c,
                                         partials, plan_.splits, split_k(), arrivals_.data(), stream());
        return;
      case GemmKernel::matrix_vector:
        kernels::launch_matrix_vector<D>(plan_.vector_width, plan_.vectorized, dims_.m, dims_.n, dims_.k, a, b, c,
                                         partials, plan_.splits, split_k(), arrivals_.data(), stream());
        return;
      default:
        break;
    }
    if constexpr (kComputedWider<T>) {
      if (plan_.kernel == GemmKernel::narrow) {
        kernels::launch_gemm_narrow<D>(plan_.vector_width, plan_.vectorized, dims_.m, dims_.n, dims_.k, a, b, c,
                                       partials, plan_.splits, split_k(), stream());
        return;
      }
      if (plan_.kernel == GemmKernel::simt) {  // rows not whole chunks, a small product: one part, element-wise
        kernels::launch_gemm_widened<D>(dims_.m, dims_.n, dims_.k, a, b, c, simt_tile(), stream());
        return;
      }
      // C is dims_.n wide, its rows dims_.n apart (GemmOperands::c_columns and ldc).
      const kernels::GemmOperands<D> operands{dims_.m, n_kernel(), dims_.k, int_lda(), int_ldb(),
                                              dims_.n, dims_.n, a, b, c, plan_.splits, split_k(), partials};
      if (plan_.kernel == GemmKernel::wgmma)
        kernels::launch_gemm_wgmma(operands, wgmma_consumers(), plan_.tile.n, plan_.cluster_m, wgmma_grid_,
                                   stream(), after_copies, &wgmma_maps_);
      else
        kernels::launch_gemm_mma(operands, stream());
    } else {
      // f32 and f64 sum in their own type: the partials are a workspace of C's type.
      D* out = partials ? partials : c;
      if constexpr (std::is_same_v<T, double>) {
        if (plan_.kernel == GemmKernel::narrow) {
          kernels::launch_gemm_narrow_f64(plan_.vector_width, plan_.vectorized, dims_.m, dims_.n, dims_.k, a, b, out,
                                          plan_.splits, split_k(), stream());
          return;
        }
        if (plan_.kernel == GemmKernel::dmma) {
          kernels::launch_gemm_dmma(dmma_shape(), dmma_tile_size(), dims_.m, dims_.n, dims_.k, a, b, out,
                                    plan_.vectorized, plan_.splits, split_k(), stream());
          return;
        }
      }
      kernels::launch_gemm<D>(dims_.m, dims_.n, dims_.k, int_lda(), int_ldb(), a, b, out, plan_.vectorized, simt_tile(),
                              plan_.splits, split_k(), stream());
    }
  }

  // What the kernel is, after its name.
  std::string description() const {
    switch (plan_.kernel) {
      case GemmKernel::vector_matrix:
      case GemmKernel::matrix_vector:
        return std::string("memory-bound, CUDA-core FMA") + (kComputedWider<T> ? ", f32 accumulation" : "");
      case GemmKernel::short_k:
        return std::string("bound by writing C, CUDA-core FMA") + (kComputedWider<T> ? ", f32 accumulation" : "");
      case GemmKernel::simt:
        return kComputedWider<T> ? "CUDA-core FMA, f32 accumulation, elements read one at a time"
                                 : "CUDA-core FMA; no TF32 path";
      case GemmKernel::dmma:
        return std::string("FP64 tensor cores, mma.sync ") + kernels::dmma_shape_name(dmma_shape());
      case GemmKernel::wgmma:
        return "tensor cores, wgmma m64n" + std::to_string(plan_.tile.n) + "k16, f32 accumulation";
      case GemmKernel::mma_sync:
        return "tensor cores, mma.sync m16n8k16, f32 accumulation";
      case GemmKernel::narrow:
        return std::is_same_v<T, double> ? "bound by reading A, FP64 tensor cores, mma.sync m16n8k16"
                                         : "bound by reading A, tensor cores, mma.sync m16n8k16, f32 accumulation";
    }
    return "";
  }

  // The kernel's tile and launch shape.
  std::string geometry() const {
    switch (plan_.kernel) {
      case GemmKernel::vector_matrix:
        return "block=" + std::to_string(plan_.tile.n) + " columns x " + std::to_string(plan_.vector_width) +
               " rows of A (8 warps along k)";
      case GemmKernel::matrix_vector:
        return "block=" + std::to_string(plan_.tile.m) + " rows of A, " + std::to_string(plan_.vector_width) +
               " columns of B (tiles of " + std::to_string(plan_.tile.k) + " rows in shared memory)";
      case GemmKernel::short_k:
        return "block_tile=" + tile_text(plan_.tile) + " thread_tile=" +
               std::to_string(kernels::ShortKTile<D>::kRows) + "x" + std::to_string(kernels::ShortKTile<D>::kVector) +
               " (A and B tiles in shared memory, all of k)";
      case GemmKernel::simt:
        return "block_tile=" + tile_text(plan_.tile) + " " +
               (simt_tile() == kernels::SimtTile::small  ? simt_thread_text<kernels::SmallGemmTile, D>()
                : simt_tile() == kernels::SimtTile::slim ? simt_thread_text<kernels::SlimGemmTile, D>()
                : simt_tile() == kernels::SimtTile::wide ? simt_thread_text<kernels::WideGemmTile, D>()
                                                         : simt_thread_text<kernels::GemmTile, D>());
      case GemmKernel::dmma:
        return "block_tile=" + tile_text(plan_.tile) +
               (dmma_tile_size() == kernels::DmmaTileSize::small    ? " warp_tile=32x32"
                : dmma_tile_size() == kernels::DmmaTileSize::skinny ? " warp_tile=16x32"
                                                                    : " warp_tile=64x32") +
               " stages=" + std::to_string(kernels::dmma_tile_stages(dmma_tile_size())) + " (cp.async)";
      case GemmKernel::wgmma:
        return "block_tile=" + tile_text(plan_.tile) + " stages=" + std::to_string(kernels::WgmmaGemmTile::kStages) +
               " cluster=" + std::to_string(plan_.cluster_m) + "x1 (TMA" +
               (plan_.cluster_m > 1 ? " with B multicast" : "") +
               ", warp-specialized, persistent: " +
               std::to_string(wgmma_grid_.clusters(wgmma_consumers(), plan_.tile.n, plan_.cluster_m)) + " clusters" +
               (plan_.stage_a || plan_.stage_b ? "; launched while the padded copies run, its loads after them" : "") +
               ")";
      case GemmKernel::narrow:
        return "block=" + std::to_string(plan_.tile.m) + " rows of A (16 a warp, read into registers), " +
               std::to_string(plan_.vector_width) + " columns of B (stages of " + std::to_string(plan_.tile.k) +
               " rows in shared memory, transposed)";
      case GemmKernel::mma_sync:
        return "block_tile=" + tile_text(plan_.tile) + " warp_tile=64x64 stages=" +
               std::to_string(kernels::MmaGemmTile::kStages) + " (cp.async, swizzled shared layout, ldmatrix)";
    }
    return "";
  }

  MatmulDimensions dims_;
  GemmPlan plan_;
  DeviceBuffer<Acc> partials_;
  DeviceBuffer<D> padded_a_, padded_b_;
  DeviceBuffer<unsigned> arrivals_;
  kernels::WgmmaGrid wgmma_grid_;
  kernels::WgmmaMaps wgmma_maps_;  // the operands' TMA descriptors, encoded on the first launch
};

}  // namespace

std::unique_ptr<Prepared> make_cuda_gemm_case(const Problem& problem, const BackendSettings& settings) {
  return dispatch_dtype(problem.dtype, [&](auto tag) -> std::unique_ptr<Prepared> {
    return std::make_unique<GemmCase<decltype(tag)>>(problem, settings);
  });
}

}  // namespace gpb::cuda
