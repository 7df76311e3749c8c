// The command line of gpubench: binds argv to the commands' options (CLI11) and dispatches to
// the one given. main.cpp calls it; so does a test that runs the program in its own process
// with an op or a backend registered first.
#pragma once

namespace gpb {

// argv[0] is the program's name. Returns the exit code: the command's, 2 for a usage error
// (its message on stderr), 1 for any other error, 130 or 143 after SIGINT or SIGTERM.
int run_program(int argc, char** argv);

}  // namespace gpb
