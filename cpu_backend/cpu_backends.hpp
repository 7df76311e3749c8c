// What the CPU backends share: the prepared-case base that owns the output buffer, the
// Eigen sqrt and the vectorised double sin kept in their own files, and the factories
// cpu_backends.cpp registers.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu_backend/cpu_timer.hpp"
#include "measure/backend.hpp"
#include "measure/rapl.hpp"
#include "model/op_table.hpp"

namespace gpb {

// A CPU case ready to run. The output is allocated here, in prepare, and first-touched by
// the worker threads with a static schedule, so page faults stay out of the samples and
// each thread's pages sit on its own NUMA node. Its element type is the op's output dtype:
// T, or T's accumulation type where the op stores its result in that (sum of f16 or bf16).
// The runner keeps the Problem alive longer than this object, so a pointer to it suffices.
template <class T>
class CpuPrepared : public Prepared {
 public:
  CpuPrepared(const Problem& problem, int threads)
      : problem_(&problem),
        threads_(threads),
        output_dtype_(op_output_dtype(problem.op, problem.dtype)),
        output_size_(op_output_size(problem.op, problem.shape)),
        output_(static_cast<unsigned char*>(
            ::operator new[](static_cast<std::size_t>(output_size_) * dtype_size(output_dtype_), kAlignment))) {
    unsigned char* output = output_.get();
    const auto bytes = static_cast<std::int64_t>(output_size_ * static_cast<std::int64_t>(dtype_size(output_dtype_)));
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t i = 0; i < bytes; ++i) output[i] = 0;  // zero bits are zero in every dtype
  }

  void run() final { compute(); }
  bool runs_on_host_threads() const final { return true; }
  EnergySource energy_source() override { return make_rapl_energy_source(); }
  std::unique_ptr<SampleTimer> make_timer() override { return std::make_unique<SteadyClockTimer>(); }
  HostArray result() override {
    return dispatch_dtype(output_dtype_, [&](auto tag) {
      using Output = decltype(tag);
      const Output* output = output_as<Output>();
      return HostArray(std::vector<Output>(output, output + output_size_));
    });
  }

 protected:
  // One run of the op.
  virtual void compute() = 0;
  const Problem& problem() const { return *problem_; }
  int threads() const { return threads_; }
  T* output() { return output_as<T>(); }
  // The output as its element type, where that is not T (see the class comment).
  template <class Output>
  Output* output_as() {
    if (dtype_size(output_dtype_) != sizeof(Output)) throw std::logic_error("CPU output read as the wrong type");
    return reinterpret_cast<Output*>(output_.get());
  }

 private:
  // Aligned to the cache line and the widest vector (AVX-512), so blocks of a multiple of 16
  // entries start on a vector boundary: Eigen then peels no scalar iterations at a block
  // start, whose results would depend on where the allocation happened to land.
  static constexpr std::align_val_t kAlignment{64};
  struct AlignedDelete {
    void operator()(unsigned char* output) const { ::operator delete[](output, kAlignment); }
  };

  const Problem* problem_;
  int threads_;
  DType output_dtype_;
  std::int64_t output_size_;
  std::unique_ptr<unsigned char[], AlignedDelete> output_;  // untouched until the fill above
};

// y = sqrt(x) for one block through Eigen array maps, built without Eigen's fast math
// (eigen_sqrt.cpp says why).
template <class T>
void eigen_sqrt_block(const T* x, T* y, std::int64_t count);
// Whether that sqrt runs on SIMD packets in this build (not on AVX-512 with Eigen 3.4).
template <class T>
bool eigen_sqrt_is_vectorised();

// y = sin(x) for one block of doubles, vectorised (vector_sin.cpp says how and why).
void sin_block_f64(const double* x, double* y, std::int64_t count);

// Chooses OpenBLAS's kernels once per process where its own choice fell back to generic
// ones (openblas_backend.cpp says when) and says which core runs and why.
const std::string& openblas_core_choice();

std::unique_ptr<Backend> make_eigen_backend();
std::unique_ptr<Backend> make_openblas_backend();

}  // namespace gpb
