#include "fleet/launcher.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "base/errors.hpp"
#include "base/text.hpp"

namespace gpb {
namespace {

// The variables of one launcher: its rank variable recognises it.
struct LauncherVariables {
  const char* launcher;
  const char* rank;
  const char* local_rank;
  const char* world_size;
  const char* node;       // may be null
  const char* node_name;  // may be null
};

// In order of precedence: see detect_launch.
constexpr LauncherVariables kLaunchers[] = {
    {"torchrun", "RANK", "LOCAL_RANK", "WORLD_SIZE", "GROUP_RANK", nullptr},
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE", nullptr, nullptr},
    {"mpich", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE", nullptr, nullptr},
    {"slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS", "SLURM_NODEID", "SLURMD_NODENAME"},
};

constexpr const char* kHostOverride = "GPUBENCH_HOST";

// The bound docs/bounds.md gives --device's ordinals.
constexpr int kMaxOrdinal = 1023;

const std::string* find(const Environment& environment, const char* name) {
  if (!name) return nullptr;
  const auto found = environment.find(name);
  return found == environment.end() ? nullptr : &found->second;
}

// A non-negative integer of at most `max_digits` digits, so that std::stoi cannot overflow.
bool is_small_number(const std::string& text, std::size_t max_digits) {
  return !text.empty() && text.size() <= max_digits &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

int non_negative(const std::string& text, const std::string& what) {
  if (!is_small_number(text, 9)) throw UsageError(what + "='" + text + "' is not a non-negative integer");
  return std::stoi(text);
}

int integer_variable(const Environment& environment, const char* name, int fallback) {
  const std::string* value = find(environment, name);
  return value ? non_negative(*value, name) : fallback;
}

// A placeholder's value becomes one file name: a host name holding '/' or "..", which
// GPUBENCH_HOST or the launcher may give, would otherwise write outside the directory named.
const std::string& single_path_component(const std::string& path, const std::string& name, const std::string& value) {
  if (value.empty() || value == "." || value == ".." || value.find('/') != std::string::npos ||
      value.find('\0') != std::string::npos)
    throw UsageError("--out '" + path + "': {" + name + "} would be '" + value +
                     "', which is not a single file name (empty, '.', '..' or holding '/'); set GPUBENCH_HOST to a plain "
                     "host name");
  return value;
}

std::string joined_devices(const std::vector<int>& devices) {
  std::string text;
  for (int device : devices) text += (text.empty() ? "" : "-") + std::to_string(device);
  return text;
}

}  // namespace

Environment launcher_environment() {
  Environment environment;
  const auto take = [&](const char* name) {
    if (!name) return;
    if (const char* value = std::getenv(name)) environment[name] = value;
  };
  for (const auto& variables : kLaunchers) {
    take(variables.rank);
    take(variables.local_rank);
    take(variables.world_size);
    take(variables.node);
    take(variables.node_name);
  }
  take(kHostOverride);
  return environment;
}

LaunchInfo detect_launch(const Environment& environment) {
  LaunchInfo launch;
  for (const auto& variables : kLaunchers) {
    const std::string* rank = find(environment, variables.rank);
    // RANK alone is too common a name to mean torchrun; torchrun always sets LOCAL_RANK beside it.
    if (!rank || (variables.launcher == std::string("torchrun") && !find(environment, variables.local_rank))) continue;
    launch.launcher = variables.launcher;
    launch.rank = non_negative(*rank, variables.rank);
    launch.local_rank = integer_variable(environment, variables.local_rank, 0);
    launch.world_size = integer_variable(environment, variables.world_size, 0);
    if (launch.world_size == 0 && find(environment, variables.world_size))
      throw UsageError(std::string(variables.world_size) + "=0: a job has at least one rank");
    if (launch.world_size > 0 && launch.rank >= launch.world_size)
      throw UsageError(std::string(variables.rank) + "=" + *rank + " is not below " + variables.world_size + "=" +
                       std::to_string(launch.world_size));
    if (const std::string* node = find(environment, variables.node)) launch.node = *node;
    if (const std::string* node_name = find(environment, variables.node_name)) launch.node_name = *node_name;
    return launch;
  }
  return launch;
}

ProcessPlace place_process(int group_rank, int group_size) {
  const Environment environment = launcher_environment();
  ProcessPlace place;
  place.launch = detect_launch(environment);
  if (group_size > 1) {
    place.launch.rank = group_rank;
    place.launch.world_size = group_size;
    if (!place.launch.launched()) place.launch.launcher = "mpi";
    place.rank_zero_writes = true;
  }
  place.host = host_name(environment, place.launch);
  return place;
}

std::string host_name(const Environment& environment, const LaunchInfo& launch) {
  if (const std::string* host = find(environment, kHostOverride); host && !host->empty()) return *host;
  if (!launch.node_name.empty()) return launch.node_name;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0 && host[0] != '\0') return host;
  return "unknown-host";
}

DeviceRequest parse_device_request(const std::string& text) {
  DeviceRequest request;
  if (text == "all") {
    request.all = true;
    return request;
  }
  for (const auto& item : split_list(text)) {
    if (!is_small_number(item, 4)) {
      // "gpu1", "cuda:1", "GPU 1": the other tools' spelling of an ordinal.
      std::size_t digits = item.size();
      while (digits > 0 && std::isdigit(static_cast<unsigned char>(item[digits - 1]))) --digits;
      const std::string ordinal = item.substr(digits);
      const bool spelled = !ordinal.empty() && digits > 0 && std::isalpha(static_cast<unsigned char>(item[0])) &&
                           is_small_number(ordinal, 4);
      throw UsageError("'" + text + "': expected 'all', a GPU ordinal or a list of them (e.g. 0,2,3)" +
                       (spelled ? "; for '" + item + "' write " + std::to_string(std::stoi(ordinal)) : ""));
    }
    const int ordinal = std::stoi(item);
    if (ordinal > kMaxOrdinal)
      throw UsageError("'" + text + "': GPU ordinals run from 0 to " + std::to_string(kMaxOrdinal));
    if (std::find(request.ordinals.begin(), request.ordinals.end(), ordinal) != request.ordinals.end())
      throw UsageError("'" + text + "' names GPU " + item + " twice");
    request.ordinals.push_back(ordinal);
  }
  if (request.ordinals.empty()) throw UsageError("'" + text + "' names no GPU");
  return request;
}

DeviceChoice choose_devices(const std::optional<DeviceRequest>& request, const LaunchInfo& launch, int visible_gpus) {
  DeviceChoice choice;
  if (request && request->all) {
    for (int ordinal = 0; ordinal < visible_gpus; ++ordinal) choice.devices.push_back(ordinal);
    // Without a visible GPU the GPU backends are unavailable and their cases say so.
    if (choice.devices.empty()) choice.devices.push_back(0);
    return choice;
  }
  if (request) {
    for (int ordinal : request->ordinals)
      if (visible_gpus > 0 && ordinal >= visible_gpus)
        throw UsageError("--device " + std::to_string(ordinal) + ": this process sees " + std::to_string(visible_gpus) +
                         " GPU" + (visible_gpus == 1 ? "" : "s") + " (ordinals 0.." + std::to_string(visible_gpus - 1) + ")");
    choice.devices = request->ordinals;
    return choice;
  }
  if (!launch.launched()) {
    choice.devices.push_back(0);
    return choice;
  }
  const int device = visible_gpus > 0 ? launch.local_rank % visible_gpus : launch.local_rank;
  if (visible_gpus > 0 && launch.local_rank >= visible_gpus)
    choice.notes.push_back("local rank " + std::to_string(launch.local_rank) + " shares GPU " + std::to_string(device) +
                           " with another rank: this host shows " + std::to_string(visible_gpus) + " GPU" +
                           (visible_gpus == 1 ? "" : "s"));
  choice.devices.push_back(device);
  return choice;
}

std::string expand_output_path(const std::string& path, const OutputPlaceholders& values) {
  std::string expanded;
  std::string::size_type position = 0;
  while (position < path.size()) {
    const auto open = path.find('{', position);
    if (open == std::string::npos) {
      expanded += path.substr(position);
      break;
    }
    expanded += path.substr(position, open - position);
    const auto close = path.find('}', open);
    if (close == std::string::npos)
      throw UsageError("--out '" + path + "': unclosed '{' (placeholders are {rank}, {host} and {device})");
    const std::string name = path.substr(open + 1, close - open - 1);
    if (name == "rank")
      expanded += std::to_string(values.rank);
    else if (name == "host")
      expanded += single_path_component(path, name, values.host);
    else if (name == "device")
      expanded += joined_devices(values.devices);
    else
      throw UsageError("--out '" + path + "': unknown placeholder {" + name + "} (expected {rank}, {host} or {device})");
    position = close + 1;
  }
  return expanded;
}

void require_rank_in_outputs(const std::vector<std::string>& paths, const LaunchInfo& launch) {
  if (!launch.launched() || launch.world_size == 1) return;
  for (const auto& path : paths)
    if (path.find("{rank}") == std::string::npos)
      throw UsageError("--out '" + path + "' would be written by every rank of this " + launch.launcher +
                       " job: put {rank} in it (e.g. 'fleet-{host}-{rank}.json'), then join the files with gpubench merge");
}

}  // namespace gpb
