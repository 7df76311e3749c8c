// libFuzzer target: the --size list and --shape parsers. A UsageError is the expected answer
// to bad input; anything else (another exception, a crash, a sanitizer report) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "config/plan.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    gpb::parse_size_list(text);
  } catch (const gpb::UsageError&) {
  }
  try {
    gpb::parse_matmul_shape(text);
  } catch (const gpb::UsageError&) {
  }
  return 0;
}
