#include "measure/one_time_costs.hpp"

#include <algorithm>
#include <mutex>

namespace gpb {
namespace {

struct FirstUses {
  std::mutex mutex;
  std::vector<FirstUse> uses;
};

FirstUses& first_uses() {
  static FirstUses instance;
  return instance;
}

}  // namespace

void record_first_use(const std::string& backend, const std::string& what, double seconds) {
  FirstUses& registry = first_uses();
  const std::lock_guard<std::mutex> lock(registry.mutex);
  const bool seen = std::any_of(registry.uses.begin(), registry.uses.end(),
                                [&](const FirstUse& use) { return use.backend == backend && use.what == what; });
  if (!seen) registry.uses.push_back({backend, what, seconds});
}

std::vector<FirstUse> recorded_first_uses() {
  FirstUses& registry = first_uses();
  const std::lock_guard<std::mutex> lock(registry.mutex);
  return registry.uses;
}

}  // namespace gpb
