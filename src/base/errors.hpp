// The errors every layer throws for what a user got wrong.
#pragma once

#include <stdexcept>

namespace gpb {

// A user error (bad flag, bad file, bad size): reported as one line, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Nothing stored to compare with yet: a database that does not exist, is empty or holds no
// gpubench schema, or no stored run of this machine with the tags asked for. Its own exit
// code (5), so that a CI workflow can tell "no history yet" from a broken command (2).
struct NoHistoryError : UsageError {
  using UsageError::UsageError;
};

}  // namespace gpb
