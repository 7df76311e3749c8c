// `gpubench merge`: the JSON reports of a run's ranks joined into one report (.json), for the
// fleet view.
#pragma once

#include <string>
#include <vector>

namespace gpb {

int command_merge(const std::vector<std::string>& paths, const std::string& out);

}  // namespace gpb
