// Runs a check as a user who is not root, for tests of what a permission refusal says: root
// reads and writes any file, so a test run as root (CI, containers) would otherwise skip them.
// Where this process is root, `action` runs in a forked child that has dropped to the user
// nobody (uid and gid 65534) and hands back its string through a pipe; otherwise it runs here.
// The files it touches must be reachable by that user (directories 0755 on the way, as
// std::filesystem makes them under a 0022 umask).
#pragma once

#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>

namespace gpb::testing {

inline std::string as_unprivileged(const std::function<std::string()>& action) {
  if (::geteuid() != 0) return action();
  int pipe_ends[2];
  if (::pipe(pipe_ends) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    ::close(pipe_ends[0]);
    std::string result;
    int code = 0;
    constexpr uid_t kNobody = 65534;
    if (::setgroups(0, nullptr) != 0 || ::setresgid(kNobody, kNobody, kNobody) != 0 ||
        ::setresuid(kNobody, kNobody, kNobody) != 0) {
      result = std::string("cannot drop to uid 65534: ") + std::strerror(errno);
      code = 3;
    } else {
      try {
        result = action();
      } catch (const std::exception& error) {
        result = std::string("exception: ") + error.what();
        code = 4;
      }
    }
    for (std::size_t done = 0; done < result.size();) {
      const ssize_t wrote = ::write(pipe_ends[1], result.data() + done, result.size() - done);
      if (wrote <= 0) break;
      done += static_cast<std::size_t>(wrote);
    }
    ::_exit(code);
  }
  ::close(pipe_ends[1]);
  std::string result;
  char buffer[4096];
  for (ssize_t got; (got = ::read(pipe_ends[0], buffer, sizeof buffer)) != 0;) {
    if (got < 0) {
      if (errno == EINTR) continue;
      break;
    }
    result.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(pipe_ends[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("the unprivileged check failed (status " + std::to_string(status) + "): " + result);
  return result;
}

}  // namespace gpb::testing
