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

// The text with every control character except line feed and tab (C0, DEL, and the C1
// range U+0080..U+009F) and every byte that is not part of valid UTF-8 written as \xNN;
// valid UTF-8 passes unchanged.
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
