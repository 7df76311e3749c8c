// The process group of a build without MPI: this process alone.
#include "fleet/process_group.hpp"

namespace gpb {
namespace {

class SingleProcess final : public ProcessGroup {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  bool any_thread_may_call() const override { return true; }
  void barrier() override {}
  std::vector<std::string> gather(const std::string& text) override { return {text}; }
  std::string broadcast(const std::string& text) override { return text; }
  bool all(bool value) override { return value; }

 protected:
  void end_all_ranks(int) override {}
};

}  // namespace

std::unique_ptr<ProcessGroup> join_process_group() { return std::make_unique<SingleProcess>(); }

}  // namespace gpb
