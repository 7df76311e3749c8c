#include "measure/gemm_dispatch.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "base/text.hpp"
#include "model/op_table.hpp"

namespace gpb {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t round_up(std::int64_t a, std::int64_t b) { return ceil_div(a, b) * b; }

constexpr int kVectorMatrixStep = 8 * kGemvWarps;
// vector_matrix's groups of rows (plan_matrix_vector): B at most this large (L2-sized on an
// A100, H100 or H200, each group reading it), the last block's sum of parts at most this many
// rounds of kVectorMatrixSumParts parts' loads (kernels/gemv.cu, add_entry_partials).
constexpr std::int64_t kVectorMatrixGroupBytes = std::int64_t{32} << 20;
constexpr std::int64_t kVectorMatrixSumRounds = 4;
constexpr std::int64_t kVectorMatrixSumParts = 16;
// Blocks of the matrix-vector kernels in flight per SM (two for most of their variants).
constexpr int kGemvBlocksPerSm = 2;

int power_of_two_at_least(std::int64_t value, int cap) {
  int width = 1;
  while (width < value && width < cap) width *= 2;
  return width;
}

std::string str(std::int64_t value) { return std::to_string(value); }

// The blocks the device holds at once of the plan's kernel.
std::int64_t blocks_in_flight(const GemmPlan& plan, const GemmDevice& device) {
  return static_cast<std::int64_t>(device.sm_count) * plan.blocks_per_sm;
}

// The matrix-vector kernels split k where fewer than `min_pieces` output pieces would leave
// SMs without work: into as many parts as one wave of the device's blocks in flight holds (a
// second, partial wave would take as long as the first), no part shallower than one step
// (`step`: the tile's depth where 0).
// Their partials are a few columns or rows: next to the operand they stream, nothing.
void split_k(GemmPlan& plan, std::int64_t k, std::int64_t min_pieces, const GemmDevice& device,
             std::int64_t step = 0) {
  const std::int64_t granule = step > 0 ? step : plan.tile.k;
  const std::int64_t slots = blocks_in_flight(plan, device);
  plan.splits = 1;
  plan.split_k = round_up(k, granule);
  if (plan.pieces >= min_pieces) return;
  const std::int64_t parts = std::min(slots / plan.pieces, k / granule);
  if (parts < 2) return;
  plan.split_k = round_up(ceil_div(k, parts), granule);
  plan.splits = static_cast<int>(ceil_div(k, plan.split_k));
}

// The tiled kernels' split is priced rather than taken wherever SMs idle: a part saves the
// steps of k it does not walk, and costs a second launch plus its partial of C, written once
// and read once by the sum. Prices in seconds from an H100's figures (kernel-notes.md): each
// kernel's measured rate per SM, its blocks' rate when they hold an SM alone, the copy
// bandwidth and the latency a second launch adds. Other devices differ in scale more than in
// the order of the choices.
struct SplitPrice {
  double rate_per_sm = 0;    // flop/s of one SM holding its blocks in flight
  double solo_fraction = 1;  // of that rate, for an SM with fewer blocks (in proportion, at least this)
};

constexpr double kSplitLaunchSeconds = 2.5e-6;
// A split must price at least this much below the whole k: the prices are estimates.
constexpr double kSplitMinSaving = 0.1;
constexpr double kSplitBytesPerSecond = 3.0e12;
// The sum of partials (kernels/gemm_split_k.cu) loads each entry's parts 8 at a time, then adds
// them in order: with a small C its few threads wait out one load latency a batch, whatever
// the bytes (f64 43 x 63 x 6456 in 202 parts of 32 took 46.5 us on an H200, against cuBLAS's
// 21.2, its sum a chain of 202 loads). A batch priced at an L2 load's latency.
constexpr double kSumBatchSeconds = 0.5e-6;
constexpr int kSumBatchParts = 8;

// The SIMT kernel's tiles: each one's rate per SM as a fraction of the large tile's, and of
// that the element-wise variant's (the blocks an SM needs in flight for a tile:
// simt_blocks_per_sm). Measured on an H200 (kernel-notes.md, GEMM version 10), each tile alone
// with its best split: the large tile's rate at 4096^3 (f32 45.2 TFLOP/s, 0.34 an SM); there the
// small tile ran at 0.74 of the large one's rate and the slim one at 0.85; at 4097^3,
// element-wise against padded copies of A and B (the copies' time included), the large tile at
// 0.73, the small one at 0.88 and the slim one at 0.80 (the element-wise variants of the large
// and slim tiles spill under the register cap of their blocks an SM). A lone block runs at the
// solo fraction of its SM's rate: 0.6 for the 8-warp tiles, 0.41 for the slim tile's 4 warps
// (1000 x 333 x 77, a block an SM, the same work a block: slim 14.5 us against small 10.4).
// The wide tile (32 x 128), the slim one's mirror for C of few rows, is priced at the slim
// tile's rate, its element-wise variant at the large tile's fraction (ptxas, CUDA 13.0, sm_90a:
// 120 bytes of spill under the register cap, as the large tile's 152, where the slim tile
// spills 12), and only for a C of at most 32 rows (max_m), where the 64-row tiles multiply 2 to
// 4 times the rows needed. On an H100 it ran the shapes it takes 1.28-1.98x faster than the
// 64 x 64 tile (23 x 4056 x 12268 103 against 205 us; kernel-notes.md, GEMM version 24); the
// rates were not refitted.
struct SimtTileModel {
  GemmTile tile;
  int threads;
  double rate_fraction;
  double element_wise_fraction;
  double solo_fraction;
  std::int64_t max_m = 0;  // priced only for a C of at most this many rows (0: any)
};
constexpr SimtTileModel kSimtTiles[] = {{kSimtGemmTile, kSimtThreads, 1.0, 0.73, 0.6},
                                        {kSimtSmallGemmTile, kSimtThreads, 0.74, 0.88, 0.6},
                                        {kSimtSlimGemmTile, kSimtSlimThreads, 0.85, 0.80, 0.41},
                                        {kSimtWideGemmTile, kSimtSlimThreads, 0.85, 0.73, 0.41, 32}};

// The tensor-core kernels' tiles, each priced the same way: its rate an SM as a fraction of
// the kernel's large tile's, its blocks an SM and the fraction of its SM's rate a lone block
// runs at. `tile` is the m16n8k16 (DMMA) tile, `shallow_tile` the m8n8k4 one (the same for wgmma).
// A tile whose rate holds only for a C of at most `max_m` rows is priced only there (0: any m);
// one measured only where its tiles fill every block in flight (full_waves_only) only there,
// and only with the m16n8k16 DMMA shape where it says so (deep_only).
struct TensorTileModel {
  GemmTile tile;
  GemmTile shallow_tile;
  int blocks_per_sm;
  double rate_fraction;
  double solo_fraction;
  std::int64_t max_m = 0;
  bool full_waves_only = false;
  bool deep_only = false;
};
// DMMA: the large tile's 0.36 TFLOP/s an SM (H100, 4096^3, kernel-notes.md) and its one block an
// SM. The small tile, measured on an H200 against the large one (kernel-notes.md, GEMM version
// 18): 0.94 of its rate at 4096^3 and 0.92 at 2048^3, two blocks an SM; a lone small block
// (1000 x 333 x 77: 96 blocks for 132 SMs, 14.4 us against 25.3 us for 24 large tiles) at about
// half its SM's rate.
// The skinny tile (16 x 128, C of few rows) streams B: on an H200 16 x 8192 x 8192 in 2 parts (a
// block on each of 128 SMs) took 134.9 us, B at 95 % of the copy rate, and in 4 parts (two an SM)
// 142.6 with the partials' sum, so an SM's rate is the same with one block or two (solo 1) and
// is 0.345 of the large tile's (4 flops a byte of B at the copy rate, an SM's share). That rate is
// a C of one row tile's, bound by streaming B; with more rows each row tile would stream B again
// (32 x 8192 x 8192: 213 us against the 64 x 64 tile's 199), and on small products its many
// blocks would price below tiles whose rate it was never measured against, so it is priced only
// for C of at most 16 rows.
// The medium tile (128 x 64, the large tile's warp tile, two blocks an SM), measured on an H200
// against the large one (GEMM version 20): 1.036 of its rate at 4096^3 (2721 against 2818 us) and
// 1.064 at 8192^3, level at 2048^3. Those products fill every block in flight with tiles; it is
// priced only where its tiles do (with few tiles its split was never measured against the large
// and small tiles', and a C of 64 rows would leave half its warps idle), nor with m8n8k4 (A100).
// Its solo fraction, as the small tile's, then never applies.
constexpr TensorTileModel kDmmaTiles[] = {
    {kDmmaGemmTile, kDmmaShallowGemmTile, 1, 1.0, 1.0},
    {kDmmaMediumGemmTile, kDmmaShallowMediumGemmTile, kDmmaMediumBlocksPerSm, 1.04, 0.5, 0, true, true},
    {kDmmaSmallGemmTile, kDmmaShallowSmallGemmTile, kDmmaSmallBlocksPerSm, 0.93, 0.5},
    {kDmmaSkinnyGemmTile, kDmmaShallowSkinnyGemmTile, kDmmaSkinnyBlocksPerSm, 0.345, 1.0, kDmmaSkinnyGemmTile.m}};
constexpr double kDmmaRatePerSm = 0.36e12;
// wgmma: the large tile's 5.7 TFLOP/s an SM (H100, 8192^3). The half tile (one consumer
// warpgroup, one block an SM), measured on an H200 against the large one (GEMM version 18):
// 0.81 of its rate where both fill whole waves (4096^3 216 against 175 us, 2048 x 8192 x 1000 67
// against 54); ahead where the large tiles are few (1024^3 10.4 against 15.1 us, 1024 x 1024 x
// 4096 25.5 against 42.4), behind where twice the tiles take a second wave (16384 x 128 x 1024
// 37.3 against 23.0), as this model prices them.
// The 128-wide tiles (m64n128k16), measured on an H200 against the 128 x 256 one (GEMM version 19):
// 128 x 128 at 0.80 of its rate at 4096^3 (221 against 178 us) and 0.73-0.84 at 8192^3 (single
// launches, back to back); ahead where a C of 128 or 384 columns would pad the 256-wide tiles
// (16384 x 128 x 1024 12.1 against 23.0 us back to back, 2048 x 384 x 2048 14.9 against 24.3). The
// 64 x 128 tile (one consumer) at 0.56 (4096^3 326 against 184 us), ahead where the others are few
// (1024^3 8.6 against 10.1 for 128 x 128; 512^3 6.2 against 7.5; 3000 x 256 x 200 5.9 against 6.8
// for 64 x 256), behind where its tiles take a second wave and the 128 x 128 ones do not (9000 x
// 120 x 200 8.6 against 7.6).
constexpr TensorTileModel kWgmmaTiles[] = {{kWgmmaGemmTile, kWgmmaGemmTile, 1, 1.0, 1.0},
                                           {kWgmmaHalfGemmTile, kWgmmaHalfGemmTile, 1, 0.81, 1.0},
                                           {kWgmmaNarrowGemmTile, kWgmmaNarrowGemmTile, 1, 0.80, 1.0},
                                           {kWgmmaNarrowHalfGemmTile, kWgmmaNarrowHalfGemmTile, 1, 0.56, 1.0}};
constexpr double kWgmmaRatePerSm = 5.7e12;
// Rule 5's choice for 16-bit rows that are not whole 16-byte chunks, between the padded wgmma
// path and the SIMT tiles widened to f32, priced from an H200's graph timings (GPU only;
// kernel-notes.md, GEMM version 22). The wgmma path took 4.7 us at 1000 x 336 x 81 (A padded)
// and 7.7-8.2 us at 1000 x 333 x 77, 555 x 777 x 99, 300 x 301 x 100 and 830 x 383 x 16 (B
// padded, C stored element by element), where its tiles price under 2 us and its copies 2.5-2.7:
// a start of 1.5 us beyond the tiles and the copies, and 3 us more where B is padded. Batching
// C's element-wise stores (GEMM version 23) took 2.2 us off that (H100, 555 x 777 x 104: 8.6 ->
// 6.5 us, against 4.3 at n = 784). Refitted on 13 shapes whose B is padded (H100, graph timing,
// 43 x 203 to 16000 x 201, 6.2-9.6 us): 1.4 us more than the start, and C's elements stored one
// at a time at 1.9 TB/s (7288 x 201 x 26 8.1 us, 16000 x 201 x 26 9.6; each shape within 0.6
// us of the price). The
// widened SIMT tiles on small products wait out a stage's loads at a time: 3.7 us at k = 16,
// 5.8 at 57, 7.0 at 65, 7.8 at 77, 8.3 at 81 (one wave of 64 x 64 tiles): at least 2.8 us and
// 0.92 us a 16-deep stage, whatever the FMAs price at. Tiles beyond one an SM do not hide that
// latency behind each other (H100, graph timing, k = 26, two stages, 64 x 64 tiles: 78 tiles
// 4.8 us, 188-228 tiles 6.1-7.0, 456 tiles 11.8; the 128 x 32 tile's 399 tiles 15.0, where the
// padded wgmma path took 8.1): the stages' latency counts once for each round of tiles over
// the SMs.
constexpr double kWgmmaStartSeconds = 1.5e-6;
constexpr double kWgmmaOddWidthSeconds = 1.4e-6;
constexpr double kOddWidthStoreBytesPerSecond = 1.9e12;
constexpr double kWidenedBaseSeconds = 2.8e-6;
constexpr double kWidenedStageSeconds = 0.92e-6;

// The model of the plan's tile among `models`, if it is one of them.
template <std::size_t kCount>
const TensorTileModel* tile_model(const TensorTileModel (&models)[kCount], const GemmTile& tile) {
  for (const TensorTileModel& model : models)
    if ((model.tile.m == tile.m && model.tile.n == tile.n) ||
        (model.shallow_tile.m == tile.m && model.shallow_tile.n == tile.n))
      return &model;
  return nullptr;
}

SplitPrice split_price(const GemmPlan& plan, DType dtype) {
  switch (plan.kernel) {
    case GemmKernel::wgmma:
      if (const TensorTileModel* model = tile_model(kWgmmaTiles, plan.tile))
        return {kWgmmaRatePerSm * model->rate_fraction, model->solo_fraction};
      return {kWgmmaRatePerSm, 1};
    case GemmKernel::mma_sync:
      return {3.4e12, 1};
    case GemmKernel::dmma:
      if (const TensorTileModel* model = tile_model(kDmmaTiles, plan.tile))
        return {kDmmaRatePerSm * model->rate_fraction, model->solo_fraction};
      return {kDmmaRatePerSm, 1};
    default:
      break;
  }
  double fraction = 1, solo = 0.6;
  for (const SimtTileModel& model : kSimtTiles)
    if (model.tile.m == plan.tile.m && model.tile.n == plan.tile.n) {
      fraction = model.rate_fraction * (plan.vectorized ? 1 : model.element_wise_fraction);
      solo = model.solo_fraction;
    }
  return {(dtype == DType::f32 ? 0.34e12 : 0.15e12) * fraction, solo};
}

// The estimated time of the kernel (and of the sum of partials) with k in parts of split_k:
// whole waves of blocks in flight at the SM's full rate, then the last wave's busiest SM,
// its blocks sharing a rate in proportion to their number (at least the solo fraction).
double split_seconds(const GemmPlan& plan, DType dtype, std::int64_t m, std::int64_t k, std::int64_t split_k,
                     const GemmDevice& device) {
  const SplitPrice price = split_price(plan, dtype);
  const std::int64_t parts = ceil_div(k, split_k);
  const std::int64_t blocks = plan.pieces * parts;
  const std::int64_t wave = blocks_in_flight(plan, device);
  const double block_seconds = 2.0 * plan.tile.m * plan.tile.n * static_cast<double>(split_k) / price.rate_per_sm;
  const std::int64_t whole_waves = blocks / wave;
  double seconds = static_cast<double>(whole_waves * plan.blocks_per_sm) * block_seconds;
  if (const std::int64_t rest = blocks - whole_waves * wave; rest > 0) {
    const std::int64_t per_sm = ceil_div(rest, device.sm_count);
    const double share = std::max(price.solo_fraction, static_cast<double>(per_sm) / plan.blocks_per_sm);
    seconds += static_cast<double>(per_sm) * block_seconds / share;
  }
  if (parts > 1) {
    const double acc_bytes = dtype == DType::f64 ? 8 : 4;
    const double partials = static_cast<double>(parts) * static_cast<double>(m) * static_cast<double>(plan.n_kernel);
    const double batches = static_cast<double>(ceil_div(parts - 1, kSumBatchParts));
    seconds += kSplitLaunchSeconds +
               std::max(2.0 * partials * acc_bytes / kSplitBytesPerSecond, batches * kSumBatchSeconds);
  }
  return seconds;
}

// Splits the tiled kernels' k where fewer tiles than the blocks in flight leave block slots idle
// (SMs, where a kernel holds one block an SM; 143 tiles of a kernel of two blocks an SM leave
// most SMs one block, below their rate), into the number of parts (kSplitMaxWaves waves of
// blocks in flight at most, parts of whole steps) of the lowest priced time; fewer parts on a
// tie. Whole waves are what the count buys: 72 tiles of a kernel of one block an SM fill no
// wave in 1 part and 6 waves of 132 in 11. The rule text gives the two prices.
struct SplitPrices {
  double unsplit_s = 0;  // 0: not priced (tiles enough for the SMs)
  double split_s = 0;    // the best split's, 0 where none was priced
  bool parts_fit = false;  // whether two parts of each tile fit the waves allowed
  std::int64_t max_waves = kSplitMaxWaves;  // those waves of blocks in flight
};

// Sets plan's split to the part count of 2 to max_parts, parts of whole `granule` steps, whose
// price(depth) is lowest and below `bar` (fewer parts on a tie; none below it: plan unchanged).
// Returns that price, or where no count beat the bar the lowest split price seen (0: none).
template <class Price>
double cheapest_split(GemmPlan& plan, std::int64_t k, std::int64_t granule, std::int64_t max_parts, double bar,
                      Price price) {
  double best = bar;
  double best_split = 0;
  bool split = false;
  for (std::int64_t parts = 2; parts <= max_parts; ++parts) {
    const std::int64_t depth = round_up(ceil_div(k, parts), granule);
    if (ceil_div(k, depth) != parts) continue;  // the same parts as a smaller count
    const double seconds = price(depth);
    if (best_split == 0 || seconds < best_split) best_split = seconds;
    if (seconds < best) {
      best = seconds;
      split = true;
      plan.split_k = depth;
      plan.splits = static_cast<int>(parts);
    }
  }
  return split ? best : best_split;
}

SplitPrices split_k_priced(GemmPlan& plan, DType dtype, std::int64_t m, std::int64_t k, const GemmDevice& device) {
  const std::int64_t granule = plan.tile.k;
  const std::int64_t slots = blocks_in_flight(plan, device);
  plan.splits = 1;
  plan.split_k = round_up(k, granule);
  if (plan.pieces >= slots) return {};
  const std::int64_t max_parts = std::min(kSplitMaxWaves * slots / plan.pieces, ceil_div(k, granule));
  SplitPrices prices;
  prices.parts_fit = kSplitMaxWaves * slots / plan.pieces >= 2;
  prices.unsplit_s = split_seconds(plan, dtype, m, k, plan.split_k, device);
  prices.split_s = cheapest_split(plan, k, granule, max_parts, prices.unsplit_s * (1 - kSplitMinSaving),
                                  [&](std::int64_t depth) { return split_seconds(plan, dtype, m, k, depth, device); });
  return prices;
}

// "4 tiles for 132 SMs: k=262144 split in 33 parts of 7944, partials added in part order",
// then for the tiled kernels the two prices: "(priced 95 us against 3012 us unsplit)".
std::string split_text(const GemmPlan& plan, std::int64_t k, const std::string& pieces, std::int64_t min_pieces,
                       const std::string& slots, const SplitPrices& prices = {}) {
  const std::string why = str(plan.pieces) + " " + pieces + " for " + str(min_pieces) + " " + slots;
  if (plan.splits > 1)
    return why + ": k=" + str(k) + " split in " + str(plan.splits) + " parts of " + str(plan.split_k) +
           ", partials added in part order" +
           (prices.unsplit_s > 0
                ? " (priced " + format_seconds(prices.split_s) + " against " + format_seconds(prices.unsplit_s) + " unsplit)"
                : "");
  if (plan.pieces >= min_pieces) return why + ": no split";
  if (prices.unsplit_s > 0)
    return why + ": no split (priced " + format_seconds(prices.unsplit_s) +
           (prices.split_s >= prices.unsplit_s
                ? " against " + format_seconds(prices.split_s) +
                      " split: the second launch and the partials' traffic outweigh the steps saved)"
            : prices.split_s > 0 ? " against " + format_seconds(prices.split_s) + " split: under the " +
                                       str(static_cast<std::int64_t>(kSplitMinSaving * 100)) +
                                       " % saving a split must price at)"
            : prices.parts_fit ? ": k=" + str(k) + " is one step of " + str(plan.tile.k) + ")"
                               : ": two parts of each of the " + pieces + " would not fit " +
                                     (prices.max_waves == 1 ? std::string("one wave") : str(prices.max_waves) + " waves") +
                                     ")");
  return why + ": no split (k=" + str(k) + " under 2 steps of " + str(plan.tile.k) +
         ", or pieces over half the blocks in flight)";
}

// The tiled kernels' split text: "143 tiles for 264 blocks in flight: ..." (for "132 SMs" where
// the kernel holds one block an SM).
std::string tiles_split_text(const GemmPlan& plan, std::int64_t k, const GemmDevice& device, const SplitPrices& prices) {
  const std::int64_t slots = blocks_in_flight(plan, device);
  return split_text(plan, k, "tiles", slots, plan.blocks_per_sm == 1 ? "SMs" : "blocks in flight", prices);
}

// m or n at most `side`.
GemmPlan plan_matrix_vector(DType dtype, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t side,
                            const GemmDevice& device) {
  GemmPlan plan;
  const auto lanes = static_cast<std::int64_t>(16 / dtype_size(dtype));  // elements in 16 bytes
  plan.blocks_per_sm = kGemvBlocksPerSm;
  plan.lda = k;
  plan.ldb = n;
  plan.n_kernel = n;
  const std::int64_t slots = blocks_in_flight(plan, device);
  const std::string shape = "m or n <= " + str(kMatmulVectorMaxSide) + " (16-bit: " + str(kSixteenBitVectorMaxSide) +
                            ", and m <= " + str(kSixteenBitUnalignedVectorMatrixRows) + " where n > " +
                            str(kNarrowMaxColumns) + " is not a multiple of 8: the tensor cores would copy B padded" +
                            "; f64 with DMMA m16n8k16: n <= " + str(kSixteenBitVectorMaxSide) + ", m <= " +
                            str(kF64VectorMatrixMaxRows) + " where n > " + str(kF64VectorMatrixNarrowB) +
                            ") runs a matrix-vector kernel; ";
  if (n <= side) {
    plan.kernel = GemmKernel::matrix_vector;
    plan.vector_width = power_of_two_at_least(n, kMatmulVectorMaxSide);
    plan.vectorized = k % lanes == 0;
    plan.tile = {kMatrixVectorRows, plan.vector_width, matrix_vector_tile_k(dtype_size(dtype), plan.vectorized)};
    plan.pieces = ceil_div(m, kMatrixVectorRows);
    split_k(plan, k, slots, device);
    plan.rule = shape + "n=" + str(n) + ": A streamed by rows, blocks of " + str(kMatrixVectorRows) + " rows, " +
                (matrix_vector_reads_b_directly(dtype_size(dtype), plan.vectorized, n)
                     ? "B read by each lane from L1"
                     : "B through shared tiles of " + str(plan.tile.k) + " rows") +
                "; " +
                split_text(plan, k, "row blocks", slots, "blocks in flight");
  } else {
    plan.kernel = GemmKernel::vector_matrix;
    plan.vector_width = power_of_two_at_least(m, kVectorMatrixMaxRows);
    const auto columns = static_cast<std::int64_t>(32 * lanes);
    const std::int64_t column_blocks = ceil_div(n, columns);
    plan.tile = {plan.vector_width, static_cast<int>(columns), kVectorMatrixStep};
    plan.vectorized = n % lanes == 0;
    // Groups of A's rows, each a block reading B, where B is L2-sized and k splits: the widest
    // kernel whose column blocks and groups, in the parts k allows (steps of
    // kVectorMatrixStep), fill the blocks in flight, and whose last block of a piece adds its
    // parts' partials in at most kVectorMatrixSumRounds rounds of loads (16 parts' loads a
    // round, an entry a thread). A block's walk and its sum both grow with its rows: on an
    // H200, f32 m x 127 x 3562 in 28 blocks of all m rows took 6.3 us at m = 1, 10.1 at 4, 16.0
    // at 8, 29.5 at 16 (cuBLAS 5.6-8.5); Nsight Compute at 15 rows: the 28 busy SMs active
    // about 40 % of the kernel's cycles, the rest, by inference, one block's sum of 28 parts;
    // in groups, 6.6-7.9 us.
    const auto at_width = [&](int width) {
      GemmPlan trial = plan;
      trial.vector_width = width;
      trial.tile.m = width;
      trial.pieces = column_blocks * ceil_div(m, width);
      split_k(trial, k, slots, device);
      return trial;
    };
    const auto sum_rounds = [&](const GemmPlan& trial) {
      if (trial.splits < 2) return std::int64_t{0};
      return ceil_div(std::min<std::int64_t>(trial.vector_width, m) * std::min(columns, n), kGemvWarps * 32) *
             ceil_div(trial.splits - 1, kVectorMatrixSumParts);
    };
    const std::int64_t most_parts = std::max<std::int64_t>(1, k / kVectorMatrixStep);
    const auto fits = [&](const GemmPlan& trial) {
      return trial.pieces * most_parts >= slots && sum_rounds(trial) <= kVectorMatrixSumRounds;
    };
    GemmPlan chosen = at_width(plan.vector_width);
    if (k * n * static_cast<std::int64_t>(dtype_size(dtype)) <= kVectorMatrixGroupBytes && chosen.splits > 1)
      while (chosen.vector_width > 1 && !fits(chosen)) chosen = at_width(chosen.vector_width / 2);
    plan = chosen;
    const std::string groups =
        plan.vector_width >= m
            ? ""
            : " in " + str(ceil_div(m, plan.vector_width)) + " groups of " + str(plan.vector_width) + " (B of at most " +
                  str(kVectorMatrixGroupBytes >> 20) +
                  " MiB: the widest whose blocks fill the blocks in flight and whose sums of parts take at most " +
                  str(kVectorMatrixSumRounds) + " rounds of loads)";
    plan.rule = shape + "m=" + str(m) + ": B streamed by rows, blocks of " + str(plan.tile.n) + " columns x " +
                str(plan.vector_width) + " rows" + groups + "; " +
                split_text(plan, k, "blocks", slots, "blocks in flight");
  }
  return plan;
}

// The 16-bit narrow kernel's split of a k deeper than one stage, priced (kernels/gemm_narrow.cu;
// kernel-notes.md, GEMM version 25). A block walks its part of k one 32-deep step after another,
// each bound by the latency of its loads of A, not by bandwidth: on an H100 a step took about
// 0.48 us at 64 columns in the kernel that pipelines B (n a multiple of 8, 32 or more columns),
// 1.85 times that in the kernel that stages B through registers, scaled by (columns / 64) to the
// 0.94; a wave whose blocks pass one an SM runs its steps up to 1.39 times slower (two blocks
// share an SM's issue); and each part writes its f32 partial of C, which the sum reads back, at
// about 0.55 ps a byte of the 8 an entry (the write and the read), plus kSplitLaunchSeconds for
// the sum's launch. Fitted to 199 timings (14 shapes x up to 10 part counts, m of 300 to 16384,
// n of 12 to 64, k of 64 to 8192, kernel and sum), the count this price picks was within 1.18 of
// the best measured at every shape (1.05 or better at 19 of 25), where filling the blocks in
// flight, the rule before it, was 1.33 behind at 5360 x 62 x 536 (6 parts for 3).
constexpr double kNarrowStepSeconds = 0.48e-6;
constexpr double kNarrowStagedStepFactor = 1.85;
constexpr double kNarrowColumnsExponent = 0.94;
constexpr double kNarrowSharedSmFactor = 0.39;
constexpr double kNarrowPartialSecondsPerByte = 0.55e-12;

// The price of parts of `depth` (a multiple of kNarrowSplitStep; k's own rounding up: whole),
// their blocks within one wave of blocks in flight (split_narrow_priced's bounds).
double narrow_split_seconds(const GemmPlan& plan, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t depth,
                            const GemmDevice& device) {
  const std::int64_t parts = ceil_div(k, depth);
  const std::int64_t blocks = plan.pieces * parts;
  const auto sms = static_cast<std::int64_t>(device.sm_count);
  const bool pipelined = n % 8 == 0 && plan.vector_width >= 32;  // launch_width's choice
  const double step_seconds = kNarrowStepSeconds * (pipelined ? 1.0 : kNarrowStagedStepFactor) *
                              std::pow(plan.vector_width / 64.0, kNarrowColumnsExponent);
  const double shared =
      1 + kNarrowSharedSmFactor * static_cast<double>(std::clamp<std::int64_t>(blocks - sms, 0, sms)) /
                                static_cast<double>(sms);
  const double walk = static_cast<double>(depth / kNarrowSplitStep) * step_seconds * shared;
  if (parts < 2) return walk;
  return walk + kSplitLaunchSeconds + kNarrowPartialSecondsPerByte * 8.0 * static_cast<double>(parts * m * n);
}

// The part count of the lowest narrow_split_seconds (fewer parts on a tie), parts whole steps,
// all of them in one wave of blocks in flight; no split where the row blocks fill that wave.
SplitPrices split_narrow_priced(GemmPlan& plan, std::int64_t m, std::int64_t n, std::int64_t k,
                                const GemmDevice& device) {
  plan.splits = 1;
  plan.split_k = round_up(k, kNarrowSplitStep);
  const std::int64_t slots = blocks_in_flight(plan, device);
  if (plan.pieces >= slots) return {};  // a wave of row blocks: a split adds waves
  SplitPrices prices;
  prices.unsplit_s = narrow_split_seconds(plan, m, n, k, plan.split_k, device);
  prices.parts_fit = k >= 2 * kNarrowSplitStep && slots / plan.pieces >= 2;
  prices.max_waves = 1;
  const std::int64_t max_parts = std::min(k / kNarrowSplitStep, slots / plan.pieces);  // one wave at most
  prices.split_s = cheapest_split(plan, k, kNarrowSplitStep, max_parts, prices.unsplit_s, [&](std::int64_t depth) {
    return narrow_split_seconds(plan, m, n, k, depth, device);
  });
  return prices;
}

// Rule 3: the narrow kernel, as wide as n needs; k split as the matrix-vector kernels split it
// (f64) or priced (16-bit, split_narrow_priced).
GemmPlan plan_narrow(DType dtype, std::int64_t m, std::int64_t n, std::int64_t k, const GemmDevice& device) {
  GemmPlan plan;
  const bool f64 = dtype == DType::f64;
  const GemmTile& block = f64 ? kNarrowF64GemmTile : kNarrowGemmTile;
  plan.kernel = GemmKernel::narrow;
  plan.vector_width = std::max(8, power_of_two_at_least(n, kNarrowMaxColumns));
  plan.tile = {block.m, plan.vector_width, block.k};
  plan.blocks_per_sm = f64 ? kNarrowF64BlocksPerSm : kNarrowBlocksPerSm;
  plan.lda = k;
  plan.ldb = n;
  plan.n_kernel = n;
  plan.vectorized = k % static_cast<std::int64_t>(16 / dtype_size(dtype)) == 0;
  plan.pieces = ceil_div(m, block.m);
  const std::int64_t slots = blocks_in_flight(plan, device);
  // 16-bit k within one stage stays whole: a split there cuts no stage a block walks and adds
  // the sum of partials (H200, kernel and sum: 14156 x 55 x 122 14.5 us whole against 23.5 in
  // 2 parts, 3000 x 8 x 96 7.6 against 12.4 in 3, 5000 x 20 x 160 9.4 against 12.6 in 5; 9 of
  // 10 such shapes faster whole, 300 x 60 x 250 1-5 % slower).
  const bool one_stage = !f64 && k <= block.k;
  SplitPrices prices;
  if (f64 || one_stage)
    split_k(plan, k, one_stage ? 0 : slots, device, f64 ? 0 : kNarrowSplitStep);
  else
    prices = split_narrow_priced(plan, m, n, k, device);
  const GemmTile& tiles = f64 ? kDmmaSmallGemmTile : kWgmmaGemmTile;
  plan.rule = (f64 ? "f64 n of " + str(kSixteenBitVectorMaxSide + 1) + " to " + str(kNarrowF64MaxColumns) +
                         " runs the narrow kernel (DMMA m16n8k16"
                   : "16-bit n <= " + str(kNarrowMaxColumns) + " runs the narrow kernel (mma.sync") +
              ", A streamed once, bound by reading it; the " + str(tiles.n) + "-column tiles would multiply " +
              str(tiles.n / plan.vector_width) + "x the products needed): n=" + str(n) + " on " +
              str(plan.vector_width) + " columns, blocks of " + str(block.m) + " rows; " +
              (one_stage ? str(plan.pieces) + " row blocks for " + str(slots) + " blocks in flight: no split (k=" +
                               str(k) + " within one " + str(block.k) + "-deep stage)"
                         : split_text(plan, k, "row blocks", slots, "blocks in flight", prices));
  return plan;
}

// "; staged: A and B padded to 16-byte rows (k=4100, n=4100) by copies inside the timed op".
std::string staged_text(const GemmPlan& plan) {
  return std::string("; staged: ") + (plan.stage_a ? "A" : "") + (plan.stage_a && plan.stage_b ? " and " : "") +
         (plan.stage_b ? "B" : "") + " padded to 16-byte rows (k=" + str(plan.lda) + ", n=" + str(plan.ldb) +
         ") by copies inside the timed op";
}

// The SIMT kernel (f32; f64 without FP64 tensor cores): each tile priced with its best split
// of k, waves of blocks and padded products counted (split_seconds), and the cheapest taken,
// the earlier of kSimtTiles on a tie. Where n or k is not a multiple of 16 bytes' elements,
// the element-wise variant (SimtTileModel::element_wise_fraction) is priced against padded copies
// of A and B (their bytes read and written at the copy rate, one launch) before the 16-byte
// variant. The rule gives the prices.
struct TileChoice {
  GemmPlan plan;
  SplitPrices prices;
  double seconds = 0;
  std::string text;  // "128x128 1.2 ms, 64x64 ..."
};

// Prices each of `models` (configure(candidate, model) sets its tile and blocks an SM, and says
// whether the tile applies to the shape) with its best split and keeps the cheapest, the earlier
// on a tie: the SIMT tiles here, the tensor-core kernels' tiles below (cheapest_tensor_tile).
// With whole_k, no tile is split: each is priced with all of k in one part.
template <class Models, class Configure>
TileChoice cheapest_tile(const GemmPlan& base, const Models& models, DType dtype, std::int64_t m, std::int64_t n,
                         std::int64_t k, const GemmDevice& device, Configure configure, bool whole_k = false) {
  TileChoice best;
  for (const auto& model : models) {
    GemmPlan candidate = base;
    if (!configure(candidate, model)) continue;
    candidate.pieces = ceil_div(m, candidate.tile.m) * ceil_div(n, candidate.tile.n);
    SplitPrices prices;
    if (whole_k) {
      candidate.splits = 1;
      candidate.split_k = round_up(k, candidate.tile.k);
    } else {
      prices = split_k_priced(candidate, dtype, m, k, device);
    }
    const double seconds = split_seconds(candidate, dtype, m, k, candidate.split_k, device);
    best.text += (best.text.empty() ? "" : ", ") + str(candidate.tile.m) + "x" + str(candidate.tile.n) + " " +
                 format_seconds(seconds) + (candidate.splits > 1 ? " in " + str(candidate.splits) + " parts" : "");
    if (best.seconds == 0 || seconds < best.seconds) {
      best.plan = candidate;
      best.prices = prices;
      best.seconds = seconds;
    }
  }
  return best;
}

// The cheapest of the SIMT tiles, or of `only` alone where it is given.
TileChoice cheapest_simt_tile(const GemmPlan& base, DType dtype, std::int64_t m, std::int64_t n, std::int64_t k,
                              const GemmDevice& device, bool whole_k = false, const GemmTile* only = nullptr) {
  return cheapest_tile(
      base, kSimtTiles, dtype, m, n, k, device,
      [&](GemmPlan& candidate, const SimtTileModel& model) {
        candidate.tile = model.tile;
        candidate.blocks_per_sm = simt_blocks_per_sm(dtype_size(dtype), model.threads);
        return (model.max_m == 0 || m <= model.max_m) &&
               (only == nullptr || (model.tile.m == only->m && model.tile.n == only->n));
      },
      whole_k);
}

// The padded copies of A and B a plan stages: their bytes read and written at the copy rate,
// and their launch.
double staging_seconds(const GemmPlan& plan, std::int64_t m, std::int64_t n, std::int64_t k, DType dtype) {
  const double copied = static_cast<double>((plan.stage_a ? m * (k + plan.lda) : 0) +
                                            (plan.stage_b ? k * (n + plan.ldb) : 0)) *
                        static_cast<double>(dtype_size(dtype));
  return kSplitLaunchSeconds + copied / kSplitBytesPerSecond;
}

GemmPlan plan_simt(GemmPlan plan, DType dtype, std::int64_t m, std::int64_t n, std::int64_t k,
                   const GemmDevice& device) {
  plan.kernel = GemmKernel::simt;
  if (dtype == DType::f64) plan.fallback = *device.no_dmma;
  TileChoice best = cheapest_simt_tile(plan, dtype, m, n, k, device);
  std::string staging;
  if (!plan.vectorized) {
    const auto lanes = static_cast<std::int64_t>(16 / dtype_size(dtype));
    GemmPlan padded = plan;
    padded.vectorized = true;
    padded.stage_a = k % lanes != 0;
    padded.stage_b = n % lanes != 0;
    padded.lda = round_up(k, lanes);
    padded.ldb = round_up(n, lanes);
    TileChoice staged = cheapest_simt_tile(padded, dtype, m, n, k, device);
    const double copy_seconds = staging_seconds(padded, m, n, k, dtype);
    const std::string prices = "16-byte rows priced " + format_seconds(staged.seconds) + " + " +
                               format_seconds(copy_seconds) + " for the padded copies, against " +
                               format_seconds(best.seconds) + " element-wise";
    if (staged.seconds + copy_seconds < best.seconds) {
      best = staged;
      staging = staged_text(staged.plan) + " (" + prices + ")";
    } else {
      staging = "; element-wise global access (" + prices + ")";
    }
  }
  best.plan.rule = "m, n > " + str(kMatmulVectorMaxSide) + " run tiles; tiles priced (" + best.text + "): " +
                   str(best.plan.tile.m) + "x" + str(best.plan.tile.n) + ": " +
                   tiles_split_text(best.plan, k, device, best.prices) + staging;
  return best.plan;
}

// The tensor-core kernels' tiles (DMMA, wgmma): each tile that applies to the shape priced with
// its best split of k (split_seconds, as the SIMT tiles are), the cheapest taken, the large tile
// on a tie. A smaller tile wins where the large tiles are fewer than the SMs and k is too short
// for a split to pay (f64 1000 x 333 x 77: 24 large DMMA tiles, 96 small ones; 16-bit 1024^3: 32
// wgmma tiles of 128 x 256, 64 of 64 x 256), or, for the DMMA 16 x 128 tile, where C has at most
// 16 rows and the product streams B.
template <std::size_t kCount>
TileChoice cheapest_tensor_tile(const GemmPlan& base, const TensorTileModel (&models)[kCount], DType dtype,
                                std::int64_t m, std::int64_t n, std::int64_t k, const GemmDevice& device) {
  const bool shallow = base.kernel == GemmKernel::dmma && !device.dmma_m16n8k16;
  return cheapest_tile(base, models, dtype, m, n, k, device, [&](GemmPlan& candidate, const TensorTileModel& model) {
    candidate.tile = shallow ? model.shallow_tile : model.tile;
    candidate.blocks_per_sm = model.blocks_per_sm;
    const bool fills =
        ceil_div(m, candidate.tile.m) * ceil_div(n, candidate.tile.n) >= blocks_in_flight(candidate, device);
    return (model.max_m == 0 || m <= model.max_m) && (fills || !model.full_waves_only) &&
           !(shallow && model.deep_only);
  });
}

// f16 and bf16 whose rows are not whole 16-byte chunks (rule 5): the tensor-core plan, priced
// with its padded copies and (wgmma) its kernel's start and C's element-wise stores, against
// the SIMT 64 x 64 tile in f32 reading the 16-bit elements one at a time (kernels/gemm.cu,
// launch_gemm_widened: no copies, one launch, all of k), priced at f32's element-wise rates but
// no lower than a load latency a stage in each round of tiles over the SMs; the cheaper runs.
// The CUDA cores win only where the product is small and k short enough that the copies and
// the start outweigh its FMAs and stages (830 x 383 x 16).
GemmPlan plan_widened_or(GemmPlan tensor, double tensor_seconds, DType dtype, std::int64_t m, std::int64_t n,
                         std::int64_t k, const GemmDevice& device) {
  const bool wgmma = tensor.kernel == GemmKernel::wgmma;
  const double element_stores = wgmma && tensor.stage_b
                                    ? kWgmmaOddWidthSeconds + static_cast<double>(m) * static_cast<double>(n) *
                                                                  static_cast<double>(dtype_size(dtype)) /
                                                                  kOddWidthStoreBytesPerSecond
                                    : 0;
  const double start = wgmma ? kWgmmaStartSeconds + element_stores : 0;
  const double copies = staging_seconds(tensor, m, n, k, dtype);
  const double tensor_total = tensor_seconds + copies + start;
  GemmPlan base;
  base.kernel = GemmKernel::simt;
  base.lda = k;
  base.ldb = n;
  base.n_kernel = n;
  base.vectorized = false;
  // The 64 x 64 tile alone: the prices below were fitted on it, and the 128 x 32 tile, priced
  // lower by the f32 model, took 15.0 us where it took 11.8 (H100, 7288 x 201 x 26).
  const TileChoice widened =
      cheapest_simt_tile(base, DType::f32, m, n, k, device, /*whole_k=*/true, &kSimtSmallGemmTile);
  const std::int64_t stages = ceil_div(k, widened.plan.tile.k);
  const std::int64_t sms = std::max(device.sm_count, 1);
  const std::int64_t rounds = ceil_div(widened.plan.pieces, sms);
  const double floor =
      kWidenedBaseSeconds + kWidenedStageSeconds * static_cast<double>(stages) * static_cast<double>(rounds);
  const double widened_seconds = std::max(widened.seconds, floor);
  const std::string tensor_price =
      format_seconds(tensor_total) + " (" + format_seconds(tensor_seconds) + " + " + format_seconds(copies) +
      " for the padded copies" +
      (start > 0 ? " + " + format_seconds(start) + " for the wgmma kernel's start" +
                       (tensor.stage_b ? " and C's element-wise stores" : "")
                 : "") +
      ")";
  const std::string floor_text = "at least " + format_seconds(floor) + ": " + format_seconds(kWidenedBaseSeconds) +
                                 " and " + format_seconds(kWidenedStageSeconds) + " for each of " + str(stages) +
                                 " stages' loads in each of " + str(rounds) + " rounds of " + str(sms) + " SMs (" +
                                 str(widened.plan.pieces) + " tiles)";
  if (widened_seconds >= tensor_total) {
    tensor.rule += "; priced " + tensor_price + " against " + format_seconds(widened_seconds) +
                   " for the CUDA-core tiles in f32 reading the 16-bit elements one at a time (" + floor_text + ")";
    return tensor;
  }
  GemmPlan plan = widened.plan;
  plan.rule = "m, n > " + str(kMatmulVectorMaxSide) + " run tiles; rows not whole 16-byte chunks (k=" + str(k) +
              ", n=" + str(n) + "): the CUDA-core tiles in f32, the 16-bit elements read one at a time and widened " +
              "(no padded copies, one launch, all of k), priced (" + widened.text + "; " + floor_text + ") against " +
              tensor_price +
              " on the tensor cores: " + str(plan.tile.m) + "x" + str(plan.tile.n) + ": " + str(plan.pieces) +
              " tiles for " + str(blocks_in_flight(plan, device)) + " blocks in flight: no split";
  return plan;
}

GemmPlan plan_tiled(DType dtype, std::int64_t m, std::int64_t n, std::int64_t k, const GemmDevice& device) {
  GemmPlan plan;
  plan.lda = k;
  plan.ldb = n;
  plan.n_kernel = n;
  const auto lanes = static_cast<std::int64_t>(16 / dtype_size(dtype));
  plan.vectorized = n % lanes == 0 && k % lanes == 0;
  if (dtype == DType::f16 || dtype == DType::bf16) {
    if (!device.no_wgmma) {
      plan.kernel = GemmKernel::wgmma;
    } else if (!device.no_mma) {
      plan.kernel = GemmKernel::mma_sync;
      plan.tile = kMmaSyncGemmTile;
      plan.fallback = *device.no_wgmma;
    } else {
      throw std::runtime_error("no tensor-core GEMM kernel for " + to_string(dtype) + " on this device: " +
                               *device.no_mma);
    }
    plan.vectorized = true;
    plan.stage_a = k % kTensorChunk != 0;
    plan.stage_b = n % kTensorChunk != 0;
    plan.lda = round_up(k, kTensorChunk);
    plan.ldb = plan.n_kernel = round_up(n, kTensorChunk);
  } else if (dtype == DType::f64 && !device.no_dmma) {
    plan.kernel = GemmKernel::dmma;
  } else {
    return plan_simt(plan, dtype, m, n, k, device);
  }
  const std::string shape =
      dtype != DType::f64 && n <= kNarrowMaxColumns
          ? (m <= 64 ? "16-bit C of 33 to 64 rows and n <= " + str(kNarrowMaxColumns) +
                           ", n and k multiples of 8, runs the wgmma tiles unpadded (at most half the narrow kernel's "
                           "warps would have rows); "
                     : "16-bit C of more than " + str(kNarrowWgmmaMinRows) + " rows, n of 33 to " +
                           str(kNarrowMaxColumns) + " and k <= " + str(kNarrowWgmmaMaxDepth) +
                           ", n and k multiples of 8, runs the wgmma tiles unpadded (the narrow kernel's blocks walk k "
                           "step by step, bound by their loads' latency: 1.12-1.72x slower on an H100); ")
      : std::min(m, n) > kMatmulVectorMaxSide ? "m, n > " + str(kMatmulVectorMaxSide) + " run tiles; "
      : dtype == DType::f64
          ? "f64 m of " + str(kF64VectorMatrixMaxRows + 1) + " to " + str(kMatmulVectorMaxSide) + " with n > " +
                str(kF64VectorMatrixNarrowB) + " runs the DMMA tiles (the 16 x 128 tile streams B faster than "
                "vector_matrix); "
          : "16-bit m of " + str(kSixteenBitVectorMaxSide + 1) + " to " + str(kMatmulVectorMaxSide) +
                " runs the tensor cores (8 or more f32 sums per 2-byte element streamed outrun the CUDA cores); ";
  double tensor_seconds = 0;
  if (plan.kernel == GemmKernel::mma_sync) {
    plan.pieces = ceil_div(m, plan.tile.m) * ceil_div(n, plan.tile.n);
    const SplitPrices prices = split_k_priced(plan, dtype, m, k, device);
    tensor_seconds = split_seconds(plan, dtype, m, k, plan.split_k, device);
    plan.rule = shape + "tiles of " + str(plan.tile.m) + "x" + str(plan.tile.n) + ": " +
                tiles_split_text(plan, k, device, prices);
  } else {
    TileChoice best = plan.kernel == GemmKernel::dmma ? cheapest_tensor_tile(plan, kDmmaTiles, dtype, m, n, k, device)
                                                      : cheapest_tensor_tile(plan, kWgmmaTiles, dtype, m, n, k, device);
    plan = best.plan;
    tensor_seconds = best.seconds;
    if (plan.kernel == GemmKernel::wgmma) plan.cluster_m = m > plan.tile.m ? 2 : 1;
    plan.rule = shape + "tiles priced (" + best.text + "): " + str(plan.tile.m) + "x" + str(plan.tile.n) + ": " +
                tiles_split_text(plan, k, device, best.prices);
  }
  if (plan.stage_a || plan.stage_b) {
    plan.rule += staged_text(plan) + (plan.stage_b ? ", C stored element by element" : "");
    if (plan.kernel == GemmKernel::wgmma || plan.kernel == GemmKernel::mma_sync)
      return plan_widened_or(std::move(plan), tensor_seconds, dtype, m, n, k, device);
  }
  return plan;
}

constexpr std::int64_t kSectorBytes = 32;  // the memory's write granule

// The sectors a row of C of n elements takes to store element by element from blocks `threads`
// threads wide: each instruction writes `threads` neighbouring elements of the row (the last
// fewer) and moves whole sectors.
std::int64_t row_store_sectors(std::int64_t n, int threads, std::size_t element_bytes) {
  const auto size = static_cast<std::int64_t>(element_bytes);
  return n / threads * ceil_div(threads * size, kSectorBytes) + ceil_div(n % threads * size, kSectorBytes);
}

// Rule 2: the short-k kernel, its block as wide as pads C least (the wider on a tie); where C
// is stored element by element, as wide as stores its rows in the fewest sectors first.
GemmPlan plan_short_k(DType dtype, std::int64_t m, std::int64_t n, std::int64_t k) {
  GemmPlan plan;
  plan.kernel = GemmKernel::short_k;
  const std::size_t size = dtype_size(dtype);
  const auto vector = static_cast<int>(16 / size);  // C's elements in 16 bytes: a thread's columns
  const int rows = short_k_thread_rows(size);
  // Element by element (n not a multiple of the vector), a row of threads stores `threads`
  // neighbouring elements an instruction, and an instruction moves whole 32-byte sectors: so
  // the width is weighed first by the sectors a row of C takes (16-bit 9906 x 2450 x 8 on
  // 32-column blocks, 8 bytes a row an instruction, ran 98 us against cuBLAS's 40 on an H200),
  // then by the padded area.
  const bool element_wise = n % vector != 0;
  std::pair<std::int64_t, std::int64_t> least{std::numeric_limits<std::int64_t>::max(), 0};
  for (int threads = kShortKMaxColumnThreads; threads * vector >= 32; threads /= 2) {
    const GemmTile tile{kShortKThreads / threads * rows, threads * vector, static_cast<int>(k)};
    const std::int64_t area = round_up(m, tile.m) * round_up(n, tile.n);
    const std::pair<std::int64_t, std::int64_t> cost{element_wise ? row_store_sectors(n, threads, size) : 0, area};
    if (cost < least) {
      least = cost;
      plan.tile = tile;
    }
  }
  plan.blocks_per_sm = 3;  // at least: the kernel's launch bounds
  plan.pieces = ceil_div(m, plan.tile.m) * ceil_div(n, plan.tile.n);
  plan.splits = 1;
  plan.split_k = k;
  plan.lda = k;
  plan.ldb = n;
  plan.n_kernel = n;
  plan.vectorized = n % vector == 0;
  const double fraction = short_k_fma_fraction(size);
  const double fma_rate = fraction * cuda_core_fma_per_second(size);
  const double outputs = static_cast<double>(m) * static_cast<double>(n);
  const double bytes = (outputs + static_cast<double>(k) * static_cast<double>(m + n)) * static_cast<double>(size);
  const int depth = short_k_max_depth(dtype);
  const std::string rate = format_significant(fraction, 2) + " of an H100's " +
                           format_significant(fma_rate / fraction / 1e12, 3) + " TFMA/s";
  const std::string why =
      size == 2 ? "k below one 16-deep tensor-core step, where the wgmma tiles would pad k to their stage (copying A "
                  "where k is not a multiple of 8) and leave a narrow C's SMs idle (CUDA-core FMAs at " +
                      rate + ")"
                : "bound by writing C: k FMAs an output on the CUDA cores (" + rate + ") take no longer than its " +
                      str(static_cast<std::int64_t>(size)) + " bytes at 3 TB/s up to k=" + str(depth) +
                      ", where tensor-core tiles, bound by the same write, would only pad k to their step";
  plan.rule = "k=" + str(k) + " <= " + str(depth) + " (" + to_string(dtype) + ") runs the short-k kernel, " + why +
              "; blocks of " +
              str(plan.tile.m) + "x" + str(plan.tile.n) +
              (element_wise ? " (C stored element by element: the width whose rows' stores take the fewest " +
                                  str(kSectorBytes) +
                                  "-byte sectors, then pad C least): "
                            : " (the width that pads C least): ") +
              str(plan.pieces) +
              " blocks, no split; C, A and B " + format_rate(bytes, "B") + ": " +
              format_seconds(bytes / kShortKCopyBytesPerSecond) + " at 3 TB/s, FMAs " +
              format_seconds(outputs * static_cast<double>(k) / fma_rate);
  return plan;
}

}  // namespace

const char* gemm_kernel_name(GemmKernel kernel) {
  switch (kernel) {
    case GemmKernel::vector_matrix:
      return "vector_matrix_gemv";
    case GemmKernel::matrix_vector:
      return "matrix_vector_gemv";
    case GemmKernel::simt:
      return "tiled_gemm";
    case GemmKernel::dmma:
      return "dmma_gemm";
    case GemmKernel::wgmma:
      return "wgmma_gemm";
    case GemmKernel::mma_sync:
      return "mma_gemm";
    case GemmKernel::short_k:
      return "short_k_gemm";
    case GemmKernel::narrow:
      return "narrow_mma_gemm";
  }
  return "unknown";
}

GemmPlan plan_gemm(DType dtype, std::int64_t m, std::int64_t n, std::int64_t k, const GemmDevice& device) {
  if (m < 1 || n < 1 || k < 1)
    throw std::invalid_argument("plan_gemm: dimensions must be positive, got " + std::to_string(m) + " x " +
                                std::to_string(n) + " x " + std::to_string(k));
  if (device.sm_count < 1) throw std::invalid_argument("plan_gemm: the device has no SMs");
  const bool sixteen_bit = dtype == DType::f16 || dtype == DType::bf16;
  const bool f64_narrow = dtype == DType::f64 && !device.no_dmma && device.dmma_m16n8k16;
  // The widest m (vector_matrix) and n (matrix_vector) the matrix-vector kernels take.
  const std::int64_t row_side = sixteen_bit  ? sixteen_bit_vector_matrix_max_rows(n)
                                : f64_narrow ? f64_vector_matrix_max_rows(n)
                                             : kMatmulVectorMaxSide;
  const std::int64_t column_side = sixteen_bit || f64_narrow ? kSixteenBitVectorMaxSide : kMatmulVectorMaxSide;
  if (n <= column_side || m <= row_side) return plan_matrix_vector(dtype, m, n, k, column_side, device);
  if (k <= short_k_max_depth(dtype)) return plan_short_k(dtype, m, n, k);
  if ((sixteen_bit && !device.no_mma) || f64_narrow) {
    if (sixteen_bit ? narrow_sixteen_bit_takes(m, n, k, !device.no_wgmma) : narrow_f64_takes(n))
      return plan_narrow(dtype, m, n, k, device);
  }
  return plan_tiled(dtype, m, n, k, device);
}

int short_k_max_depth(DType dtype) { return short_k_max_depth(dtype_size(dtype)); }

}  // namespace gpb
