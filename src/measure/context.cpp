#include "measure/context.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <CLI/Version.hpp>
#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/build_info.hpp"
#include "base/secrets.hpp"
#include "base/system.hpp"
#include "model/telemetry.hpp"

namespace gpb {
namespace {

std::string read_cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}

}  // namespace

std::string utc_timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

Context collect_context(const std::vector<std::string>& argv, int threads_used) {
  Context context;
  context.tool_version = build_info::version;
  context.git_sha = build_info::git_sha;
  context.build_type = build_info::build_type;
  context.compiler = build_info::compiler;
  // The command line goes into reports and the store: passwords in database URLs stay out.
  for (const std::string& argument : argv) context.argv.push_back(redact_secrets(argument));
  context.timestamp = utc_timestamp();
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) context.hostname = host;
  utsname system{};
  if (uname(&system) == 0) context.os = std::string(system.sysname) + " " + system.release + " " + system.machine;
  context.cpu_model = read_cpu_model();
  context.cpu_cores = usable_cores();
  context.threads = threads_used;
  context.memory_gib = physical_memory_bytes() / (1024.0 * 1024.0 * 1024.0);
  context.libraries["nlohmann_json"] = std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." +
                                       std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." +
                                       std::to_string(NLOHMANN_JSON_VERSION_PATCH);
  context.libraries["cli11"] = CLI11_VERSION;
  append_cpu_context(context);
  append_gpu_context(context);
  return context;
}

std::vector<std::string> telemetry_notes(const Context& context, const std::vector<int>& devices) {
  std::vector<std::string> notes;
  for (const GpuInfo& gpu : context.gpus) {
    if (std::find(devices.begin(), devices.end(), gpu.ordinal) == devices.end()) continue;
    const std::string name = "GPU " + std::to_string(gpu.ordinal);
    if (!gpu.nvml.available)
      notes.push_back(name + " telemetry unavailable (" + gpu.nvml.reason + "): no clocks, power or energy in the records");
    else if (clocks_locked(gpu.nvml) == false)
      notes.push_back(name + " clocks are not locked (no application clocks or clock limit set): boost clocks follow "
                             "power and temperature; --soak measures at a steady state");
  }
  return notes;
}

}  // namespace gpb
