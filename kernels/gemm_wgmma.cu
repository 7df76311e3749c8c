// Tiled GEMM for __half and __nv_bfloat16 on sm_90's tensor cores: PTX
// wgmma.mma_async.sync.aligned.m64n{256,128}k16.f32.{f16,bf16}.{f16,bf16}, reading both
// operands from shared memory, which TMA (cp.async.bulk.tensor) fills. Compiled only into
// sm_90a code (wgmma and the multicast copies are architecture-specific features); elsewhere
// the kernel traps and wgmma_gemm_compiled_in says no. For rows of whole 16-byte chunks
// (leading dimensions multiples of 8: TMA needs 16-byte row strides); the host pads other
// shapes.
//
// Layout of the work:
//   - Blocks of 384 threads in three warpgroups. Warpgroup 0 is the producer: one thread
//     issues the TMA copies of each stage. Warpgroups 1 and 2 are the consumers: each owns
//     64 rows of the block's 128 x 256 tile of C, 128 f32 accumulators per thread, and
//     issues one m64n256k16 wgmma per 16-deep step (four per stage).
//   - The half tile (WgmmaHalfGemmTile, for products whose 128 x 256 tiles leave most SMs
//     idle: 1024^3 has 32 for 132 SMs) is the same kernel with one consumer warpgroup: blocks
//     of 256 threads, 64 x 256 of C, 40 KiB stages, still one block an SM.
//   - The narrow tiles (WgmmaNarrowGemmTile 128 x 128, WgmmaNarrowHalfGemmTile 64 x 128, for
//     C at most 128 columns wide, where half of a 256-wide tile's products are padding: the
//     128 x 256 tile ran 16384 x 128 x 1024 at 0.66x cuBLAS's rate) are the same kernel at
//     kBlockN = 128: one m64n128k16 per consumer and step, 64 accumulators a thread, B's stage
//     two boxes instead of four, 32 or 24 KiB stages.
//   - Registers: 168 per thread at launch (384 threads, one block per SM; the smaller tiles'
//     blocks keep the same launch bounds, so the same count); the producer
//     warpgroup gives back all but 40 (setmaxnreg.dec) and the consumers take them (232,
//     setmaxnreg.inc), which the 128 accumulators and the epilogue need without spilling
//     (the narrow tiles' 64 need fewer; they keep the same split).
//   - Persistent: the grid is as many clusters as fit on the device at once
//     (cudaOccupancyMaxActiveClusters), and each cluster walks the output tiles with a stride
//     of the cluster count, so the producer loads the next tile's first stages while the
//     consumers store the last one. Tiles are ordered in groups of 16 tile rows (consecutive
//     units walk down a group before moving right): the 132 tiles an H100 has in flight
//     are then about 16 x 8 (2048 rows of A, 2048 columns of B), whose slices each come
//     from DRAM once per wave. Groups of 8 tile rows (16 x 16 tiles in flight, a quarter
//     more DRAM traffic) ran 8192 at 0.92x the speed, in the same run on an H100.
//   - Clusters of two blocks on neighbouring row tiles (same columns): each block loads its
//     own A slice and half of the shared B slice, multicast to both blocks, which halves
//     the B traffic from L2. Where C has one row tile (m <= 128) the second block would
//     only multiply zeros: such products run clusters of one block (kClusterM = 1), each
//     loading all of B's slice itself.
//   - Split k: a work unit is a tile and one part of k (split_stages stages); the
//     consumers of a part write their f32 sums, unrounded, from the accumulators to the
//     part's m x n slab of `partials` (8-byte stores, four lanes to a 32-byte row segment),
//     which gemm_split_k.cuh adds in part order. A consumer whose 64 rows lie wholly past m
//     stores nothing; its wgmmas still run (on zeros): a wgmma behind a branch that ptxas
//     cannot prove uniform over the warpgroup makes it serialise every wgmma of the kernel
//     (C7520), which cost 16-23 % at 4096 and 8192 in an H100 run.
//   - A ring of four 48 KiB stages (A 128 x 64, B 64 x 256; 40, 32 and 24 KiB for the 64 x 256,
//     128 x 128 and 64 x 128 tiles), each with two mbarriers: `full`
//     (the producer's arrive with the stage's byte count; the copies complete the bytes) and
//     `empty` (one arrival per consumer warp of both blocks once its wgmmas that read the
//     stage have finished; the producer of either block overwrites its half of B in both).
//     A consumer keeps one stage's wgmmas in flight while it waits for the next stage
//     (wgmma.wait_group 1) and releases the stage before.
//   - Shared layouts are TMA's 128-byte swizzle, which wgmma reads natively:
//       A (K-major: k contiguous): one box of 64 k x kBlockM rows; row r at r * 128 bytes, its
//       16-byte chunk c at c ^ (r % 8). Descriptor: stride between 8-row groups 1024 bytes;
//       the 16-deep step s starts 32 s bytes into the rows (the swizzle applies to the
//       address bits, so the stage base is 1024-aligned).
//       B (N-major: n contiguous; wgmma's transpose-B flag): kBlockN / 64 boxes of 64 n x 64 k
//       (four, or two for the narrow tiles), 8 KiB apart; k row r of a box at r * 128 bytes.
//       Descriptor: 8192 bytes between the boxes (the leading, N, dimension: the offset
//       between the swizzle's 64-column atoms, whatever the wgmma's N), 1024 between groups of
//       8 k rows; step s starts 2048 s bytes in. In clusters of two each block loads half of
//       the boxes (two, or one), multicast to both.
//     Rows and columns outside A or B (partial tiles, and the second block of a cluster
//     past the last row tile) are zero-filled by TMA and add nothing.
//   - Accumulator layout of m64nNk16 (PTX ISA, "Matrix Fragments for wgmma.mma_async.m64nNk16"):
//     warp w of the warpgroup holds rows 16 w .. 16 w + 15; with g = lane / 4, t = lane % 4,
//     d[4j + 2h + e] is row 16 w + g + 8h, column 8j + 2t + e (j < N / 8: N / 2 registers). The
//     epilogue rounds each pair to T into shared memory, in halves of kBlockN / 2 columns, and
//     stores C from there in 16-byte chunks, whole rows per 16 (narrow tiles: 8) lanes; stored
//     straight from registers (4 bytes per lane, 16 of each 32-byte sector)
//     half of the sectors written were excess. Rows of C that are not whole 16-byte chunks
//     (odd widths) are stored element by element from the tile, neighbouring lanes on
//     neighbouring columns (store_tile_elements).
#include "kernels/gemm_wgmma.cuh"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/cp_async.cuh"
#include "kernels/gemm_store.cuh"
#include "kernels/launch_check.cuh"

namespace gpb::kernels {
namespace {

using Tile = WgmmaGemmTile;  // what all tiles share: the stage depth, the ring, the launch bounds
constexpr int kBBoxN = 64;  // columns per B box: 128 bytes, the swizzle's span

// Whether a tile shares what the kernel takes from Tile.
template <class Block>
constexpr bool shares_ring() {
  return Block::kBlockK == Tile::kBlockK && Block::kStages == Tile::kStages && Block::kThreads <= Tile::kThreads;
}
static_assert(shares_ring<WgmmaHalfGemmTile>() && shares_ring<WgmmaNarrowGemmTile>() &&
                  shares_ring<WgmmaNarrowHalfGemmTile>(),
              "the tiles differ in their consumers and widths only");

__device__ int wgmma_probe_flag;

__global__ void wgmma_probe_kernel() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  wgmma_probe_flag = 1;
#else
  wgmma_probe_flag = 0;
#endif
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

constexpr unsigned kBBoxBytes = 2 * kBBoxN * Tile::kBlockK;           // 8 KiB
constexpr int kConsumerRows = Tile::kBlockM / Tile::kConsumers;        // 64: one wgmma's m
constexpr int kSteps = Tile::kBlockK / 16;                             // 4 wgmmas per stage
constexpr int kGroupRows = 16;                                         // tile rows per group of the tile order

// What the kernel derives from its tile's width, kBlockN = 256 or 128 columns.
template <int kBlockN>
struct Width {
  static constexpr int kBBoxes = kBlockN / kBBoxN;                      // B's boxes a stage: 4 or 2
  static constexpr int kAccumulators = kConsumerRows * kBlockN / 128;   // a thread's: 128 or 64
  static constexpr int kEpilogueChunks = kBlockN / 2 / 8;               // 16-byte chunks in a row of half a tile
  static constexpr int kEpilogueRowBytes = kEpilogueChunks * 16;        // 256 or 128
};
// Each tile's stage is its A box and B boxes, and its epilogue tile 64 rows of half its width;
// two B boxes at least, so that both blocks of a cluster of two load a share.
template <class Block>
constexpr bool fits_width() {
  using W = Width<Block::kBlockN>;
  return Block::kStageBytes == Block::kAStageBytes + W::kBBoxes * kBBoxBytes &&
         Block::kEpilogueBytes == kConsumerRows * W::kEpilogueRowBytes && W::kBBoxes % 2 == 0 &&
         (W::kAccumulators == 128 || W::kAccumulators == 64);
}
static_assert(fits_width<WgmmaGemmTile>() && fits_width<WgmmaHalfGemmTile>() && fits_width<WgmmaNarrowGemmTile>() &&
                  fits_width<WgmmaNarrowHalfGemmTile>(),
              "the tiling the kernel is written for");

__device__ __forceinline__ unsigned cluster_rank() {
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}

// Every thread of every block of the cluster; release/acquire, so barrier initialisation
// (before) and the last remote arrivals and copies (at the end) are ordered.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

__device__ __forceinline__ void barrier_init(unsigned barrier, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(barrier), "r"(arrivals) : "memory");
}

// The producer's arrival on a `full` barrier, announcing the bytes its copies will complete.
__device__ __forceinline__ void barrier_expect_bytes(unsigned barrier, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(barrier), "r"(bytes) : "memory");
}

// Waits until the phase of the given parity has completed.
__device__ __forceinline__ void barrier_wait(unsigned barrier, unsigned parity) {
  unsigned done;
  do {
    asm volatile(
        "{\n.reg .pred complete;\nmbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2;\n"
        "selp.u32 %0, 1, 0, complete;\n}\n"
        : "=r"(done)
        : "r"(barrier), "r"(parity)
        : "memory");
  } while (done == 0);
}

// Arrives on the barrier at the same shared offset in block `rank` of the cluster.
__device__ __forceinline__ void barrier_arrive_in(unsigned barrier, unsigned rank) {
  asm volatile(
      "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(barrier),
      "r"(rank)
      : "memory");
}

// TMA: the box at (x, y) (x the contiguous dimension) into this block's shared memory, or
// into the same offset of every block in `blocks`; the bytes complete `barrier` (at that
// offset) in each.
__device__ __forceinline__ void copy_box(unsigned destination, const CUtensorMap* map, int x, int y, unsigned barrier) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::
          "r"(destination),
      "l"(map), "r"(x), "r"(y), "r"(barrier)
      : "memory");
}
__device__ __forceinline__ void copy_box_to_cluster(unsigned destination, const CUtensorMap* map, int x, int y,
                                                    unsigned barrier, unsigned short blocks) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
      "[%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(destination),
      "l"(map), "r"(x), "r"(y), "r"(barrier), "h"(blocks)
      : "memory");
}

// A wgmma shared-memory matrix descriptor with the 128-byte swizzle (PTX ISA, "Matrix
// Descriptor Format"): start address, leading- and stride-dimension byte offsets, all in
// 16-byte units.
__device__ __forceinline__ std::uint64_t descriptor(unsigned address, unsigned leading_bytes, unsigned stride_bytes) {
  return static_cast<std::uint64_t>((address & 0x3FFFF) >> 4) | static_cast<std::uint64_t>(leading_bytes >> 4) << 16 |
         static_cast<std::uint64_t>(stride_bytes >> 4) << 32 | std::uint64_t{1} << 62;
}

// Keeps the compiler from moving accumulator registers while wgmmas that write them are in
// flight.
template <int kAccumulators>
__device__ __forceinline__ void pin(float (&d)[kAccumulators]) {
#pragma unroll
  for (int i = 0; i < kAccumulators; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// The 128 threads of consumer warpgroup `consumer` (named barriers 1 and 2; 0 is the block's).
__device__ __forceinline__ void consumer_sync(int consumer) {
  if (consumer == 0)
    asm volatile("bar.sync 1, 128;\n" ::: "memory");
  else
    asm volatile("bar.sync 2, 128;\n" ::: "memory");
}

__device__ __forceinline__ void store_shared(unsigned address, unsigned value) {
  asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(address), "r"(value) : "memory");
}
__device__ __forceinline__ unsigned short load_shared_u16(unsigned address) {
  unsigned short value;
  asm volatile("ld.shared.u16 %0, [%1];\n" : "=h"(value) : "r"(address) : "memory");
  return value;
}
__device__ __forceinline__ uint4 load_shared(unsigned address) {
  uint4 value;
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(value.x), "=r"(value.y), "=r"(value.z), "=r"(value.w)
               : "r"(address)
               : "memory");
  return value;
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}

// The accumulator operands of one wgmma, %0 .. %63 for m64n128k16 and %0 .. %127 for
// m64n256k16 (the first 64 the same registers of the same columns: d[4j + 2h + e] is column
// 8j + 2t + e whatever N), and their "+f" constraints.
#define GPB_WGMMA_D_REGISTERS_64 \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
  "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, " \
  "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, " \
  "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define GPB_WGMMA_D_REGISTERS_128 \
  GPB_WGMMA_D_REGISTERS_64 \
  ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, " \
  "%81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, " \
  "%98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, " \
  "%126, %127"
#define GPB_WGMMA_ACCUMULATORS_64(d) \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), \
  "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), \
  "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
  "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), \
  "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), \
  "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), \
  "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), \
  "+f"(d[63])
#define GPB_WGMMA_ACCUMULATORS_128(d) \
  GPB_WGMMA_ACCUMULATORS_64(d), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), \
  "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), \
  "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), \
  "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), \
  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), \
  "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), \
  "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), \
  "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), \
  "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), \
  "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

// d (64 x N, f32: N / 2 accumulators a thread) += A (64 x 16, K-major) * B (16 x N, N-major:
// transpose-B set), N = 256 (128 accumulators) or 128 (64), by the size of d. GPB_WGMMA_MMA
// writes one such mma: the instruction's shape and element type, the accumulators' registers,
// and the operand numbers of A's and B's descriptors and of the scale-d flag after them (the
// instruction is a string literal, so each type and shape spells its own).
#define GPB_WGMMA_MMA(accumulators, shape, type, d_registers, a_operand, b_operand, scale_operand)         \
  __device__ static void mma(float (&d)[accumulators], std::uint64_t a, std::uint64_t b) {                   \
    asm volatile("{\n.reg .pred accumulate;\nsetp.ne.b32 accumulate, %" #scale_operand ", 0;\n"               \
                 "wgmma.mma_async.sync.aligned." shape ".f32." type "." type " {" d_registers "}, %" #a_operand \
                 ", %" #b_operand ", accumulate, 1, 1, 0, 1;\n}\n"                                             \
                 : GPB_WGMMA_ACCUMULATORS_##accumulators(d)                                                  \
                 : "l"(a), "l"(b), "n"(1));                                                                  \
  }

template <class T>
struct Wgmma;
template <>
struct Wgmma<__half> {
  GPB_WGMMA_MMA(128, "m64n256k16", "f16", GPB_WGMMA_D_REGISTERS_128, 128, 129, 130)
  GPB_WGMMA_MMA(64, "m64n128k16", "f16", GPB_WGMMA_D_REGISTERS_64, 64, 65, 66)
  __device__ static __half2 round(float low, float high) { return __floats2half2_rn(low, high); }
};
template <>
struct Wgmma<__nv_bfloat16> {
  GPB_WGMMA_MMA(128, "m64n256k16", "bf16", GPB_WGMMA_D_REGISTERS_128, 128, 129, 130)
  GPB_WGMMA_MMA(64, "m64n128k16", "bf16", GPB_WGMMA_D_REGISTERS_64, 64, 65, 66)
  __device__ static __nv_bfloat162 round(float low, float high) { return __floats2bfloat162_rn(low, high); }
};

#undef GPB_WGMMA_MMA
#undef GPB_WGMMA_D_REGISTERS_64
#undef GPB_WGMMA_D_REGISTERS_128
#undef GPB_WGMMA_ACCUMULATORS_64
#undef GPB_WGMMA_ACCUMULATORS_128

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// The work of one launch: row and column tiles, and cluster work units (groups of kClusterM
// row tiles over one column tile, times the parts of k).
struct TileCounts {
  int rows, columns, units;
};
template <int kConsumers, int kBlockN, int kClusterM>
__host__ __device__ inline TileCounts tile_counts(int m, int n, int parts) {
  using Block = WgmmaGemmTileOf<kConsumers, kBlockN>;
  const int rows = (m + Block::kBlockM - 1) / Block::kBlockM, columns = (n + Block::kBlockN - 1) / Block::kBlockN;
  return {rows, columns, (rows + kClusterM - 1) / kClusterM * columns * parts};
}

// The launch bounds are the two-consumer block's for every tile: they cap the registers at
// launch at 168, which setmaxnreg then moves (40 for the producer, 232 for the consumers).
template <class T, int kConsumers, int kBlockN, int kClusterM>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    gemm_wgmma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                      T* __restrict__ c, int ldc, int c_columns, float* __restrict__ partials, int m, int n, int k,
                      int parts, int split_stages) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Block = WgmmaGemmTileOf<kConsumers, kBlockN>;
  using W = Width<kBlockN>;
  constexpr int kBBoxesPerBlock = W::kBBoxes / kClusterM;                // each block loads its share of B
  constexpr unsigned kAStage = static_cast<unsigned>(Block::kAStageBytes);
  constexpr unsigned kEmptyArrivals = kConsumers * 4 * kClusterM;  // consumer warps of the cluster
  constexpr int kGroupUnits = kGroupRows / kClusterM;                    // cluster row groups per group
  extern __shared__ unsigned char shared_memory[];
  const unsigned stages = (shared_address(shared_memory) + 1023) & ~1023u;
  const unsigned epilogue_tiles = stages + Block::kStages * static_cast<unsigned>(Block::kStageBytes);
  const unsigned barriers = epilogue_tiles + kConsumers * static_cast<unsigned>(Block::kEpilogueBytes);
  const auto full = [&](int stage) { return barriers + 8 * stage; };
  const auto empty = [&](int stage) { return barriers + 8 * (Block::kStages + stage); };

  const unsigned rank = cluster_rank();
  if (threadIdx.x == 0) {
    for (int s = 0; s < Block::kStages; ++s) {
      barrier_init(full(s), 1);
      barrier_init(empty(s), kEmptyArrivals);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  cluster_sync();
  // Launched after padded copies of A or B (launch_gemm_wgmma's after_copies), the block got
  // here while they may still run: it reads nothing of global memory before they are done and
  // their writes visible. Launched plainly this returns at once.
  asm volatile("griddepcontrol.wait;\n" ::: "memory");

  const TileCounts counts = tile_counts<kConsumers, kBlockN, kClusterM>(m, n, parts);
  const int cluster = static_cast<int>(blockIdx.x) / kClusterM;
  const int clusters = static_cast<int>(gridDim.x) / kClusterM;
  const int k_stages = (k + Block::kBlockK - 1) / Block::kBlockK;
  // This block's tile and part of k for work unit `unit`: the parts of one tile are
  // neighbouring units; tiles in groups of kGroupUnits cluster row groups, down a group's
  // row groups first; the block of rank r takes row tile kClusterM g + r of row group g.
  const auto work = [&](int unit, int& m0, int& n0, int& part, int& first_stage, int& end_stage) {
    part = unit % parts;
    const int tile = unit / parts;
    const int row_groups = (counts.rows + kClusterM - 1) / kClusterM;
    const int group = tile / (kGroupUnits * counts.columns), in_group = tile % (kGroupUnits * counts.columns);
    const int first = group * kGroupUnits, group_rows = min(row_groups - first, kGroupUnits);
    m0 = ((first + in_group % group_rows) * kClusterM + static_cast<int>(rank)) * Block::kBlockM;
    n0 = in_group / group_rows * Block::kBlockN;
    first_stage = part * split_stages;
    end_stage = min(k_stages, first_stage + split_stages);
  };

  const int warpgroup = static_cast<int>(threadIdx.x) / 128;
  if (warpgroup == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
    if (threadIdx.x == 0) {
      int iteration = 0;
      for (int unit = cluster; unit < counts.units; unit += clusters) {
        int m0, n0, part, first_stage, end_stage;
        work(unit, m0, n0, part, first_stage, end_stage);
        for (int ks = first_stage; ks < end_stage; ++ks, ++iteration) {
          const int stage = iteration % Block::kStages, round = iteration / Block::kStages;
          if (round > 0) barrier_wait(empty(stage), (round - 1) & 1);
          barrier_expect_bytes(full(stage), static_cast<unsigned>(Block::kStageBytes));
          const unsigned a_stage = stages + stage * static_cast<unsigned>(Block::kStageBytes);
          const unsigned b_stage = a_stage + kAStage;
          copy_box(a_stage, &map_a, ks * Block::kBlockK, m0, full(stage));
          for (int box = static_cast<int>(rank) * kBBoxesPerBlock; box < (static_cast<int>(rank) + 1) * kBBoxesPerBlock;
               ++box) {
            if constexpr (kClusterM == 1)
              copy_box(b_stage + box * kBBoxBytes, &map_b, n0 + box * kBBoxN, ks * Block::kBlockK, full(stage));
            else
              copy_box_to_cluster(b_stage + box * kBBoxBytes, &map_b, n0 + box * kBBoxN, ks * Block::kBlockK,
                                  full(stage), static_cast<unsigned short>((1u << kClusterM) - 1));
          }
        }
      }
    }
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
    const int consumer = warpgroup - 1;
    const int warp = static_cast<int>(threadIdx.x) / 32 % 4, lane = static_cast<int>(threadIdx.x) % 32;
    float d[W::kAccumulators];
    int iteration = 0;
    for (int unit = cluster; unit < counts.units; unit += clusters) {
      int m0, n0, part, first_stage, end_stage;
      work(unit, m0, n0, part, first_stage, end_stage);
      const int row0 = m0 + consumer * kConsumerRows;  // this consumer's first row of C
      const bool has_rows = row0 < m;
#pragma unroll
      for (int i = 0; i < W::kAccumulators; ++i) d[i] = 0.0f;
      for (int ks = first_stage; ks < end_stage; ++ks, ++iteration) {
        const int stage = iteration % Block::kStages;
        barrier_wait(full(stage), (iteration / Block::kStages) & 1);
        const unsigned a_stage = stages + stage * static_cast<unsigned>(Block::kStageBytes);
        const std::uint64_t a = descriptor(a_stage + consumer * kConsumerRows * 128, 16, 1024);
        const std::uint64_t b = descriptor(a_stage + kAStage, kBBoxBytes, 1024);
        pin(d);
        wgmma_fence();
#pragma unroll
        for (int step = 0; step < kSteps; ++step)
          Wgmma<T>::mma(d, a + ((step * 32) >> 4), b + ((step * 16 * 128) >> 4));
        wgmma_commit();
        pin(d);
        // The stage before this one is no longer read: its wgmmas are done.
        wgmma_wait<1>();
        pin(d);
        if (ks > first_stage && lane == 0) {
          const int previous = (iteration + Block::kStages - 1) % Block::kStages;
          for (unsigned r = 0; r < kClusterM; ++r) barrier_arrive_in(empty(previous), r);
        }
      }
      wgmma_wait<0>();
      pin(d);
      if (lane == 0) {
        const int last = (iteration + Block::kStages - 1) % Block::kStages;
        for (unsigned r = 0; r < kClusterM; ++r) barrier_arrive_in(empty(last), r);
      }
      if (!has_rows) continue;

      const int g = lane / 4, t = lane % 4;
      if (partials) {
        // Split k: the f32 sums as they are, two neighbouring columns per 8-byte store.
        float* slab = partials + static_cast<std::int64_t>(part) * m * n;
#pragma unroll
        for (int j = 0; j < Block::kBlockN / 8; ++j)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int row = row0 + warp * 16 + g + 8 * h, col = n0 + 8 * j + 2 * t;
            if (row < m && col < n)
              *reinterpret_cast<float2*>(slab + static_cast<std::int64_t>(row) * n + col) =
                  make_float2(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
          }
        continue;
      }

      // The epilogue, in two halves of kBlockN / 2 columns (128, or 64 for the narrow tiles):
      // the accumulator pairs, rounded to T, into this consumer's 64 x kBlockN / 2 tile in
      // shared memory (16 or 8 chunks of 16 bytes a row, chunk c of row r at c ^ (r % 8): a
      // warp's eight rows land on eight different chunks, so its 32 stores of 4 bytes hit 32
      // banks), then whole chunks from there to C, 16 or 8 consecutive lanes to a row's 256 or
      // 128 bytes.
      const unsigned own_tile = epilogue_tiles + consumer * static_cast<unsigned>(Block::kEpilogueBytes);
      const int thread = static_cast<int>(threadIdx.x) % 128;
      const bool whole_chunks = ldc % 8 == 0 && c_columns % 8 == 0;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
#pragma unroll
        for (int j = 0; j < W::kEpilogueChunks; ++j)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int row = warp * 16 + g + 8 * h, accumulator = 4 * (half * W::kEpilogueChunks + j) + 2 * h;
            const auto pair = Wgmma<T>::round(d[accumulator], d[accumulator + 1]);
            store_shared(own_tile + row * W::kEpilogueRowBytes + ((j ^ (row % 8)) * 16) + 4 * t,
                         *reinterpret_cast<const unsigned*>(&pair));
          }
        consumer_sync(consumer);
        const int column0 = n0 + half * (Block::kBlockN / 2);
        if (whole_chunks) {
#pragma unroll
          for (int pass = 0; pass < kConsumerRows * W::kEpilogueChunks / 128; ++pass) {
            const int index = pass * 128 + thread, row = index / W::kEpilogueChunks, chunk = index % W::kEpilogueChunks;
            const int global_row = row0 + row, global_col = column0 + chunk * 8;
            if (global_row < m && global_col < c_columns)
              *reinterpret_cast<uint4*>(c + static_cast<std::int64_t>(global_row) * ldc + global_col) =
                  load_shared(own_tile + row * W::kEpilogueRowBytes + ((chunk ^ (row % 8)) * 16));
          }
        } else {
          store_tile_elements<kConsumerRows, Block::kBlockN / 2, 128>(
              c, ldc, row0, column0, m, c_columns, thread, [&](int row, int column) {
                return load_shared_u16(own_tile + row * W::kEpilogueRowBytes + (((column / 8) ^ (row % 8)) * 16) +
                                       (column % 8) * 2);
              });
        }
        // The tile is read before the next half (or tile) overwrites it.
        consumer_sync(consumer);
      }
    }
  }
  // No block leaves while its peer may still arrive on its barriers or copy into it.
  cluster_sync();
#else
  __trap();  // wgmma_gemm_compiled_in is false for this code; the callers check
#endif
}

// cuTensorMapEncodeTiled from the driver, found through the runtime (the kernels link the
// runtime alone).
PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static const PFN_cuTensorMapEncodeTiled_v12000 function = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    GPB_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || entry == nullptr)
      throw std::runtime_error("the CUDA driver has no cuTensorMapEncodeTiled (TMA needs driver 12.0 or newer)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(entry);
  }();
  return function;
}

// A 2-D row-major tensor of 16-bit elements, `columns` wide (rows `stride` elements apart),
// read in boxes of box_columns x box_rows with the 128-byte swizzle; elements past `columns`
// or `rows` read as zero.
template <class T>
CUtensorMap tensor_map(const T* base, int columns, int rows, int stride, int box_columns, int box_rows) {
  CUtensorMap map{};
  const cuuint64_t dimensions[2] = {static_cast<cuuint64_t>(columns), static_cast<cuuint64_t>(rows)};
  const cuuint64_t row_stride[1] = {static_cast<cuuint64_t>(stride) * sizeof(T)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_columns), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult status = encode_tiled()(
      &map, std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2,
      const_cast<T*>(base), dimensions, row_stride, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS)
    throw std::runtime_error("cuTensorMapEncodeTiled failed (CUresult " + std::to_string(static_cast<int>(status)) +
                             ") for a " + std::to_string(rows) + " x " + std::to_string(columns) + " operand");
  return map;
}

// The launch's configuration: clusters of kClusterM blocks, and where `overlap` a programmatic
// dependent launch (the kernel's griddepcontrol.wait holds its loads). attributes: room for two.
template <int kConsumers, int kBlockN, int kClusterM>
cudaLaunchConfig_t launch_config(int blocks, cudaStream_t stream, cudaLaunchAttribute (&attributes)[2],
                                 bool overlap = false) {
  using Block = WgmmaGemmTileOf<kConsumers, kBlockN>;
  attributes[0] = cudaLaunchAttribute{};
  attributes[0].id = cudaLaunchAttributeClusterDimension;
  attributes[0].val.clusterDim.x = kClusterM;
  attributes[0].val.clusterDim.y = 1;
  attributes[0].val.clusterDim.z = 1;
  attributes[1] = cudaLaunchAttribute{};
  attributes[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attributes[1].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(blocks));
  config.blockDim = dim3(Block::kThreads);
  config.dynamicSmemBytes = Block::kSharedBytes;
  config.stream = stream;
  config.attrs = attributes;
  config.numAttrs = overlap ? 2 : 1;
  return config;
}

template <int kConsumers, int kBlockN, int kClusterM>
int allow_shared_bytes_and_count_clusters() {
  constexpr int bytes = static_cast<int>(WgmmaGemmTileOf<kConsumers, kBlockN>::kSharedBytes);
  for (const void* kernel :
       {reinterpret_cast<const void*>(gemm_wgmma_kernel<__half, kConsumers, kBlockN, kClusterM>),
        reinterpret_cast<const void*>(gemm_wgmma_kernel<__nv_bfloat16, kConsumers, kBlockN, kClusterM>)})
    GPB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  cudaLaunchAttribute attributes[2];
  const cudaLaunchConfig_t config = launch_config<kConsumers, kBlockN, kClusterM>(kClusterM, nullptr, attributes);
  int clusters = 0;
  GPB_CUDA_CHECK(
      cudaOccupancyMaxActiveClusters(&clusters, gemm_wgmma_kernel<__half, kConsumers, kBlockN, kClusterM>, &config));
  if (clusters < 1)
    throw std::runtime_error("no cluster of " + std::to_string(kClusterM) + " blocks of the wgmma GEMM's " +
                             std::to_string(64 * kConsumers) + " x " + std::to_string(kBlockN) +
                             " tile fits on this device");
  return clusters;
}

// The tile's clusters of one block and of two, into `grid`.
template <int kConsumers, int kBlockN>
void count_clusters(WgmmaGrid& grid) {
  int(&counts)[2] = grid.counts[WgmmaGrid::tile_index(kConsumers, kBlockN)];
  counts[0] = allow_shared_bytes_and_count_clusters<kConsumers, kBlockN, 1>();
  counts[1] = allow_shared_bytes_and_count_clusters<kConsumers, kBlockN, 2>();
}

// A's and B's descriptors for a tile of block_m rows: maps' where it holds them for these
// operands, else encoded (into maps, where given).
template <class T>
void operand_maps(const GemmOperands<T>& o, int block_m, WgmmaMaps* maps, CUtensorMap& map_a, CUtensorMap& map_b) {
  static_assert(sizeof(CUtensorMap) == sizeof(WgmmaMaps::a), "a descriptor is 128 bytes");
  const bool same = maps && maps->encoded && maps->a_base == o.a && maps->b_base == o.b && maps->m == o.m &&
                    maps->n == o.n && maps->k == o.k && maps->lda == o.lda && maps->ldb == o.ldb &&
                    maps->block_m == block_m;
  if (same) {
    std::memcpy(&map_a, maps->a, sizeof map_a);
    std::memcpy(&map_b, maps->b, sizeof map_b);
    return;
  }
  map_a = tensor_map(o.a, o.k, o.m, o.lda, Tile::kBlockK, block_m);
  map_b = tensor_map(o.b, o.n, o.k, o.ldb, kBBoxN, Tile::kBlockK);
  if (!maps) return;
  std::memcpy(maps->a, &map_a, sizeof map_a);
  std::memcpy(maps->b, &map_b, sizeof map_b);
  maps->a_base = o.a;
  maps->b_base = o.b;
  maps->m = o.m;
  maps->n = o.n;
  maps->k = o.k;
  maps->lda = o.lda;
  maps->ldb = o.ldb;
  maps->block_m = block_m;
  maps->encoded = true;
}

template <class T, int kConsumers, int kBlockN, int kClusterM>
void launch_clusters(const GemmOperands<T>& o, const CUtensorMap& map_a, const CUtensorMap& map_b, int clusters,
                     bool after_copies, cudaStream_t stream) {
  using Block = WgmmaGemmTileOf<kConsumers, kBlockN>;
  const int split_stages = (o.split_k + Block::kBlockK - 1) / Block::kBlockK;
  const int units = tile_counts<kConsumers, kBlockN, kClusterM>(o.m, o.n, o.parts).units;
  cudaLaunchAttribute attributes[2];
  const cudaLaunchConfig_t config = launch_config<kConsumers, kBlockN, kClusterM>(
      (units < clusters ? units : clusters) * kClusterM, stream, attributes, after_copies);
  GPB_CUDA_CHECK(cudaLaunchKernelEx(&config, gemm_wgmma_kernel<T, kConsumers, kBlockN, kClusterM>, map_a, map_b, o.c,
                                    o.ldc, o.c_columns, o.partials, o.m, o.n, o.k, o.parts, split_stages));
}

template <class T, int kConsumers, int kBlockN>
void launch_tile(const GemmOperands<T>& o, const CUtensorMap& map_a, const CUtensorMap& map_b, int cluster_m,
                 int clusters, bool after_copies, cudaStream_t stream) {
  if (cluster_m == 2)
    launch_clusters<T, kConsumers, kBlockN, 2>(o, map_a, map_b, clusters, after_copies, stream);
  else
    launch_clusters<T, kConsumers, kBlockN, 1>(o, map_a, map_b, clusters, after_copies, stream);
}

}  // namespace

bool wgmma_gemm_compiled_in() {
  wgmma_probe_kernel<<<1, 1>>>();
  GPB_CHECK_LAUNCH();
  int flag = 0;
  GPB_CUDA_CHECK(cudaMemcpyFromSymbol(&flag, wgmma_probe_flag, sizeof flag));
  return flag == 1;
}

int WgmmaGrid::tile_index(int consumers, int block_n) {
  if ((consumers != 1 && consumers != 2) || (block_n != 256 && block_n != 128))
    throw std::invalid_argument("wgmma GEMM: a tile of " + std::to_string(consumers) + " consumer warpgroups and " +
                                std::to_string(block_n) + " columns; 1 or 2 warpgroups, 256 or 128 columns");
  return (block_n == 256 ? 0 : 2) + (consumers == 2 ? 0 : 1);
}

int WgmmaGrid::clusters(int consumers, int block_n, int cluster_m) const {
  const int index = tile_index(consumers, block_n);
  if (cluster_m != 1 && cluster_m != 2)
    throw std::invalid_argument("wgmma GEMM: clusters of " + std::to_string(cluster_m) + " blocks; 1 or 2");
  return counts[index][cluster_m - 1];
}

WgmmaGrid configure_gemm_wgmma() {
  WgmmaGrid grid;
  count_clusters<2, 256>(grid);
  count_clusters<1, 256>(grid);
  count_clusters<2, 128>(grid);
  count_clusters<1, 128>(grid);
  return grid;
}

template <class T>
void launch_gemm_wgmma(const GemmOperands<T>& operands, int consumers, int block_n, int cluster_m,
                       const WgmmaGrid& grid, cudaStream_t stream, bool after_copies, WgmmaMaps* maps) {
  if ((consumers != 1 && consumers != 2) || (block_n != 256 && block_n != 128) || (cluster_m != 1 && cluster_m != 2))
    throw std::invalid_argument("wgmma GEMM: " + std::to_string(consumers) + " consumer warpgroups, tiles " +
                                std::to_string(block_n) + " columns wide and clusters of " + std::to_string(cluster_m) +
                                " blocks; 1 or 2 warpgroups, 256 or 128 columns, clusters of 1 or 2");
  const int clusters = grid.clusters(consumers, block_n, cluster_m);
  CUtensorMap map_a, map_b;
  operand_maps(operands, 64 * consumers, maps, map_a, map_b);
  if (block_n == 256) {
    if (consumers == 2)
      launch_tile<T, 2, 256>(operands, map_a, map_b, cluster_m, clusters, after_copies, stream);
    else
      launch_tile<T, 1, 256>(operands, map_a, map_b, cluster_m, clusters, after_copies, stream);
  } else if (consumers == 2) {
    launch_tile<T, 2, 128>(operands, map_a, map_b, cluster_m, clusters, after_copies, stream);
  } else {
    launch_tile<T, 1, 128>(operands, map_a, map_b, cluster_m, clusters, after_copies, stream);
  }
}

template void launch_gemm_wgmma<__half>(const GemmOperands<__half>&, int, int, int, const WgmmaGrid&, cudaStream_t,
                                        bool, WgmmaMaps*);
template void launch_gemm_wgmma<__nv_bfloat16>(const GemmOperands<__nv_bfloat16>&, int, int, int, const WgmmaGrid&,
                                               cudaStream_t, bool, WgmmaMaps*);

}  // namespace gpb::kernels
