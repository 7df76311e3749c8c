#include "base/terminal.hpp"

#include <iostream>

namespace gpb {
namespace {

constexpr int kIncomplete = -1;

// The length of the valid UTF-8 sequence that starts text, 0 when it is not one, and
// kIncomplete when text ends inside a sequence that may still be valid.
int sequence_length(std::string_view text) {
  const auto lead = static_cast<unsigned char>(text[0]);
  if (lead < 0x80) return 1;
  int length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte (overlong and surrogate forms excluded)
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  for (int i = 1; i < length; ++i) {
    if (static_cast<std::size_t>(i) >= text.size()) return kIncomplete;
    const auto byte = static_cast<unsigned char>(text[static_cast<std::size_t>(i)]);
    if (byte < (i == 1 ? low : 0x80) || byte > (i == 1 ? high : 0xBF)) return 0;
  }
  return length;
}

constexpr std::size_t kColourIncomplete = static_cast<std::size_t>(-1);

// The length of the colour sequence (terminal_colour) that text starts with, 0 when it starts
// with none, kColourIncomplete when text ends inside what may still be one.
std::size_t colour_length(std::string_view text) {
  bool incomplete = false;
  for (const std::string_view colour : terminal_colour::all) {
    if (text.substr(0, colour.size()) == colour) return colour.size();
    if (text.size() < colour.size() && colour.substr(0, text.size()) == text) incomplete = true;
  }
  return incomplete ? kColourIncomplete : 0;
}

void append_escaped(std::string& out, unsigned char byte) {
  static const char* const kHex = "0123456789abcdef";
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 15];
}

// Escapes text onto out and returns how many bytes it took: all of them at_end, otherwise
// all but a trailing sequence that the next text may complete.
std::size_t escape_into(std::string_view text, std::string& out, bool at_end) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == 0x1b) {
      const std::size_t colour = colour_length(text.substr(i));
      if (colour == kColourIncomplete && !at_end) return i;
      if (colour > 0 && colour != kColourIncomplete) {
        out.append(text.substr(i, colour));
        i += colour;
        continue;
      }
    }
    if (byte < 0x80) {
      if ((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7F)
        append_escaped(out, byte);
      else
        out += static_cast<char>(byte);
      ++i;
      continue;
    }
    const int length = sequence_length(text.substr(i));
    if (length == kIncomplete && !at_end) return i;
    const bool c1_control = length == 2 && byte == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0;
    if (length <= 0 || c1_control) {
      append_escaped(out, byte);
      ++i;
      continue;
    }
    out.append(text.substr(i, static_cast<std::size_t>(length)));
    i += static_cast<std::size_t>(length);
  }
  return i;
}

// A stream buffer that escapes what it is given and passes it on to another.
class PrintableBuffer final : public std::streambuf {
 public:
  explicit PrintableBuffer(std::streambuf* target) : target_(target) {}
  // Escapes what is held back (an incomplete sequence at the very end) and flushes.
  void finish() {
    drain(true);
    target_->pubsync();
  }

 protected:
  std::streamsize xsputn(const char* text, std::streamsize count) override {
    pending_.append(text, static_cast<std::size_t>(count));
    if (pending_.size() >= kChunk && !drain(false)) return 0;
    return count;
  }
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    pending_ += traits_type::to_char_type(c);
    if (pending_.size() >= kChunk && !drain(false)) return traits_type::eof();
    return c;
  }
  int sync() override { return drain(false) && target_->pubsync() == 0 ? 0 : -1; }

 private:
  static constexpr std::size_t kChunk = 1 << 16;

  bool drain(bool at_end) {
    std::string escaped;
    pending_.erase(0, escape_into(pending_, escaped, at_end));
    return target_->sputn(escaped.data(), static_cast<std::streamsize>(escaped.size())) ==
           static_cast<std::streamsize>(escaped.size());
  }

  std::streambuf* target_;
  std::string pending_;
};

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  escape_into(text, out, true);
  return out;
}

PrintableStandardStreams::PrintableStandardStreams()
    : out_(std::make_unique<PrintableBuffer>(std::cout.rdbuf())),
      err_(std::make_unique<PrintableBuffer>(std::cerr.rdbuf())),
      original_out_(std::cout.rdbuf(out_.get())),
      original_err_(std::cerr.rdbuf(err_.get())) {}

PrintableStandardStreams::~PrintableStandardStreams() {
  static_cast<PrintableBuffer&>(*out_).finish();
  static_cast<PrintableBuffer&>(*err_).finish();
  std::cout.rdbuf(original_out_);
  std::cerr.rdbuf(original_err_);
}

}  // namespace gpb
