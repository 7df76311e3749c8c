// The one way gpubench parses JSON it did not write itself (suites, reports to compare):
// bounded nesting, and every parse problem a usage error naming the input.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace gpb {

// Reports nest 8 levels deep and suites 4; nothing gpubench reads needs more.
inline constexpr int kMaxJsonDepth = 64;

// Parses text read from `origin` (a path, or "suite 'x.json'"). Arrays and objects nested
// more than kMaxJsonDepth deep are refused while parsing, before the document is built,
// so that no recursion over a document can overflow the stack. Every problem -- malformed
// text, a number beyond a double's range (1e999), too deep nesting -- is a UsageError
// "<origin>: invalid JSON: <what>".
nlohmann::json parse_json_input(std::string_view text, const std::string& origin);

}  // namespace gpb
