// `gpubench run`: resolve the configuration, plan, measure on this process's GPUs (with the
// other ranks of an MPI run), write the reports, compare with the baseline and store the run.
#pragma once

#include <string>
#include <vector>

#include "config/run_config.hpp"

namespace gpb {

// Runs in this build's process group; returns the exit code: 3 when a case failed, else the
// baseline's verdict, else 0; 130 or 143 after SIGINT or SIGTERM. An error on one rank of
// several ends them all. The run is stored where --db says, after it is compared.
// `colour`: the terminal's console report and comparison colour failures and verdicts.
int command_run(const RunCommandLine& cli, const std::vector<std::string>& argv, bool colour);

}  // namespace gpb
