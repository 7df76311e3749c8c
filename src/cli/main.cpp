// The gpubench program: the command line (cli/program.hpp) with SIGINT and SIGTERM handled
// and everything it prints made printable (base/terminal.hpp).
#include "base/interrupt.hpp"
#include "base/terminal.hpp"
#include "cli/program.hpp"

int main(int argc, char** argv) {
  gpb::install_interrupt_handlers();
  const gpb::PrintableStandardStreams printable_output;
  return gpb::run_program(argc, argv);
}
