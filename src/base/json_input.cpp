#include "base/json_input.hpp"

#include <cstring>
#include <nlohmann/json.hpp>

#include "base/errors.hpp"

namespace gpb {
namespace {

// nlohmann's messages start with "[json.exception.parse_error.101] "; the rest is the useful part.
std::string without_exception_id(const char* message) {
  const char* end_of_id = std::strstr(message, "] ");
  return end_of_id ? end_of_id + 2 : message;
}

}  // namespace

nlohmann::json parse_json_input(std::string_view text, const std::string& origin) {
  const auto invalid = [&origin](const std::string& problem) { return UsageError(origin + ": invalid JSON: " + problem); };
  // The parser itself is iterative; the callback sees the depth of every array or object
  // as it opens (0 for the outermost), before the value is added to the document.
  const nlohmann::json::parser_callback_t limit_depth = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
    const bool opens = event == nlohmann::json::parse_event_t::object_start || event == nlohmann::json::parse_event_t::array_start;
    if (opens && depth >= kMaxJsonDepth)
      throw invalid("nested more than " + std::to_string(kMaxJsonDepth) + " levels deep (the most gpubench reads)");
    return true;
  };
  // Nothing at all (an empty file, /dev/null, a report whose writer died before writing): said
  // plainly, not as the parser's "unexpected end of input".
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw UsageError(origin + ": empty (" + (text.empty() ? "no bytes" : "white space only") + "), no JSON document");
  try {
    return nlohmann::json::parse(text.begin(), text.end(), limit_depth);
  } catch (const nlohmann::json::exception& error) {
    throw invalid(without_exception_id(error.what()));
  }
}

}  // namespace gpb
