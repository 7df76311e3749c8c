#include "base/interrupt.hpp"

#include <limits.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>

namespace gpb {
namespace {

std::atomic<int> requested_signal{0};
std::atomic<bool> settled{false};  // see settle_interrupt
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free flag");

// Fixed slots, so the handler reads paths without allocating or locking. A slot's state
// goes free -> claimed (path being copied) -> registered -> free.
enum SlotState : int { kFree, kClaimed, kRegistered };
constexpr std::size_t kSlots = 64;
struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};
std::array<Slot, kSlots> temporary_files;

extern "C" void on_stop_signal(int signal) {
  int none = 0;
  if (requested_signal.compare_exchange_strong(none, signal)) return;
  // Asked twice: stop now. Only async-signal-safe calls from here on.
  for (Slot& slot : temporary_files)
    if (slot.state.load() == kRegistered) ::unlink(slot.path);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  // Restart interrupted system calls: the flag is checked between samples, and library
  // code (OpenMP, BLAS, file writes) need not expect EINTR.
  action.sa_flags = SA_RESTART;
  for (int signal : {SIGINT, SIGTERM}) sigaction(signal, &action, nullptr);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  for (int signal : {SIGPIPE, SIGXFSZ}) sigaction(signal, &ignore, nullptr);
}

struct ScopedInterruptHandlers::Saved {
  struct sigaction interrupt {}, terminate {}, pipe {}, file_size {};
};

ScopedInterruptHandlers::ScopedInterruptHandlers() : saved_(std::make_unique<Saved>()) {
  sigaction(SIGINT, nullptr, &saved_->interrupt);
  sigaction(SIGTERM, nullptr, &saved_->terminate);
  sigaction(SIGPIPE, nullptr, &saved_->pipe);
  sigaction(SIGXFSZ, nullptr, &saved_->file_size);
  requested_signal.store(0);
  settled.store(false);
  install_interrupt_handlers();
}

ScopedInterruptHandlers::~ScopedInterruptHandlers() {
  sigaction(SIGINT, &saved_->interrupt, nullptr);
  sigaction(SIGTERM, &saved_->terminate, nullptr);
  sigaction(SIGPIPE, &saved_->pipe, nullptr);
  sigaction(SIGXFSZ, &saved_->file_size, nullptr);
  requested_signal.store(0);
  settled.store(false);
}

int ScopedInterruptHandlers::signal() const { return requested_signal.load(); }

bool interrupt_requested() { return requested_signal.load() != 0; }

int interrupt_signal() { return requested_signal.load(); }

std::string interrupt_signal_name() {
  switch (requested_signal.load()) {
    case 0: return "";
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "signal " + std::to_string(requested_signal.load());
  }
}

int interrupted_exit_code() { return 128 + requested_signal.load(); }

void stop_if_interrupted(const std::string& what) {
  if (interrupt_requested()) throw StoppedBySignal{what};
}

void settle_interrupt() { settled.store(true); }

bool interrupt_settled() { return settled.load(); }

TemporaryFileRegistration::TemporaryFileRegistration(const std::string& path) : slot_(-1) {
  if (path.size() >= PATH_MAX) return;
  for (std::size_t i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!temporary_files[i].state.compare_exchange_strong(expected, kClaimed)) continue;
    std::memcpy(temporary_files[i].path, path.c_str(), path.size() + 1);
    temporary_files[i].state.store(kRegistered);
    slot_ = static_cast<int>(i);
    return;
  }
}

TemporaryFileRegistration::~TemporaryFileRegistration() {
  if (slot_ >= 0) temporary_files[static_cast<std::size_t>(slot_)].state.store(kFree);
}

std::string settle_interrupt_after_commit() {
  if (!interrupt_requested()) return "";
  settle_interrupt();
  return " (" + interrupt_signal_name() + " came after the commit: the run is stored)";
}

}  // namespace gpb
