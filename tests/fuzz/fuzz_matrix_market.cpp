// libFuzzer target: the Matrix Market reader. A UsageError is the expected answer to bad
// input; anything else (another exception, a crash, a sanitizer report) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "model/matrix_market.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A small memory budget, so that a header declaring a large (valid) matrix is refused
  // instead of allocating it in the fuzzer.
  constexpr std::uint64_t kBudget = std::uint64_t{64} << 20;
  try {
    gpb::parse_matrix_market(std::string(reinterpret_cast<const char*>(data), size), "fuzz.mtx", kBudget);
  } catch (const gpb::UsageError&) {
  }
  return 0;
}
