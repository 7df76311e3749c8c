// Writing a report so that readers (a CI step, `gpubench compare`) see either the old
// file or the complete new one, never a partial write.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "report/report.hpp"

namespace gpb {
namespace {

[[noreturn]] void cannot_write(const std::string& path, int error) {
  throw UsageError("cannot write report '" + path + "': " + std::strerror(error));
}

// Creates a new file beside `path` (rename is only atomic within one file system) whose
// name no other writer holds: O_EXCL fails rather than share a name with a concurrent run.
// Returns its descriptor and sets temp_path; -1 with errno set on failure.
int create_temp_beside(const std::string& path, std::string& temp_path) {
  static std::atomic<unsigned> counter{0};
  const auto slash = path.find_last_of('/');
  const std::string directory = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  constexpr int kAttempts = 100;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    temp_path = directory + "." + name + "." + std::to_string(::getpid()) + "." + std::to_string(counter++) + ".tmp";
    // 0666 less the umask: the same mode a plain create would give the report.
    const int fd = ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;  // errno is EEXIST
}

bool write_all(int fd, const std::string& content) {
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  return true;
}

}  // namespace

void write_file_atomic(const std::string& path, const std::string& content) {
  std::string temp_path;
  const int fd = create_temp_beside(path, temp_path);
  if (fd < 0) cannot_write(path, errno);
  // fsync before rename: otherwise a crash can leave the new name pointing at an empty file.
  bool ok = write_all(fd, content) && ::fsync(fd) == 0;
  int error = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (ok && ::rename(temp_path.c_str(), path.c_str()) != 0) {
    ok = false;
    error = errno;
  }
  if (ok) return;
  ::unlink(temp_path.c_str());
  cannot_write(path, error);
}

}  // namespace gpb
