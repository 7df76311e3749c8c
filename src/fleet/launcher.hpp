// Launchers (Slurm's srun, Open MPI's and MPICH's mpirun, torchrun) start one gpubench per
// rank and tell each its place through environment variables. This module reads them,
// decides which GPUs a process runs on and where it writes; it measures nothing, and the
// runner never learns that it is one of many.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpb {

// The environment variables a launcher sets, by name.
using Environment = std::map<std::string, std::string>;

// The variables detect_launch reads, taken from this process's environment.
Environment launcher_environment();

struct LaunchInfo {
  std::string launcher;  // "torchrun", "openmpi", "mpich", "slurm"; empty when started directly
  int rank = 0;
  int local_rank = 0;    // the rank's index among the ranks of its host
  int world_size = 1;    // 0: the launcher did not say
  std::string node;      // node index (SLURM_NODEID, GROUP_RANK); empty when the launcher has none
  std::string node_name; // the launcher's name for the host (SLURMD_NODENAME); may be empty

  bool launched() const { return !launcher.empty(); }
};

// Reads, in this order of precedence (an inner launcher's variables describe the process;
// an outer one's, e.g. Slurm's around mpirun or torchrun, describe its parent):
//   torchrun  RANK, LOCAL_RANK, WORLD_SIZE, GROUP_RANK (RANK counts only beside LOCAL_RANK)
//   Open MPI  OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_LOCAL_RANK, OMPI_COMM_WORLD_SIZE
//   MPICH     PMI_RANK, MPI_LOCALRANKID, PMI_SIZE (Hydra; Intel MPI sets the same)
//   Slurm     SLURM_PROCID, SLURM_LOCALID, SLURM_NTASKS, SLURM_NODEID, SLURMD_NODENAME
// A launcher is recognised by its rank variable. Throws UsageError naming a variable whose
// value is not a non-negative integer, or a rank outside the world size.
LaunchInfo detect_launch(const Environment& environment);

// Where this process runs and writes: its launcher's place and its host's name.
struct ProcessPlace {
  LaunchInfo launch;
  std::string host;
  bool rank_zero_writes = false;  // an MPI run: rank 0 writes one report for every rank
};

// This process's place, from its environment; in an MPI group of several ranks, the group's
// rank and size (launcher "mpi" where no launcher variables say more).
ProcessPlace place_process(int group_rank, int group_size);

// The name fleet views use for this host: GPUBENCH_HOST when set (a Kubernetes pod can
// pass its node's name), else the launcher's node name, else gethostname().
std::string host_name(const Environment& environment, const LaunchInfo& launch);

// --device: "all", one ordinal (0 to 1023) or a comma-separated list ("0,2,3"). Throws
// UsageError on anything else and on repeats (the message names the text, not the flag).
struct DeviceRequest {
  bool all = false;
  std::vector<int> ordinals;
};
DeviceRequest parse_device_request(const std::string& text);

struct DeviceChoice {
  std::vector<int> devices;         // never empty
  std::vector<std::string> notes;   // e.g. ranks sharing a GPU
};

// The GPUs this process runs its GPU cases on. `visible_gpus` is how many CUDA devices the
// process sees (0 when none or unknown, as in a build without CUDA).
//   --device given: those ordinals ("all": every visible one); an ordinal beyond the
//                   visible ones is a UsageError;
//   launched:       the local rank's GPU, local_rank modulo the visible count (a launcher
//                   that binds one GPU per task, such as srun --gpus-per-task=1, leaves
//                   each rank one visible device: ordinal 0); ranks that share a GPU get a note;
//   otherwise:      device 0.
DeviceChoice choose_devices(const std::optional<DeviceRequest>& request, const LaunchInfo& launch, int visible_gpus);

// The values {rank}, {host} and {device} stand for in --out paths.
struct OutputPlaceholders {
  int rank = 0;
  std::string host;
  std::vector<int> devices;  // {device}: the ordinal, or several joined by '-' ("0-1-2-3")
};

// Replaces every {rank}, {host} and {device} in path. Any other {name}, or an unclosed
// brace, is a UsageError (a mistyped placeholder must not become a literal file name).
std::string expand_output_path(const std::string& path, const OutputPlaceholders& values);

// Ranks that each write their own report (no MPI merge) must not write the same file:
// with more than one rank, every path needs {rank}. Throws UsageError otherwise.
void require_rank_in_outputs(const std::vector<std::string>& paths, const LaunchInfo& launch);

}  // namespace gpb
