// What gpubench prints reaches a terminal, and much of it comes from inputs or stored data it
// did not write: a Matrix Market header, a report's host name, a tag in the database. Control
// characters and invalid UTF-8 in them would drive the terminal (an ESC sequence clears the
// screen or retitles the window); they are escaped instead, as \x1b, and everything printed
// on standard output and standard error goes through the escaping.
#pragma once

#include <memory>
#include <streambuf>
#include <string>
#include <string_view>

namespace gpb {

// The colours gpubench paints verdicts and failures with on a terminal (report/report_model):
// SGR sequences that only set or reset a colour. They are the one kind of ESC sequence printed
// as it is (wherever it comes from: a colour cannot move the cursor, clear the screen or
// retitle the window); every other ESC is escaped.
namespace terminal_colour {
inline constexpr std::string_view failure = "\x1b[1;31m";
inline constexpr std::string_view warning = "\x1b[33m";
inline constexpr std::string_view success = "\x1b[32m";
inline constexpr std::string_view reset = "\x1b[0m";
inline constexpr std::string_view all[] = {failure, warning, success, reset};
}  // namespace terminal_colour

// The text with every control character except line feed and tab (C0, DEL, and the C1
// range U+0080..U+009F) and every byte that is not part of valid UTF-8 written as \xNN;
// valid UTF-8 and the colour sequences above pass unchanged.
std::string printable(std::string_view text);

// While it lives, std::cout and std::cerr print through printable (a multi-byte character
// split across two writes is kept whole); the streams' own buffers come back when it ends.
class PrintableStandardStreams {
 public:
  PrintableStandardStreams();
  ~PrintableStandardStreams();
  PrintableStandardStreams(const PrintableStandardStreams&) = delete;
  PrintableStandardStreams& operator=(const PrintableStandardStreams&) = delete;

 private:
  std::unique_ptr<std::streambuf> out_, err_;
  std::streambuf* original_out_;
  std::streambuf* original_err_;
};

}  // namespace gpb
