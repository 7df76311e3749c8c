#include "model/problem.hpp"

#include <algorithm>
#include <cmath>
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

// Normal draws by Box-Muller: two uniform draws of the entry's own pair of indices, the
// first taken from (0, 1] so that its logarithm is finite.
template <class T>
void fill_normal(std::vector<T>& values, std::uint64_t key, double mean, double sd, bool folded) {
  constexpr double kTwoPi = 6.283185307179586;
  const auto count = static_cast<std::int64_t>(values.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
    const auto index = 2 * static_cast<std::uint64_t>(i);
    const double radius = 1 - unit_interval(random_bits(key, index));
    const double angle = unit_interval(random_bits(key, index + 1));
    const double value = mean + sd * std::sqrt(-2 * std::log(radius)) * std::cos(kTwoPi * angle);
    values[static_cast<std::size_t>(i)] = static_cast<T>(folded ? std::abs(value) : value);
  }
}

double normal_mean(double low, double high) { return (low + high) / 2; }
double normal_sd(double low, double high) { return (high - low) / std::sqrt(12.0); }

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

HostArray input_array(DType dtype, std::int64_t count, std::uint64_t key, InputData data, double low, double high,
                      bool folded) {
  switch (data) {
    case InputData::uniform:
      return uniform_array(dtype, count, key, low, high);
    case InputData::normal: {
      HostArray array(dtype, static_cast<std::size_t>(count));
      dispatch_dtype(dtype, [&](auto tag) {
        fill_normal(array.as<decltype(tag)>(), key, normal_mean(low, high), normal_sd(low, high), folded);
      });
      return array;
    }
    case InputData::zeros:
    case InputData::ones:
      break;
  }
  const double value = data == InputData::ones ? 1.0 : 0.0;
  HostArray array(dtype, static_cast<std::size_t>(count));
  dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    std::vector<T>& values = array.as<T>();
    std::fill(values.begin(), values.end(), static_cast<T>(value));
  });
  return array;
}

std::string input_text(InputData data, double low, double high, const std::string& range, bool folded) {
  switch (data) {
    case InputData::uniform:
      return "uniform" + range;
    case InputData::normal: {
      char text[96];
      std::snprintf(text, sizeof text, "normal(mean %.3g, sd %.3g)", normal_mean(low, high), normal_sd(low, high));
      return folded ? "|" + std::string(text) + "|" : std::string(text);
    }
    case InputData::zeros:
    case InputData::ones:
      break;
  }
  return to_string(data);
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
