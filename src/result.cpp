#include "result.hpp"

#include <charconv>
#include <limits>
#include <type_traits>

namespace gpb {

std::string CaseSpec::id() const {
  std::string id = to_string(op) + "/" + backend + "/" + to_string(dtype) + "/" + shape.label(op);
  // Only the non-default settings are appended, so the common case reads as plainly as possible.
  if (timing == TimingMode::e2e) id += "/e2e";
  if (tf32) id += "/tf32";
  if (l2 == L2Mode::warm) id += "/l2warm";
  return id;
}

std::string to_string(Status status) {
  switch (status) {
    case Status::ok:
      return "ok";
    case Status::skipped:
      return "skipped";
    case Status::failed:
      return "failed";
  }
  return "?";
}

SettingValue integer_setting(std::uint64_t value) {
  if (value <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return static_cast<std::int64_t>(value);
  return value;
}

std::string to_string(const SettingValue& value) {
  return std::visit(
      [](const auto& held) -> std::string {
        using T = std::decay_t<decltype(held)>;
        if constexpr (std::is_same_v<T, bool>) {
          return held ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return held;
        } else {
          char text[32];
          const auto result = std::to_chars(text, text + sizeof text, held);
          return std::string(text, result.ptr);
        }
      },
      value);
}

}  // namespace gpb
