#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/interrupt.hpp"

namespace gpb {
namespace {

namespace fs = std::filesystem;

// In a child process, so that the handlers and the flag they set stay out of this one.
// The first signal only asks for a stop; the second removes the registered temporary file
// and ends the process by that signal.
TEST(Interrupt, FirstSignalAsksSecondRemovesTemporariesAndEnds) {
  const fs::path temporary = fs::temp_directory_path() / (".report.json." + std::to_string(::getpid()) + ".0.tmp");
  std::ofstream(temporary) << "partial";
  const fs::path kept = fs::temp_directory_path() / ("kept-" + std::to_string(::getpid()) + ".json");
  std::ofstream(kept) << "not registered";

  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    TemporaryFileRegistration registration(temporary.string());
    install_interrupt_handlers();
    if (interrupt_requested() || interrupt_signal() != 0) ::_exit(10);
    std::raise(SIGTERM);
    if (!interrupt_requested() || interrupt_signal() != SIGTERM || interrupted_exit_code() != 143 ||
        interrupt_signal_name() != "SIGTERM")
      ::_exit(11);
    if (::access(temporary.c_str(), F_OK) != 0) ::_exit(12);  // the first signal leaves files alone
    std::raise(SIGINT);
    ::_exit(13);  // not reached: the second signal ends the process
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exited with " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  EXPECT_FALSE(fs::exists(temporary));
  EXPECT_TRUE(fs::exists(kept));
  fs::remove(kept);
}

TEST(Interrupt, ARegistrationEndsWithItsScope) {
  const fs::path temporary = fs::temp_directory_path() / (".scoped." + std::to_string(::getpid()) + ".tmp");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    install_interrupt_handlers();
    {
      std::ofstream(temporary) << "renamed away before the signal";
      TemporaryFileRegistration registration(temporary.string());
    }
    // Another file now has the name: the ended registration must not remove it.
    std::ofstream(temporary) << "someone else's";
    std::raise(SIGINT);
    std::raise(SIGINT);
    ::_exit(13);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(fs::exists(temporary));
  fs::remove(temporary);
}

TEST(Interrupt, NothingRequestedWithoutASignal) {
  EXPECT_FALSE(interrupt_requested());
  EXPECT_EQ(interrupt_signal(), 0);
  EXPECT_EQ(interrupt_signal_name(), "");
}

}  // namespace
}  // namespace gpb
