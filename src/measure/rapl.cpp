#include "measure/rapl.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace gpb {
namespace {

namespace fs = std::filesystem;

// The first line of a small sysfs file; false with the reason in `why` when it cannot be read.
bool read_line(const fs::path& path, std::string& line, std::string& why) {
  errno = 0;
  std::ifstream in(path);
  if (!in || !std::getline(in, line)) {
    const int error = errno;
    why = path.string() + " is not readable" + (error ? std::string(": ") + std::strerror(error) : std::string());
    if (error == EACCES)
      why += " (energy_uj is readable by root only since Linux 5.10; run as root or grant read access to measure CPU energy)";
    return false;
  }
  return true;
}

bool read_count(const fs::path& path, std::uint64_t& value, std::string& why) {
  std::string line;
  if (!read_line(path, line, why)) return false;
  std::istringstream in(line);
  if (!(in >> value)) {
    why = path.string() + " holds \"" + line + "\", not a count";
    return false;
  }
  return true;
}

// ", and this machine is a virtual machine (the hypervisor flag in /proc/cpuinfo): ..." where it is.
std::string virtual_machine_note(const std::string& cpuinfo) {
  std::ifstream in(cpuinfo);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("flags", 0) == 0 && (" " + line + " ").find(" hypervisor ") != std::string::npos)
      return "; this machine is a virtual machine (the hypervisor flag in " + cpuinfo +
             "), and hypervisors rarely pass RAPL through";
  return {};
}

// A top-level zone: "intel-rapl:0", not a subzone "intel-rapl:0:1" (the package holds it).
bool is_top_level_zone(const std::string& name) {
  return name.rfind("intel-rapl:", 0) == 0 && std::count(name.begin(), name.end(), ':') == 1;
}

struct Zone {
  fs::path energy_path;
  std::string name;
  std::uint64_t max_range_uj = 0;
  std::uint64_t last_uj = 0;
  std::uint64_t total_uj = 0;  // the increase since the first read, wrap-arounds undone
};

class RaplCounter final : public EnergyCounter {
 public:
  RaplCounter(std::vector<Zone> zones, std::string key) : zones_(std::move(zones)), key_(std::move(key)) {}

  std::string name() const override {
    std::string names;
    for (const auto& zone : zones_) names += (names.empty() ? "" : "+") + zone.name;
    return "rapl " + names;
  }
  std::string key() const override { return key_; }
  double resolution_j() const override { return 1e-6; }

  std::optional<double> read_j() override {
    std::vector<std::uint64_t> now(zones_.size());
    std::string why;
    for (std::size_t i = 0; i < zones_.size(); ++i)
      if (!read_count(zones_[i].energy_path, now[i], why)) return std::nullopt;
    double total_uj = 0;
    for (std::size_t i = 0; i < zones_.size(); ++i) {
      Zone& zone = zones_[i];
      zone.total_uj += rapl_increase_uj(zone.last_uj, now[i], zone.max_range_uj);
      zone.last_uj = now[i];
      total_uj += static_cast<double>(zone.total_uj);
    }
    return total_uj * 1e-6;
  }

 private:
  std::vector<Zone> zones_;
  std::string key_;
};

}  // namespace

EnergySource make_rapl_energy_source(const std::string& root, const std::string& cpuinfo) {
  EnergySource source;
  std::error_code error;
  if (!fs::is_directory(root, error)) {
    source.reason = "no RAPL energy counter: " + root + " does not exist (no powercap interface in this kernel)" +
                    virtual_machine_note(cpuinfo);
    return source;
  }
  std::vector<fs::path> zone_dirs;
  for (fs::directory_iterator it(root, error), end; !error && it != end; it.increment(error))
    if (is_top_level_zone(it->path().filename().string())) zone_dirs.push_back(it->path());
  std::sort(zone_dirs.begin(), zone_dirs.end());
  std::vector<Zone> zones;
  for (const auto& dir : zone_dirs) {
    Zone zone;
    std::string why;
    if (!read_line(dir / "name", zone.name, why)) {
      source.reason = "no RAPL energy counter: " + why;
      return source;
    }
    if (zone.name == "psys") continue;  // the platform: overlaps the packages
    zone.energy_path = dir / "energy_uj";
    if (!read_count(dir / "max_energy_range_uj", zone.max_range_uj, why) || !read_count(zone.energy_path, zone.last_uj, why)) {
      source.reason = "no RAPL energy counter: " + why;
      return source;
    }
    zones.push_back(std::move(zone));
  }
  if (zones.empty()) {
    source.reason = "no RAPL energy counter: no package zone (intel-rapl:N) under " + root + virtual_machine_note(cpuinfo);
    return source;
  }
  source.counter = std::make_unique<RaplCounter>(std::move(zones), "rapl:" + root);
  return source;
}

}  // namespace gpb
