#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "base/random.hpp"
#include "base/terminal.hpp"

namespace gpb {
namespace {

TEST(Printable, EscapesControlSequencesButKeepsTheColours) {
  EXPECT_EQ(printable("commit=\x1b[2Jwiped"), "commit=\\x1b[2Jwiped");
  EXPECT_EQ(printable("evil\x1b]0;owned\x07host"), "evil\\x1b]0;owned\\x07host");
  EXPECT_EQ(printable("\x1b[1;31mslower\x1b[0m"), "\x1b[1;31mslower\x1b[0m");
  EXPECT_EQ(printable("\x1b[32mfaster\x1b[0m \x1b[33m?\x1b[0m"), "\x1b[32mfaster\x1b[0m \x1b[33m?\x1b[0m");
  // Near misses of a colour are escaped: another colour, a cut sequence at the end.
  EXPECT_EQ(printable("\x1b[31mred"), "\\x1b[31mred");
  EXPECT_EQ(printable("end\x1b[1;3"), "end\\x1b[1;3");
  EXPECT_EQ(printable("tab\tand line\n"), "tab\tand line\n");
}

// Through the standard streams, written in pieces of every size: a colour split across two
// writes comes out whole, and what is escaped stays escaped. Seeded.
TEST(Printable, StreamsKeepSplitColoursWhole) {
  const std::string text = "a \x1b[1;31mslower\x1b[0m b \x1b[2J c \xc3\xa9 \x1b[33mmaybe\x1b[0m\x1b";
  const std::string expected = printable(text);
  SplitMix64 rng(27);
  for (int trial = 0; trial < 200; ++trial) {
    testing::internal::CaptureStdout();
    {
      PrintableStandardStreams streams;
      std::size_t at = 0;
      while (at < text.size()) {
        const std::size_t piece = 1 + rng.next() % 7;
        std::cout << text.substr(at, piece);
        at += piece;
      }
    }
    EXPECT_EQ(testing::internal::GetCapturedStdout(), expected) << "trial " << trial;
  }
}

}  // namespace
}  // namespace gpb
