// A 16-byte aligned group of elements: loads and stores of it compile to single
// 128-bit accesses (LDG.128 / STG.128 / LDS.128), 4 floats or 2 doubles at a time.
#pragma once

namespace gpb::kernels {

template <class T>
struct alignas(16) Vec16 {
  static constexpr int kLanes = 16 / sizeof(T);
  T lane[kLanes];
};

}  // namespace gpb::kernels
