#include "result.hpp"

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

}  // namespace gpb
