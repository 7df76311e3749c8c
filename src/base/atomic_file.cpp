#include "base/atomic_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <tuple>

#include "base/errors.hpp"
#include "base/interrupt.hpp"

namespace gpb {
namespace {

[[noreturn]] void cannot_write(const std::string& path, int error) {
  throw UsageError("cannot write report '" + path + "': " + std::strerror(error));
}

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

const char* kind_of_special_file(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISFIFO(mode)) return "a fifo";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

// The file a write to `path` replaces. A symbolic link is followed, so that the link stays
// and its target gets the new report (as a plain write would do); anything other than a
// regular file or a new name -- a directory, a device, a fifo -- is refused rather than
// replaced, also where the permissions would allow it (as root).
std::string destination_of(const std::string& path) {
  constexpr int kMaxLinks = 40;  // the kernel's own limit on links in a lookup
  std::string current = path;
  for (int links = 0; links <= kMaxLinks; ++links) {
    struct stat info {};
    if (::lstat(current.c_str(), &info) != 0) {
      if (errno == ENOENT) return current;  // a new file; a missing directory fails later
      cannot_write(path, errno);
    }
    if (S_ISREG(info.st_mode)) return current;
    if (!S_ISLNK(info.st_mode))
      throw UsageError("cannot write report '" + path + "': " + (current == path ? "it" : "its target '" + current + "'") +
                       " is " + kind_of_special_file(info.st_mode) + ", not a regular file; refusing to replace it");
    std::string target(static_cast<std::size_t>(info.st_size > 0 ? info.st_size : 4096) + 1, '\0');
    const ssize_t length = ::readlink(current.c_str(), target.data(), target.size());
    if (length < 0) cannot_write(path, errno);
    target.resize(static_cast<std::size_t>(length));
    current = !target.empty() && target.front() == '/' ? target : directory_of(current) + target;
  }
  cannot_write(path, ELOOP);
}

// Creates a new file beside `path` (rename is only atomic within one file system) whose
// name no other writer holds: O_EXCL fails rather than share a name with a concurrent run.
// Returns its descriptor and sets temp_path; -1 with errno set on failure.
int create_temp_beside(const std::string& path, std::string& temp_path) {
  static std::atomic<unsigned> counter{0};
  const std::string directory = directory_of(path);
  const std::string name = path.substr(directory.size());
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

// A complete temporary file waiting to be renamed over its destination; removed unless
// it was.
class PendingFile {
 public:
  PendingFile(const std::string& path, const std::string& content) : path_(path), destination_(destination_of(path)) {
    const int fd = create_temp_beside(destination_, temp_path_);
    if (fd < 0) cannot_write(path_, errno);
    registration_ = std::make_unique<TemporaryFileRegistration>(temp_path_);
    // fsync before rename: otherwise a crash can leave the new name pointing at an empty file.
    bool ok = write_all(fd, content) && ::fsync(fd) == 0;
    int error = ok ? 0 : errno;
    if (::close(fd) != 0 && ok) {
      ok = false;
      error = errno;
    }
    if (!ok) {
      ::unlink(temp_path_.c_str());
      cannot_write(path_, error);
    }
  }
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;
  ~PendingFile() {
    if (!renamed_) ::unlink(temp_path_.c_str());
  }

  const std::string& destination() const { return destination_; }

  void rename_into_place() {
    if (::rename(temp_path_.c_str(), destination_.c_str()) != 0) cannot_write(path_, errno);
    renamed_ = true;
  }

 private:
  std::string path_, destination_, temp_path_;
  std::unique_ptr<TemporaryFileRegistration> registration_;
  bool renamed_ = false;
};

// An exclusive advisory lock (flock) on a directory, held by every gpubench that renames
// reports into it: the directory's inode stays while the files in it are replaced, and no
// lock file is left behind. Where the file system cannot lock, the renames go ahead unlocked.
class DirectoryLock {
 public:
  explicit DirectoryLock(const std::string& directory)
      : fd_(::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (fd_ < 0) return;
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  ~DirectoryLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }

 private:
  int fd_;
};

// The directories the files are renamed into, once each, in the order of their device and
// inode numbers, so that two runs lock a shared set in the same order and cannot deadlock.
std::vector<std::string> directories_to_lock(const std::vector<std::unique_ptr<PendingFile>>& files) {
  std::vector<std::tuple<dev_t, ino_t, std::string>> found;
  for (const auto& file : files) {
    const std::string directory = directory_of(file->destination());
    struct stat info {};
    if (::stat(directory.empty() ? "." : directory.c_str(), &info) != 0) continue;
    const auto same = [&](const auto& entry) { return std::get<0>(entry) == info.st_dev && std::get<1>(entry) == info.st_ino; };
    if (std::none_of(found.begin(), found.end(), same)) found.emplace_back(info.st_dev, info.st_ino, directory);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> directories;
  for (const auto& entry : found) directories.push_back(std::get<2>(entry));
  return directories;
}

}  // namespace

void write_files_atomic(const std::vector<OutputFile>& files) {
  // Every temporary file complete before the first rename: a failure (a full disk, a
  // missing directory) replaces nothing.
  std::vector<std::unique_ptr<PendingFile>> pending;
  for (const auto& file : files) pending.push_back(std::make_unique<PendingFile>(file.path, file.content));
  std::vector<std::unique_ptr<DirectoryLock>> locks;
  for (const auto& directory : directories_to_lock(pending)) locks.push_back(std::make_unique<DirectoryLock>(directory));
  for (auto& file : pending) file->rename_into_place();
}

void write_file_atomic(const std::string& path, const std::string& content) { write_files_atomic({{path, content}}); }

void check_report_destination(const std::string& path) {
  namespace fs = std::filesystem;
  // The temporary file is made beside what the write replaces (a link's target, not the
  // link): that directory must exist and take a new file.
  const fs::path file(destination_of(path));
  const fs::path directory = file.has_parent_path() ? file.parent_path() : fs::path(".");
  const auto refused = [&](const std::string& why) { return UsageError("cannot write report '" + path + "': " + why); };
  std::error_code ignored;
  if (!file.has_filename()) throw refused("it is a directory");
  if (!fs::is_directory(directory, ignored)) throw refused("no directory '" + directory.string() + "'");
  if (::access(directory.c_str(), W_OK | X_OK) != 0) throw refused(std::strerror(errno));
}

namespace {

// Whether two paths name one file: the same path once links and relative spellings are
// resolved (also for a file that does not exist yet), or the same device and inode.
bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  const auto resolved = [](const std::string& path) {
    std::error_code error;
    const fs::path canonical = fs::weakly_canonical(fs::path(path), error);
    return error ? fs::absolute(fs::path(path), error).lexically_normal() : canonical;
  };
  if (resolved(a) == resolved(b)) return true;
  struct stat first {}, second {};
  return ::stat(a.c_str(), &first) == 0 && ::stat(b.c_str(), &second) == 0 && first.st_dev == second.st_dev &&
         first.st_ino == second.st_ino;
}

}  // namespace

void refuse_outputs_over_inputs(const std::vector<NamedFile>& outputs, const std::vector<NamedFile>& inputs) {
  for (const NamedFile& output : outputs)
    for (const NamedFile& input : inputs)
      if (!output.path.empty() && !input.path.empty() && same_file(output.path, input.path))
        throw UsageError(output.what + " '" + output.path + "' is " + input.what + " ('" + input.path +
                         "'), an input of this command: refusing to write over it");
}

}  // namespace gpb
