// Change points in a performance history: where a case's run medians moved to a new level.
//
// E-Divisive means (Matteson & James 2014), the method of Hunter and Apache Otava (Fleming
// et al., ICPE 2023): the split of a series that maximises the energy-statistic divergence
// between its left and right parts, kept when a permutation test finds it significant, then
// the same on each part, recursively. The divergence is taken on the logarithms of the
// timings (changes are ratios), clipped at 10 median absolute deviations from the part's
// median, so that a run many times slower than the rest cannot hide a real shift.
// Permutations come from a fixed seed: the same history always gives the same answer.
//
// A split is only as good as the level change it stands for. Segments hold at least
// min_segment (>= 2) runs and are judged by their medians; of an even-sized segment's two
// middle runs the one nearer the neighbouring segment counts, so a pair of one ordinary run
// and one outlier sits at the ordinary run's level. Change points whose levels differ by less
// than min_relative_change are then merged away, the smallest first (Otava's minimum
// magnitude). So one outlier run, which the divergence may well split off, does not move a
// segment's level and cannot open a segment by itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpb {

struct ChangePointOptions {
  double alpha = 0.05;              // a split is kept when its permutation p-value is at most this
  std::size_t permutations = 999;
  std::size_t min_segment = 2;      // values per segment, at least 2
  double min_relative_change = 0;   // merge change points of a smaller level change (0.05 = 5 %)
  std::uint64_t seed = 0x67707562656e6368ull;
};

struct Segment {
  std::size_t begin = 0, end = 0;  // [begin, end) into the values
  double median = 0;
};

struct ChangePoint {
  std::size_t index = 0;  // the first value of the new segment
  double p_value = 1;     // of the split that found it
  double change = 0;      // level after / level before - 1, levels as the header says
};

struct ChangePointAnalysis {
  std::vector<ChangePoint> change_points;  // ascending by index
  std::vector<Segment> segments;           // one more than change points; none for no values
};

// values: positive timings. UsageError for a value that is not, when alpha is outside (0, 1),
// min_segment < 2 or permutations < 1/alpha - 1 (too few for any split to pass).
ChangePointAnalysis detect_change_points(const std::vector<double>& values, const ChangePointOptions& options = {});

// The E-Divisive statistic of the best split of values with at least min_segment values on
// each side: index (the first value of the right part) and its divergence
// Q = (a b / (a + b)) * (2/(a b) sum|x - y| - sum|x - x'| / C(a, 2) - sum|y - y'| / C(b, 2)).
// index 0 when values are fewer than 2 * min_segment.
struct Split {
  std::size_t index = 0;
  double divergence = 0;
};
Split best_split(const std::vector<double>& values, std::size_t min_segment);

}  // namespace gpb
