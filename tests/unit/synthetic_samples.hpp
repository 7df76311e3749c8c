// Synthetic timing samples for the tests of compare and of sequential re-measurement: a seeded,
// portable generator of lognormal timings with serial correlation and interruptions, and a
// measured record holding them.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "base/random.hpp"
#include "model/result.hpp"
#include "model/statistics.hpp"

namespace gpb::testing {

struct Noise {
  double relative = 0.01;      // standard deviation of log(time): 0.3 is "30 % noise"
  double autocorrelation = 0;  // AR(1) coefficient between consecutive samples
  double outlier_rate = 0;     // fraction of samples hit by an interruption (x1.5)
};

// Lognormal timings around median_s, the shape benchmark samples tend to have.
inline std::vector<double> timing_samples(std::uint64_t seed, double median_s, std::size_t count, const Noise& noise) {
  constexpr double kPi = 3.14159265358979323846;
  SplitMix64 rng(seed);
  const auto standard_normal = [&rng] {  // Box-Muller; 1 - u keeps the logarithm finite
    const double radius = std::sqrt(-2.0 * std::log(1.0 - unit_interval(rng.next())));
    return radius * std::cos(2.0 * kPi * unit_interval(rng.next()));
  };
  const double innovation_scale = std::sqrt(1.0 - noise.autocorrelation * noise.autocorrelation);
  double state = standard_normal();
  std::vector<double> samples;
  for (std::size_t i = 0; i < count; ++i) {
    state = noise.autocorrelation * state + innovation_scale * standard_normal();
    const bool interrupted = unit_interval(rng.next()) < noise.outlier_rate;
    samples.push_back(median_s * std::exp(noise.relative * state) * (interrupted ? 1.5 : 1.0));
  }
  return samples;
}

// A verified record of `spec` with these samples.
inline ResultRecord measured(const CaseSpec& spec, std::vector<double> samples) {
  ResultRecord record;
  record.spec = spec;
  record.samples_s = std::move(samples);
  record.stats = compute_statistics(record.samples_s);
  record.verification.checked = true;
  record.verification.passed = true;
  return record;
}

}  // namespace gpb::testing
