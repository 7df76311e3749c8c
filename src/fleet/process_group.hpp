// The processes of one run that share a report. A build without MPI has one: ranks that a
// launcher starts each write their own report and `gpubench merge` joins them. An MPI build
// (-DGPUBENCH_WITH_MPI=ON) joins MPI_COMM_WORLD: its ranks start every case together and
// rank 0 writes the merged report. Provided by process_group_single.cpp or
// mpi_process_group.cpp, whichever the executable links.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace gpb {

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Whether any one thread at a time may call the collectives below (the device workers'
  // barrier calls barrier() from whichever worker arrives last).
  virtual bool any_thread_may_call() const = 0;
  // Returns once every rank has called it.
  virtual void barrier() = 0;
  // Rank 0 receives every rank's text, in rank order; the other ranks an empty list.
  virtual std::vector<std::string> gather(const std::string& text) = 0;
  // Every rank receives rank 0's text.
  virtual std::string broadcast(const std::string& text) = 0;
  // True on every rank when `value` is true on every rank.
  virtual bool all(bool value) = 0;
  // Ends every rank after an error on this one, which the others may be waiting for.
  [[noreturn]] void abort(int exit_code) {
    end_all_ranks(exit_code);
    std::_Exit(exit_code);  // should ending the others return, this rank still ends
  }

 protected:
  virtual void end_all_ranks(int exit_code) = 0;
};

// This build's group: MPI_COMM_WORLD (MPI initialised here, finalised when the group goes),
// or this process alone.
std::unique_ptr<ProcessGroup> join_process_group();

}  // namespace gpb
