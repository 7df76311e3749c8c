// The CPU's energy counters: RAPL (Running Average Power Limit) through Linux's powercap
// interface, /sys/class/powercap/intel-rapl:N/energy_uj (the intel_rapl driver names AMD's
// counters the same way). One counter per package zone, summed; the platform zone (psys)
// overlaps the packages and is left out. Where there is no counter to read -- no powercap
// (other systems, most virtual machines), no package zone, energy_uj readable by root only
// (Linux 5.10 on) -- the source carries the reason instead.
#pragma once

#include <string>

#include "model/energy.hpp"

namespace gpb {

inline constexpr const char* kPowercapRoot = "/sys/class/powercap";
inline constexpr const char* kCpuInfoPath = "/proc/cpuinfo";

// The RAPL package counters under `root` (a parameter so that tests can point it at a fake
// tree); `cpuinfo` tells whether the machine is a virtual machine, for the reason.
EnergySource make_rapl_energy_source(const std::string& root = kPowercapRoot,
                                     const std::string& cpuinfo = kCpuInfoPath);

}  // namespace gpb
