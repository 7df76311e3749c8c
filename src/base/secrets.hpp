// Passwords never leave gpubench. A database URL may carry one (postgresql://user:secret@...,
// ?password=secret, a libpq "password=secret" string); every text gpubench writes or prints
// that may hold such a URL -- the command line recorded in reports and in the store, the
// database named in messages -- goes through redact_secrets first.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace gpb {

// Where the user information of a URL lies: `scheme://USER[:PASSWORD]@host...`. A password
// need not be percent-encoded: the user information runs to the last '@' before the query,
// so "ci:pa@ss/word@host/db" is user "ci" with password "pa@ss/word". Where no '@' comes
// before the query (a '?' inside the password), an authority of "user:..." with no '/'
// runs to the last '@' of the whole text, as libpq reads it.
struct UrlUserinfo {
  std::size_t begin = 0, end = 0;   // [begin, end): user[:password]; end is the '@'
  std::size_t colon = std::string::npos;  // the ':' before the password; npos when there is none
};
// `authority` is the position just after "://". nullopt when the URL has no user information.
std::optional<UrlUserinfo> find_url_userinfo(const std::string& url, std::size_t authority);

// Whether `key` names a password: "password" in any case, also percent-encoded ("PASSWORD",
// "pass%77ord"), as libpq would decode a URL's query keys.
bool is_password_key(const std::string& key);

// "%41" -> "A"; nullopt on a '%' not followed by two hex digits.
std::optional<std::string> percent_decode(const std::string& text);

// The text with every password replaced by "***": the password of each URL's user
// information, and the value of every password=... pair (URL queries and libpq keyword
// strings, quoted or not, any case). Where a URL is ambiguous, more is hidden, never less.
std::string redact_secrets(const std::string& text);

}  // namespace gpb
