// Dense C = A * B (row-major) with a tiled shared-memory kernel; design notes in gemm.cu.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace gpb::kernels {

// A tile of the SIMT kernel: the rows and columns of C a block computes, those a thread
// computes, and in how many groups a thread's rows (and columns) lie: groups of
// kThreadM / kGroups rows, kBlockM / kGroups apart. k is walked in shared-memory stages of
// kBlockK (f64: simt_stage_depth).
template <int kM, int kN, int kTM, int kTN, int kG>
struct SimtTileShape {
  static constexpr int kBlockM = kM;
  static constexpr int kBlockN = kN;
  static constexpr int kBlockK = 16;
  static constexpr int kThreadM = kTM;
  static constexpr int kThreadN = kTN;
  static constexpr int kGroups = kG;
  static constexpr int kThreads = (kBlockM / kThreadM) * (kBlockN / kThreadN);
};

// The large tile, for grids that fill the device: 128 x 128, 8 x 8 a thread in two groups.
struct GemmTile : SimtTileShape<128, 128, 8, 8, 2> {};

// The small tile, for products whose large-tile grid would leave SMs idle (1000 x 333 x 77:
// 24 blocks; src/gemm_dispatch.cpp chooses): a quarter of the area and a quarter of the work
// per thread. On an H100 it ran 1000 x 333 x 77 in 10.1 against 22.9 us (cuBLAS 8.0); stages
// of 32 ran it no faster, and it is slower than the large tile at 4096 (4.50 against 3.64 ms).
struct SmallGemmTile : SimtTileShape<64, 64, 4, 4, 1> {};

// The slim tile, for C at most 32 columns wide (2212 x 30 x 9642), where the 64-column
// tiles compute twice the products needed: 128 rows x 32 columns, 8 x 4 per thread, 128
// threads.
struct SlimGemmTile : SimtTileShape<128, 32, 8, 4, 1> {};

// The wide tile, its mirror, for C of at most 32 rows (23 x 4056 x 12268), where the 64-row
// tiles compute two to four times the products needed: 32 rows x 128 columns, 8 x 4 per
// thread, 128 threads. A warp's lanes share their rows of A (one broadcast read) and read 32
// neighbouring 16-byte vectors of B.
struct WideGemmTile : SimtTileShape<32, 128, 8, 4, 1> {};

// Which of the tiles above a launch takes.
enum class SimtTile { large, small, slim, wide };

// The blocks of a tile's kernel an SM holds at least (its launch bounds): 16 warps for f32,
// 8 for f64 (whose register tile needs about twice the registers).
template <class T, class Tile>
constexpr int simt_min_blocks_per_sm() {
  return (sizeof(T) == 4 ? 16 : 8) * 32 / Tile::kThreads;
}

// The depth of k a stage of a tile's kernel holds: the tile's kBlockK, halved until the two
// stages (A transposed with a row padded by one 16-byte vector, and B) fit in 48 KiB of static
// shared memory -- f64's large tile walks k in stages of 8. A divisor of kBlockK, so a split
// of k into multiples of kBlockK is whole stages for every element type.
template <class T, class Tile>
__host__ __device__ constexpr int simt_stage_depth() {
  int depth = Tile::kBlockK;
  while (2 * depth * (Tile::kBlockM + 16 / static_cast<int>(sizeof(T)) + Tile::kBlockN) * static_cast<int>(sizeof(T)) >
         48 * 1024)
    depth /= 2;
  return depth;
}

// C (m x n) = A (m x k) * B (k x n), all row-major, any m, n, k >= 1; A's rows lda apart
// and B's ldb apart (lda >= k, ldb >= n), C's n. `vectorized` selects 16-byte global loads,
// legal only where lda and ldb are multiples of the vector width (4 floats, 2 doubles) and
// the columns past k in A's rows and past n in B's, to that width, are zeros (a padded copy;
// none where lda = k and ldb = n), and C's rows are stored 16 bytes at a time where n is
// such a multiple too; otherwise the same tiling runs with element-wise global accesses.
// `tile` selects the tile. With parts > 1, k is split into parts of split_k (a multiple of
// the tile's kBlockK; the last may be shorter) and part p's product goes to c + p * m * n, a
// workspace of partials for launch_add_partials; with one part, c is C and split_k at least k.
template <class T>
void launch_gemm(int m, int n, int k, int lda, int ldb, const T* a, const T* b, T* c, bool vectorized, SimtTile tile,
                 int parts, int split_k, cudaStream_t stream);

// The same tiles for f16 and bf16 (T: __half, __nv_bfloat16) on the CUDA cores: A's and B's
// elements read one at a time (rows of any length, no padded copies) and widened to f32 as a
// stage is stored to shared memory, the sums in f32, each entry of C rounded once. One launch,
// all of k: for small products whose rows are not whole 16-byte chunks, where the tensor-core
// path's padded copies and second launch cost more than these tiles' FMAs and their stages'
// load latency (src/measure/gemm_dispatch.cpp, rule 5).
template <class T>
void launch_gemm_widened(int m, int n, int k, const T* a, const T* b, T* c, SimtTile tile, cudaStream_t stream);

}  // namespace gpb::kernels
