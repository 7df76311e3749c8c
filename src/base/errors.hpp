// The errors every layer throws for what a user got wrong.
#pragma once

#include <stdexcept>

namespace gpb {

// A user error (bad flag, bad file, bad size): reported as one line, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace gpb
