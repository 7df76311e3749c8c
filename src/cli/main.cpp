// The gpubench program: the command line (cli/program.hpp) with SIGINT and SIGTERM handled.
#include "base/interrupt.hpp"
#include "cli/program.hpp"

int main(int argc, char** argv) {
  gpb::install_interrupt_handlers();
  return gpb::run_program(argc, argv);
}
