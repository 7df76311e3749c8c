// Checks of option values shared by several commands, with refusals in words.
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <string>

namespace gpb {

// A positive number (of seconds): 0 and negative values are refused as such. CLI11's
// PositiveNumber names its bound as "0.000000", so its refusal of 0 read "at least 0".
inline CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        char* end = nullptr;
        const double number = std::strtod(value.c_str(), &end);
        if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(number))
          return "expected a positive number, got '" + value + "'";
        if (!(number > 0)) return value + " is not above 0: give a positive number";
        return "";
      },
      "POSITIVE");
}

}  // namespace gpb
