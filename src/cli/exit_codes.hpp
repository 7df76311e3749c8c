// The program's exit codes (documented in the README). compare, run --baseline and ab end
// with compare's (analysis/compare.hpp): 1 on a regression, 4 when a case is inconclusive.
#pragma once

namespace gpb {

inline constexpr int kExitOk = 0;
inline constexpr int kExitOutlier = 1;  // report --fail-on-outlier found one
inline constexpr int kExitUsage = 2;
inline constexpr int kExitCaseFailed = 3;
inline constexpr int kExitNoHistory = 5;  // a history baseline or command found nothing stored yet

}  // namespace gpb
