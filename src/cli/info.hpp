// `gpubench info`: the system context that goes into reports, as console text or JSON.
#pragma once

#include <string>
#include <vector>

namespace gpb {

int command_info(const std::string& format_name, const std::vector<std::string>& argv);

}  // namespace gpb
