// Reading an input file (report, suite, Matrix Market matrix) into memory with a bound, so
// that a huge or endless input (/dev/zero, a pipe that never ends) is a usage error and
// not exhausted memory. docs/bounds.md lists the bounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gpb {

inline constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
// A report of a long sweep with every raw sample is a few MiB, one of the largest suite
// (100000 cases) about 300 MiB; gpubench writes no JSON report beyond this bound, so that it
// reads whatever it writes. Suites are hand-written.
inline constexpr std::uint64_t kMaxReportBytes = 1024 * kMiB;
inline constexpr std::uint64_t kMaxSuiteBytes = 16 * kMiB;

// An input file read in blocks: a regular file, a pipe (`<(cat m.mtx)`) or a device. `what`
// names it in errors ("cannot read matrix file 'm.mtx': No such file or directory").
class InputStream {
 public:
  // Opens path for reading; UsageError where it cannot be opened or is a directory.
  InputStream(const std::string& path, const std::string& what);
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;
  ~InputStream();

  // Reads up to size bytes into buffer; 0 at the end. UsageError on a read error.
  std::size_t read(char* buffer, std::size_t size);
  // A regular file's size; nothing for a pipe or a device, which have none.
  bool has_size() const { return has_size_; }
  std::uint64_t size() const { return size_; }

 private:
  std::string path_;
  std::string what_;
  int fd_ = -1;
  bool has_size_ = false;
  std::uint64_t size_ = 0;
};

// The whole content of path, which may be a regular file, a pipe (`<(cat m.mtx)`) or a
// device. `what` names the input in errors: "cannot read report 'x.json': No such file or
// directory", "report 'x.json' is 2 GiB, more than the 1 GiB that gpubench reads". A regular
// file's size is checked before reading; anything else is read until the bound is passed.
// Throws UsageError.
std::string read_input_file(const std::string& path, std::uint64_t max_bytes, const std::string& what);

// Memory this process can still allocate without swapping or meeting its cgroup's limit:
// MemAvailable (or physical memory where /proc/meminfo has none), less where a cgroup v2
// limit or the address-space limit (ulimit -v) leaves less.
std::uint64_t available_memory_bytes();

// "512 bytes", "16 MiB", "1.5 GiB": for messages about sizes.
std::string describe_bytes(std::uint64_t bytes);

}  // namespace gpb
