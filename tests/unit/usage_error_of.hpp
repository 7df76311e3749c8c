// The message of the UsageError an action throws, for tests that check what a bad input is
// told; "<no UsageError>" when it throws none.
#pragma once

#include <functional>
#include <string>

#include "model/types.hpp"

namespace gpb::testing {

inline std::string usage_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const UsageError& error) {
    return error.what();
  }
  return "<no UsageError>";
}

}  // namespace gpb::testing
