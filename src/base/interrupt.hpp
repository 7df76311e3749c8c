// SIGINT and SIGTERM: the first asks a run to stop after the current sample and write the
// cases finished so far (marked interrupted); a second one ends the process at once, after
// removing the temporary report files registered here. The handlers only touch an atomic
// flag and call unlink, which are async-signal-safe.
#pragma once

#include <string>

namespace gpb {

// Installs the handlers for SIGINT and SIGTERM (once, from main).
void install_interrupt_handlers();

// Whether a stop was asked for, and by which signal (0 when none).
bool interrupt_requested();
int interrupt_signal();
// "SIGINT" or "SIGTERM"; empty when none arrived.
std::string interrupt_signal_name();
// The shell's convention for a process ended by a signal: 128 + its number (130, 143).
int interrupted_exit_code();

// Thrown by the runner when a stop is asked for in the middle of a case; that case is
// incomplete and left out. Not a std::exception, so that no "case failed" handler takes it.
struct RunInterrupted {};

// Registers a temporary file for removal by the second signal, for as long as it lives.
// Registration is best effort: it has room for a fixed number of paths (more than the
// report files one run writes at once).
class TemporaryFileRegistration {
 public:
  explicit TemporaryFileRegistration(const std::string& path);
  ~TemporaryFileRegistration();
  TemporaryFileRegistration(const TemporaryFileRegistration&) = delete;
  TemporaryFileRegistration& operator=(const TemporaryFileRegistration&) = delete;

 private:
  int slot_;
};

}  // namespace gpb
