// The process group of an MPI build: MPI_COMM_WORLD. Every MPI call is checked; errors
// return to us (MPI_ERRORS_RETURN) and become exceptions that name the call.
#include <mpi.h>

#include <climits>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "fleet/process_group.hpp"

namespace gpb {
namespace {

[[noreturn]] void throw_mpi_error(int status, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(status, text, &length) != MPI_SUCCESS) std::snprintf(text, sizeof text, "MPI error %d", status);
  throw std::runtime_error(std::string(call) + " failed: " + text + " (" + file + ":" + std::to_string(line) + ")");
}

#define GPB_MPI_CHECK(call)                                                          \
  do {                                                                               \
    const int gpb_mpi_status = (call);                                               \
    if (gpb_mpi_status != MPI_SUCCESS) throw_mpi_error(gpb_mpi_status, #call, __FILE__, __LINE__); \
  } while (false)

int int_size(std::size_t size, const char* what) {
  if (size > static_cast<std::size_t>(INT_MAX)) throw std::runtime_error(std::string(what) + " exceeds 2 GiB, too large for MPI");
  return static_cast<int>(size);
}

class MpiWorld final : public ProcessGroup {
 public:
  MpiWorld() {
    int initialized = 0;
    GPB_MPI_CHECK(MPI_Initialized(&initialized));
    if (!initialized) {
      // Device workers reach the barrier from whichever thread arrives last, one at a time.
      GPB_MPI_CHECK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &thread_support_));
      owns_mpi_ = true;
    } else {
      GPB_MPI_CHECK(MPI_Query_thread(&thread_support_));
    }
    GPB_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    GPB_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
    GPB_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  }
  ~MpiWorld() override {
    if (!owns_mpi_) return;
    const int status = MPI_Finalize();
    if (status != MPI_SUCCESS) std::fprintf(stderr, "gpubench: MPI_Finalize failed (error %d)\n", status);
  }
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool any_thread_may_call() const override { return thread_support_ >= MPI_THREAD_SERIALIZED; }

  void barrier() override { GPB_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); }

  std::vector<std::string> gather(const std::string& text) override {
    int length = int_size(text.size(), "a rank's report");
    std::vector<int> lengths(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
    GPB_MPI_CHECK(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD));
    std::vector<int> offsets(lengths.size(), 0);
    std::size_t total = 0;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      offsets[i] = int_size(total, "the ranks' reports together");
      total += static_cast<std::size_t>(lengths[i]);
    }
    if (total > static_cast<std::size_t>(INT_MAX))
      throw std::runtime_error("the ranks' reports together exceed 2 GiB, too large for MPI");
    std::string joined(total, '\0');
    GPB_MPI_CHECK(MPI_Gatherv(text.data(), length, MPI_CHAR, joined.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                              MPI_COMM_WORLD));
    std::vector<std::string> texts;
    for (std::size_t i = 0; i < lengths.size(); ++i)
      texts.push_back(joined.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i])));
    return texts;
  }

  std::string broadcast(const std::string& text) override {
    int length = rank_ == 0 ? int_size(text.size(), "a broadcast") : 0;
    GPB_MPI_CHECK(MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD));
    std::string received = rank_ == 0 ? text : std::string(static_cast<std::size_t>(length), '\0');
    GPB_MPI_CHECK(MPI_Bcast(received.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD));
    return received;
  }

  bool all(bool value) override {
    int local = value ? 1 : 0, global = 0;
    GPB_MPI_CHECK(MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    return global == 1;
  }


 protected:
  void end_all_ranks(int exit_code) override {
    const int status = MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::fprintf(stderr, "gpubench: MPI_Abort returned (error %d)\n", status);
  }

 private:
  bool owns_mpi_ = false;
  int thread_support_ = MPI_THREAD_SINGLE;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

std::unique_ptr<ProcessGroup> join_process_group() { return std::make_unique<MpiWorld>(); }

}  // namespace gpb
