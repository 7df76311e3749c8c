// The OpenBLAS backend: dense matmul through CBLAS gemm. BLAS has nothing for the other
// ops, and the backend says so rather than dressing up a non-BLAS loop under its name.
#include <cblas.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "cpu_backends.hpp"
#include "threading.hpp"

namespace gpb {
namespace {

template <class T>
class OpenBlasPrepared final : public CpuPrepared<T> {
 public:
  using CpuPrepared<T>::CpuPrepared;

  // C = 1 * A B + 0 * C, all row-major with tight leading dimensions.
  void run() override {
    const Problem& problem = this->problem();
    const auto m = static_cast<blasint>(problem.shape.m);
    const auto n = static_cast<blasint>(problem.shape.n);
    const auto k = static_cast<blasint>(problem.shape.k);
    const T* a = problem.a.template as<T>().data();
    const T* b = problem.b.template as<T>().data();
    if constexpr (std::is_same_v<T, float>)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, this->output(), n);
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, k, b, n, 0.0, this->output(), n);
  }

  std::string details() const override {
    return std::string(std::is_same_v<T, float> ? "cblas_sgemm" : "cblas_dgemm") + " row-major; " +
           std::to_string(this->threads()) + " threads";
  }
};

class OpenBlasBackend final : public Backend {
 public:
  std::string name() const override { return "openblas"; }
  std::string description() const override {
    return std::string(openblas_get_config()) + "; matmul only";  // the config names version and core
  }
  DeviceKind kind() const override { return DeviceKind::cpu; }
  Availability availability() const override { return {}; }

  Support supports(Op op, DType) const override {
    switch (op) {
      case Op::matmul:
        return {};
      case Op::sin:
        return {false, "openblas provides no sin kernel (BLAS has no elementwise transcendental); use eigen"};
      case Op::sqrt:
        return {false, "openblas provides no sqrt kernel (BLAS has no elementwise math); use eigen"};
      case Op::sum:
        return {false, "openblas provides no plain sum (BLAS asum is the sum of |x|, not the sum of x); use eigen"};
      case Op::spmv:
        return {false, "openblas has no sparse routines (no CSR spmv); use eigen"};
    }
    return {false, "unknown op"};
  }

  std::unique_ptr<Prepared> prepare(const Problem& problem, const BackendSettings& settings) override {
    const Support support = supports(problem.op, problem.dtype);
    if (!support.supported) throw std::runtime_error(support.reason);
    const int threads = apply_thread_count(settings.threads);
    return dispatch_dtype(problem.dtype, [&](auto tag) -> std::unique_ptr<Prepared> {
      return std::make_unique<OpenBlasPrepared<decltype(tag)>>(problem, threads);
    });
  }

  int threads_used(const BackendSettings& settings) const override { return resolve_thread_count(settings.threads); }
};

}  // namespace

std::unique_ptr<Backend> make_openblas_backend() { return std::make_unique<OpenBlasBackend>(); }

}  // namespace gpb
