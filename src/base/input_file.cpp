#include "base/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>

#include "base/errors.hpp"
#include "base/system.hpp"

namespace gpb {
namespace {

// The number on the first line of a file that starts with key ("MemAvailable: 12345 kB"
// reads 12345); false where there is no such line or no number on it.
bool read_number_after(const std::string& path, const std::string& key, std::uint64_t& value) {
  std::ifstream file(path);
  std::string line;
  while (std::getline(file, line)) {
    if (line.compare(0, key.size(), key) != 0) continue;
    const auto digits = line.find_first_of("0123456789", key.size());
    if (digits == std::string::npos) return false;
    value = std::stoull(line.substr(digits));
    return true;
  }
  return false;
}

}  // namespace

std::string describe_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024;
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, value == static_cast<double>(static_cast<std::uint64_t>(value)) ? "%.0f %s" : "%.1f %s",
                value, units[unit]);
  return text;
}

InputStream::InputStream(const std::string& path, const std::string& what) : path_(path), what_(what) {
  const auto cannot_read = [&](int error) {
    return UsageError("cannot read " + what + " '" + path + "': " + std::strerror(error));
  };
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw cannot_read(errno);
  struct stat info {};
  const int error = ::fstat(fd_, &info) != 0 ? errno : S_ISDIR(info.st_mode) ? EISDIR : 0;
  if (error != 0) {
    ::close(fd_);
    throw cannot_read(error);
  }
  has_size_ = S_ISREG(info.st_mode);
  size_ = has_size_ ? static_cast<std::uint64_t>(info.st_size) : 0;
}

InputStream::~InputStream() { ::close(fd_); }

std::size_t InputStream::read(char* buffer, std::size_t size) {
  for (;;) {
    const ssize_t count = ::read(fd_, buffer, size);
    if (count >= 0) return static_cast<std::size_t>(count);
    if (errno != EINTR) throw UsageError("cannot read " + what_ + " '" + path_ + "': " + std::strerror(errno));
  }
}

std::string read_input_file(const std::string& path, std::uint64_t max_bytes, const std::string& what) {
  const auto too_large = [&](const std::string& size) {
    return UsageError(what + " '" + path + "' " + size + " the " + describe_bytes(max_bytes) +
                      " that gpubench reads (docs/bounds.md)");
  };
  InputStream file(path, what);
  std::string text;
  if (file.has_size()) {
    if (file.size() > max_bytes) throw too_large("is " + describe_bytes(file.size()) + ", more than");
    text.reserve(static_cast<std::size_t>(file.size()));
  }
  // Pipes and devices have no size: read until the end or until the bound is passed.
  char buffer[1 << 16];
  for (;;) {
    const std::uint64_t room = max_bytes - std::min<std::uint64_t>(max_bytes, text.size()) + 1;
    const std::size_t count = file.read(buffer, static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buffer, room)));
    if (count == 0) break;
    text.append(buffer, count);
    if (text.size() > max_bytes) throw too_large("holds more than");
  }
  return text;
}

std::uint64_t available_memory_bytes() {
  std::uint64_t available = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t kibibytes = 0;
  if (read_number_after("/proc/meminfo", "MemAvailable:", kibibytes)) {
    available = kibibytes * 1024;
  } else {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page_size = ::sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page_size > 0) available = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
  }
  // A container's limit ("max" when there is none, which reads as no number).
  std::uint64_t limit = 0, used = 0;
  if (read_number_after("/sys/fs/cgroup/memory.max", "", limit) && read_number_after("/sys/fs/cgroup/memory.current", "", used))
    available = std::min(available, limit > used ? limit - used : 0);
  return std::min(available, address_space_headroom_bytes());
}

}  // namespace gpb
