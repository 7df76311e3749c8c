// The OpenBLAS backend: dense matmul through CBLAS gemm. BLAS has nothing for the other
// ops, and the backend says so rather than dressing up a non-BLAS loop under its name.
// bf16 runs through cblas_sbgemm where the OpenBLAS loaded exports it: bf16 A and B, f32
// accumulation and an f32 C, which a vectorisable loop rounds to bf16 inside the timed run.
// OpenBLAS has no f16 gemm in its CBLAS interface. The library is loaded at run time
// (openblas_library.hpp says why).
#include <strings.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cpu_backend/cpu_backends.hpp"
#include "cpu_backend/eigen_types.hpp"
#include "cpu_backend/openblas_library.hpp"
#include "cpu_backend/threading.hpp"
#include "model/op_table.hpp"

namespace gpb {
namespace {

// The OpenBLAS core a CPU with these instruction sets should run, or null for none better
// than the generic fallback.
const char* core_for_instruction_sets() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
  return nullptr;
}

// A DYNAMIC_ARCH OpenBLAS picks its kernels by CPU model when it loads; a model it does not
// know (a virtual machine's generic "Intel Xeon Processor", a CPU newer than the library)
// gets the generic Prescott (SSE3) kernels. On the H200 host OpenBLAS 0.3.21 did that and
// ran sgemm at 622 GFLOP/s against Eigen's 2365. So, unless the user chose a core with
// OPENBLAS_CORETYPE, a Prescott fallback on a CPU with AVX2 or AVX-512 is replaced by the
// matching core: the library's own selection runs again (gotoblas_dynamic_quit/init, found
// at run time because only DYNAMIC_ARCH builds have them) with OPENBLAS_CORETYPE set, as if
// the user had set it. Returns how the core was chosen, for the case details.
std::string choose_core() {
  const OpenBlasLibrary& library = openblas_library();
  const std::string detected = library.get_corename();
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return "core " + detected + " (OPENBLAS_CORETYPE)";
  if (strcasecmp(detected.c_str(), "prescott") != 0) return "core " + detected;
  const char* core = core_for_instruction_sets();
  if (core == nullptr || library.dynamic_quit == nullptr || library.dynamic_init == nullptr) return "core " + detected;
  setenv("OPENBLAS_CORETYPE", core, 0);
  library.dynamic_quit();
  library.dynamic_init();
  return "core " + std::string(library.get_corename()) +
         " (set by gpubench from the CPU's instruction sets: OpenBLAS fell back to " + detected +
         " on this CPU model)";
}

Support matmul_support(DType dtype) {
  switch (dtype) {
    case DType::f32:
    case DType::f64:
      return {};
    case DType::bf16:
      if (openblas_library().sbgemm) return {};
      return {false, "this OpenBLAS does not export cblas_sbgemm (built without BUILD_BFLOAT16); use eigen"};
    case DType::f16:
      return {false, "OpenBLAS's CBLAS has no f16 gemm; use eigen"};
  }
  return {false, "openblas: unknown dtype"};
}

template <class T>
class OpenBlasPrepared final : public CpuPrepared<T> {
 public:
  OpenBlasPrepared(const Problem& problem, int threads) : CpuPrepared<T>(problem, threads) {
    if constexpr (std::is_same_v<T, BFloat16>)
      float_output_.resize(static_cast<std::size_t>(problem.shape.m * problem.shape.n));
  }

  // C = 1 * A B + 0 * C, all row-major with tight leading dimensions.
  void compute() override {
    const Problem& problem = this->problem();
    const auto m = static_cast<blasint>(problem.shape.m);
    const auto n = static_cast<blasint>(problem.shape.n);
    const auto k = static_cast<blasint>(problem.shape.k);
    const T* a = problem.a.template as<T>().data();
    const T* b = problem.b.template as<T>().data();
    const OpenBlasLibrary& blas = openblas_library();
    if constexpr (std::is_same_v<T, float>) {
      blas.sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, this->output(), n);
    } else if constexpr (std::is_same_v<T, double>) {
      blas.dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, k, b, n, 0.0, this->output(), n);
    } else if constexpr (std::is_same_v<T, BFloat16>) {
      if (!blas.sbgemm) throw std::logic_error("openblas: bf16 matmul without cblas_sbgemm");
      blas.sbgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, reinterpret_cast<const bfloat16*>(a), k,
                  reinterpret_cast<const bfloat16*>(b), n, 0.0f, float_output_.data(), n);
      round_output_to_bf16();
    } else {
      throw std::logic_error("openblas: no gemm for " + to_string(problem.dtype));
    }
  }

  std::string details() const override {
    const char* routine = std::is_same_v<T, float>    ? "cblas_sgemm"
                          : std::is_same_v<T, double> ? "cblas_dgemm"
                                                      : "cblas_sbgemm (f32 accumulation, f32 C rounded to bf16 in the run)";
    return std::string(routine) + " row-major; " + std::to_string(openblas_library().get_num_threads()) + " threads; " +
           openblas_core_choice();
  }

 private:
  void round_output_to_bf16() {
    const auto size = static_cast<std::int64_t>(float_output_.size());
    const float* from = float_output_.data();
    Eigen::bfloat16* to = eigen_data(this->output());
#pragma omp parallel for schedule(static) num_threads(this->threads())
    for (std::int64_t i = 0; i < size; ++i) to[i] = Eigen::bfloat16(from[i]);
  }

  std::vector<float> float_output_;  // bf16 only: cblas_sbgemm's C
};

class OpenBlasBackend final : public Backend {
 public:
  std::string name() const override { return "openblas"; }
  std::string description() const override {
    try {
      return std::string(openblas_library().get_config()) + "; matmul only";  // the config names version and core
    } catch (const std::runtime_error& error) {
      return error.what();
    }
  }
  DeviceKind kind() const override { return DeviceKind::cpu; }
  Availability availability() const override {
    try {
      openblas_library();
      return {};
    } catch (const std::runtime_error& error) {
      return {false, error.what()};
    }
  }

  Support supports(Op op, DType dtype) const override {
    if (op == Op::matmul) return matmul_support(dtype);
    if (op_def(op).elementwise)
      return {false, "openblas provides no " + to_string(op) + " kernel (BLAS has no elementwise math); use eigen"};
    if (op == Op::sum) return {false, "openblas provides no plain sum (BLAS asum is the sum of |x|, not the sum of x); use eigen"};
    if (op == Op::spmv) return {false, "openblas has no sparse routines (no CSR spmv); use eigen"};
    return no_kernel_for(name(), op);
  }

  std::unique_ptr<Prepared> prepare(const Problem& problem, const BackendSettings& settings) override {
    const Support support = supports(problem.op, problem.dtype);
    if (!support.supported) throw std::runtime_error(support.reason);
    openblas_core_choice();
    const int threads = apply_thread_count(settings.threads);
    start_openblas_threads(threads);
    return dispatch_dtype(problem.dtype, [&](auto tag) -> std::unique_ptr<Prepared> {
      return std::make_unique<OpenBlasPrepared<decltype(tag)>>(problem, threads);
    });
  }

  int threads_used(const BackendSettings& settings) const override { return resolve_thread_count(settings.threads); }
};

}  // namespace

const std::string& openblas_core_choice() {
  static const std::string choice = choose_core();
  return choice;
}

std::unique_ptr<Backend> make_openblas_backend() { return std::make_unique<OpenBlasBackend>(); }

}  // namespace gpb
