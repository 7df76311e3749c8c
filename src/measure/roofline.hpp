// Roofline: each result's achieved rate as a fraction of its device's ceilings, from the
// ceilings that the context records. Pure functions: nothing here measures or formats.
#pragma once

#include <vector>

#include "model/result.hpp"

namespace gpb {

// Sets gpu.peak_fp32/fp64/tf32_gflops from its compute capability, SM count and SM clock
// (the boost clock the driver reports); an architecture not in the table gets 0 (unknown).
void set_theoretical_peaks(GpuInfo& gpu);

// The roofline of one record. GPU records ran on their gpu.ordinal, or where they do not
// name one, on device ordinal `device`.
//   memory-bound ops: GB/s against the measured copy bandwidth of the record's device kind,
//                     and (GPU) against the theoretical DRAM bandwidth;
//   matmul:           GFLOP/s against the GPU's theoretical peak for the dtype (TF32 when
//                     the case allowed it); a CPU matmul has no ceiling. Its matrix-vector
//                     shapes are memory-bound (op_bound) and rated as memory-bound ops.
//   Which of the two bounds a GPU record has is the roofline's own question where the device's
//   ceilings are known: its flops per byte against the ridge, the dtype's peak over the
//   measured copy bandwidth. So a GEMM of long k and tiny output (64 x 64 x 1048576 in bf16:
//   32 flops a byte against about 360 on an H100, 1070 TFLOP/s at 1.98 GHz over the 2.98
//   TB/s measured) is memory-bound as a matrix-vector one is,
//   and a CPU record, or a GPU one without those ceilings, keeps its op's bound (op_bound).
// e2e figures include the host transfers, which no device ceiling bounds: they get none.
// Graph figures are the op's own time and are rated as kernel figures are.
// A compute-bound GPU record whose telemetry saw the SM clock also gets the fraction of the
// peak at that clock (fraction_at_held_clock); a memory-bound GPU record measured with a warm
// L2 whose bytes fit in the L2 is marked l2_resident, with the ceiling name "L2-resident" and
// no DRAM ceiling or fraction.
// A record without measurements gets an empty roofline.
Roofline roofline_of(const ResultRecord& record, const Context& context, int device);

// Sets every record's roofline.
void annotate_roofline(const Context& context, std::vector<ResultRecord>& results, int device);

}  // namespace gpb
