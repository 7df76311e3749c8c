// SIGINT and SIGTERM: the first asks a run to stop after the current sample and write the
// cases finished so far (marked interrupted); a second one ends the process at once, after
// removing the temporary report files registered here. The handlers only touch an atomic
// flag and call unlink, which are async-signal-safe.
#pragma once

#include <memory>
#include <string>

namespace gpb {

// Installs the handlers for SIGINT and SIGTERM (once, from main), and ignores SIGPIPE and
// SIGXFSZ: a write to a closed pipe or past `ulimit -f` then fails with EPIPE or EFBIG,
// which the writer reports (and a temporary file is removed), instead of the signal
// killing the process between two of its steps (say, after the reports and before the store).
void install_interrupt_handlers();

// The same handlers for as long as it lives, in a process whose own handlers it then puts
// back (the Python package, which runs the program's commands in the interpreter's process):
// a signal that arrives meanwhile stops the command as it stops the program, where Python's
// handler would only run once the command returned. On destruction the handlers before it are
// restored and the stop flag cleared; signal() says which signal came (0: none).
class ScopedInterruptHandlers {
 public:
  ScopedInterruptHandlers();
  ~ScopedInterruptHandlers();
  ScopedInterruptHandlers(const ScopedInterruptHandlers&) = delete;
  ScopedInterruptHandlers& operator=(const ScopedInterruptHandlers&) = delete;
  int signal() const;

 private:
  struct Saved;
  std::unique_ptr<Saved> saved_;
};

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

// Thrown where a command stops for a signal before its point of no return (a transaction
// not yet committed, which is then rolled back); what() says what was left undone. The
// program prints it and exits 128 + the signal. Not a std::exception, like RunInterrupted.
struct StoppedBySignal {
  std::string what;
};
// Throws StoppedBySignal{what} when a stop has been asked for.
void stop_if_interrupted(const std::string& what);

// A signal that arrives after a command's point of no return (its transaction committed)
// does not change the command's exit code: the command says so and calls this, and the
// program then exits with that code instead of 128 + the signal.
void settle_interrupt();
bool interrupt_settled();
// For a store that has committed: settles a signal that arrived meanwhile and returns what the
// command adds to its "stored as run N" line (" (SIGINT came after the commit: the run is
// stored)"); empty when no signal came.
std::string settle_interrupt_after_commit();

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
