// libFuzzer target: the suite parser (configs/*.json). A UsageError is the expected answer
// to bad input; anything else (another exception, a crash, a sanitizer report) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "config/suite.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    gpb::parse_suite(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
  } catch (const gpb::UsageError&) {
  }
  return 0;
}
