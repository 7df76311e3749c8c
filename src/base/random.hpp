// Deterministic, portable random numbers for inputs, generated matrices and verification
// samples. std::uniform_*_distribution is avoided on purpose: its output differs between
// standard libraries, and a benchmark's inputs must be the same everywhere.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gpb {

inline constexpr std::uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;

// The SplitMix64 output function (Steele, Lea & Flood 2014): a bijective 64-bit mix.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Derives an independent stream key from a parent key and a label (op, role, row...).
constexpr std::uint64_t derive_key(std::uint64_t parent, std::uint64_t label) {
  return mix64(parent ^ mix64(label + kGoldenGamma));
}

// Draw `index` of stream `key`: the index-th output of SplitMix64 started at `key`. Being
// counter-based, any draw can be computed on its own, so a parallel fill gives the same
// values whatever the thread count.
constexpr std::uint64_t random_bits(std::uint64_t key, std::uint64_t index) {
  return mix64(key + (index + 1) * kGoldenGamma);
}

// Uniform in [0, 1) with 53 random bits.
constexpr double unit_interval(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// Uniform in [0, bound), bound > 0. Multiply-shift (Lemire) for bounds below 2^32, whose
// bias of at most bound / 2^32 is immaterial here; a modulo above that.
constexpr std::uint64_t uniform_index(std::uint64_t bits, std::uint64_t bound) {
  if (bound <= (std::uint64_t{1} << 32)) return ((bits >> 32) * bound) >> 32;
  return bits % bound;
}

// Sequential SplitMix64, for per-row streams whose draw count is not known in advance.
class SplitMix64 {
 public:
  explicit constexpr SplitMix64(std::uint64_t key) : key_(key) {}
  constexpr std::uint64_t next() { return random_bits(key_, counter_++); }

 private:
  std::uint64_t key_;
  std::uint64_t counter_ = 0;
};

// Replaces `out` with `count` distinct values from [0, bound), sorted ascending; requires
// count <= bound. Every subset of that size is equally likely.
template <class Index>
void sample_distinct_sorted(std::int64_t count, std::int64_t bound, SplitMix64& rng, std::vector<Index>& out) {
  out.clear();
  if (2 * count > bound) {
    // Dense: selection sampling (Knuth's algorithm S) visits each candidate once.
    std::int64_t needed = count;
    for (std::int64_t candidate = 0; needed > 0; ++candidate) {
      const auto remaining = static_cast<std::uint64_t>(bound - candidate);
      if (uniform_index(rng.next(), remaining) < static_cast<std::uint64_t>(needed)) {
        out.push_back(static_cast<Index>(candidate));
        --needed;
      }
    }
    return;
  }
  // Sparse: draw, drop repeats, draw again for what is missing; repeats are rare here.
  while (static_cast<std::int64_t>(out.size()) < count) {
    for (auto missing = count - static_cast<std::int64_t>(out.size()); missing > 0; --missing)
      out.push_back(static_cast<Index>(uniform_index(rng.next(), static_cast<std::uint64_t>(bound))));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
}

}  // namespace gpb
