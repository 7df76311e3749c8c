#include "model/problem.hpp"

#include <cstdio>
#include <limits>
#include <map>
#include <mutex>

#include "base/random.hpp"
#include "base/system.hpp"
#include "model/matrix_market.hpp"

namespace gpb {
namespace {

// Values are drawn in double and rounded to T.
template <class T>
void fill_uniform(std::vector<T>& values, std::uint64_t key, double low, double high) {
  const auto count = static_cast<std::int64_t>(values.size());
  const double width = high - low;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i)
    values[static_cast<std::size_t>(i)] =
        static_cast<T>(low + width * unit_interval(random_bits(key, static_cast<std::uint64_t>(i))));
}

std::string gibibytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

}  // namespace

std::uint64_t input_key(const Problem& problem) {
  const Shape& shape = problem.shape;
  std::uint64_t key = derive_key(problem.seed, static_cast<std::uint64_t>(problem.op));
  const auto mix_in = [&key](std::int64_t value) { key = derive_key(key, static_cast<std::uint64_t>(value)); };
  switch (shape_kind(problem.op)) {
    case ShapeKind::elements:
      mix_in(shape.n);
      break;
    case ShapeKind::dense_matrix:
      mix_in(shape.m);
      mix_in(shape.n);
      mix_in(shape.k);
      break;
    case ShapeKind::sparse_matrix:
      mix_in(static_cast<std::int64_t>(shape.pattern));
      mix_in(shape.rows);
      if (shape.pattern == SpmvPattern::file) {
        // The loaded matrix's own sizes, not its path, which differs from machine to machine.
        mix_in(shape.cols);
        mix_in(shape.nnz);
      } else {
        mix_in(shape.nnz_per_row);
      }
      break;
  }
  return key;
}

HostArray uniform_array(DType dtype, std::int64_t count, std::uint64_t key, double low, double high) {
  HostArray array(dtype, static_cast<std::size_t>(count));
  dispatch_dtype(dtype, [&](auto tag) { fill_uniform(array.as<decltype(tag)>(), key, low, high); });
  return array;
}

HostArray converted_values(DType dtype, const std::vector<double>& values) {
  HostArray array(dtype, values.size());
  dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    std::vector<T>& converted = array.as<T>();
    const auto count = static_cast<std::int64_t>(values.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i)
      converted[static_cast<std::size_t>(i)] = static_cast<T>(values[static_cast<std::size_t>(i)]);
  });
  return array;
}

void require_positive(std::int64_t value, const std::string& what) {
  if (value <= 0) throw UsageError(what + " must be positive (got " + std::to_string(value) + ")");
}

void check_fits_in_memory(const Problem& problem, double bytes) {
  const double available = allocatable_memory_bytes();  // 0: unknown
  if (available > 0 && bytes > available)
    throw UsageError(to_string(problem.op) + " " + to_string(problem.dtype) + " " + problem.shape.label(problem.op) + " needs " +
                     gibibytes(bytes) + " GiB, more than the " + gibibytes(available) +
                     " GiB this process may allocate (the machine's memory, or ulimit -v)");
}

std::shared_ptr<const CsrMatrix> load_matrix_cached(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const CsrMatrix>> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& entry = cache[path];
  if (!entry) entry = std::make_shared<const CsrMatrix>(read_matrix_market(path));
  return entry;
}

}  // namespace gpb
