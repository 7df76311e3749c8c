#include "base/secrets.hpp"

#include <algorithm>
#include <cctype>

namespace gpb {
namespace {

constexpr const char* kHidden = "***";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Where a password value that starts at `begin` ends: a quoted value (libpq keyword strings,
// with backslash escapes) at its closing quote, anything else at a blank or the next URL
// query parameter.
std::size_t value_end(const std::string& text, std::size_t begin) {
  if (begin < text.size() && text[begin] == '\'') {
    for (std::size_t i = begin + 1; i < text.size(); ++i) {
      if (text[i] == '\\') {
        ++i;
      } else if (text[i] == '\'') {
        return i + 1;
      }
    }
    return text.size();
  }
  std::size_t end = begin;
  while (end < text.size() && !is_blank(text[end]) && text[end] != '&' && text[end] != '#') ++end;
  return end;
}

// The URLs' user information passwords replaced.
std::string redact_url_passwords(const std::string& text) {
  std::string out = text;
  for (std::size_t scheme = out.find("://"); scheme != std::string::npos; scheme = out.find("://", scheme + 3)) {
    const std::size_t authority = scheme + 3;
    auto blank = std::find_if(out.begin() + static_cast<std::ptrdiff_t>(authority), out.end(), is_blank);
    const std::string url = out.substr(0, static_cast<std::size_t>(blank - out.begin()));
    const auto userinfo = find_url_userinfo(url, authority);
    if (!userinfo || userinfo->colon == std::string::npos) continue;
    out.replace(userinfo->colon + 1, userinfo->end - userinfo->colon - 1, kHidden);
  }
  return out;
}

}  // namespace

std::optional<std::string> percent_decode(const std::string& text) {
  std::string decoded;
  decoded.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      decoded += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int high = hex_value(text[i + 1]), low = hex_value(text[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    decoded += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return decoded;
}

std::optional<UrlUserinfo> find_url_userinfo(const std::string& url, std::size_t authority) {
  if (authority > url.size()) return std::nullopt;
  const std::size_t query = std::min(url.find('?', authority), url.size());
  std::size_t at = std::string::npos;
  for (std::size_t i = query; i > authority; --i)
    if (url[i - 1] == '@') {
      at = i - 1;
      break;
    }
  if (at == std::string::npos && query < url.size()) {
    // No '@' before the query: "ci:pa?ss@host" is a password holding '?' when what comes
    // before the '?' reads as user:password (no '/' of a path).
    const std::string before = url.substr(authority, query - authority);
    if (before.find(':') != std::string::npos && before.find('/') == std::string::npos) {
      const std::size_t last = url.rfind('@');
      if (last != std::string::npos && last > query) at = last;
    }
  }
  if (at == std::string::npos) return std::nullopt;
  UrlUserinfo userinfo;
  userinfo.begin = authority;
  userinfo.end = at;
  const std::size_t colon = url.find(':', authority);
  if (colon < at) userinfo.colon = colon;
  return userinfo;
}

bool is_password_key(const std::string& key) {
  std::string name = percent_decode(key).value_or(key);
  name.erase(std::remove_if(name.begin(), name.end(), is_blank), name.end());
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name == "password";
}

std::string redact_secrets(const std::string& text) {
  const std::string urls_redacted = redact_url_passwords(text);
  std::string out;
  std::size_t copied = 0;
  for (std::size_t equals = urls_redacted.find('='); equals != std::string::npos;
       equals = urls_redacted.find('=', equals + 1)) {
    // The key before '=': blanks allowed around it (libpq keyword strings), then up to a
    // separator of URL queries or keyword strings.
    std::size_t key_end = equals;
    while (key_end > copied && is_blank(urls_redacted[key_end - 1])) --key_end;
    std::size_t key_begin = key_end;
    while (key_begin > copied && !is_blank(urls_redacted[key_begin - 1]) &&
           std::string("&?;'\"=").find(urls_redacted[key_begin - 1]) == std::string::npos)
      --key_begin;
    if (key_begin == key_end || !is_password_key(urls_redacted.substr(key_begin, key_end - key_begin))) continue;
    std::size_t value_begin = equals + 1;
    while (value_begin < urls_redacted.size() && urls_redacted[value_begin] == ' ') ++value_begin;
    const std::size_t end = value_end(urls_redacted, value_begin);
    if (end == value_begin) continue;
    const bool quoted = urls_redacted[value_begin] == '\'';
    out += urls_redacted.substr(copied, value_begin - copied);
    out += quoted ? std::string("'") + kHidden + "'" : kHidden;
    copied = end;
    equals = end - 1;
  }
  return out + urls_redacted.substr(copied);
}

}  // namespace gpb
