#include "measure/test_slowdown.hpp"

#include <cstdlib>
#include <string>

#include "base/errors.hpp"

namespace gpb {

int test_slowdown_factor() {
  static const int factor = [] {
    const char* text = std::getenv("GPUBENCH_TEST_SLOWDOWN");
    if (text == nullptr || *text == '\0') return 1;
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (*end != '\0' || value < 1 || value > 100)
      throw UsageError("GPUBENCH_TEST_SLOWDOWN must be a whole number from 1 to 100, not '" + std::string(text) + "'");
    return static_cast<int>(value);
  }();
  return factor;
}

}  // namespace gpb
