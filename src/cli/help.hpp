// Help that leads somewhere: every command's help wrapped to 80 columns with its examples,
// defaults and exit codes; "did you mean" for a mistyped command or option; bash and zsh
// completion generated from the same command-line definition.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gpb {

inline constexpr std::size_t kHelpWidth = 80;

// Wraps `text` to `width` columns, paragraph by paragraph: lines that start with a blank
// (examples, tables) are kept as they are, other lines are joined and refilled.
std::string wrap_paragraphs(const std::string& text, std::size_t width = kHelpWidth);

// Installs the formatter that keeps help within kHelpWidth columns. Call it before adding
// subcommands: they inherit it.
void use_wrapped_help(CLI::App& app);

// Adds the examples and exit codes of every command to its help (the footer), and the words
// and files that completion offers for the values of its options. Call it once every
// command and option exists.
void describe_commands(CLI::App& app);

// The message for a command line CLI11 refused because of a mistyped command or option:
// the word, where it was expected, and the nearest known one ("unknown option '--sizes'
// for gpubench run (did you mean '--size'?)"). Empty when the refusal is of another kind.
std::string mistyped_word_message(const CLI::App& app, const std::vector<std::string>& args);

// The message for words CLI11 found no place for ("gpubench run sin"): which words, for which
// command, and where they probably belong ("the op goes after --op: --op sin"; "report
// re-renders one report: to compare two, gpubench compare BASELINE CURRENT").
std::string extra_arguments_message(const CLI::App& app, const std::vector<std::string>& args);

// The message for a missing positional argument ("gpubench compare r.json"): its name, what
// it is, and the command's form. Empty when `missing` is no positional of the command.
std::string missing_argument_message(const CLI::App& app, const std::vector<std::string>& args, const std::string& missing);

// CLI11's refusal of a one-value option given more than once ("--min-samples: At Most 1
// required but received 2") in words: "--min-samples is given 2 times; it takes one value".
// Empty for another refusal.
std::string repeated_option_message(const std::string& refusal);

// CLI11's refusals of a value in the house's words: "--rounds: Value 0 not in range 1 to 1000"
// is "--rounds: 0 is out of range (at least 1, at most 1000)", a range up to the largest double
// "must be positive", "Could not convert: --x = y" is "--x: expected a number, got 'y'", and
// "--warmup: 1 required INT missing" is "--warmup needs a value (INT)". Empty for another.
std::string value_refusal_message(const std::string& refusal);

// The command the arguments name ("gpubench history show"), for pointing at its --help.
std::string command_path(const CLI::App& app, const std::vector<std::string>& args);

// The completion script for `shell` ("bash" or "zsh"), from app's commands and options.
// UsageError for another shell.
std::string completion_script(const CLI::App& app, const std::string& shell);

}  // namespace gpb
