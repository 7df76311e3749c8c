// `gpubench list`: the ops, the backends with their availability, and which op/dtype pairs
// each backend runs (and why not).
#pragma once

#include <ostream>

namespace gpb {

int command_list(std::ostream& out);

}  // namespace gpb
