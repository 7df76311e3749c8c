// `gpubench list`: the ops, the backends with their availability, and which op/dtype pairs
// each backend runs (and why not), as console text within 80 columns or as JSON.
#pragma once

#include <ostream>
#include <string>

namespace gpb {

int command_list(const std::string& format_name, std::ostream& out);

}  // namespace gpb
