#include "cli/help.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <map>
#include <regex>
#include <sstream>

#include "base/errors.hpp"
#include "base/text.hpp"
#include "analysis/compare.hpp"
#include "cli/exit_codes.hpp"
#include "config/plan.hpp"
#include "config/run_config.hpp"
#include "measure/backend.hpp"
#include "model/types.hpp"
#include "report/compare_render.hpp"
#include "report/report.hpp"

namespace gpb {
namespace {

// The left column of option and command lists; longer names put their text on the next line.
constexpr std::size_t kNameColumn = 30;

std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// Fills `text` into lines of at most `width` columns (a longer word gets a line of its own).
std::vector<std::string> fill(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  for (const auto& word : words_of(text)) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// "  NAME   text that wraps
//           under itself"
std::string two_columns(const std::string& name, const std::string& text) {
  std::string out = "  " + name;
  const auto lines = fill(text, kHelpWidth - kNameColumn);
  if (lines.empty()) return out + "\n";
  if (out.size() + 1 > kNameColumn) out += "\n" + std::string(kNameColumn, ' ');
  else out += std::string(kNameColumn - out.size(), ' ');
  for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? std::string(kNameColumn, ' ') : "") + lines[i] + "\n";
  return out;
}

class WrappedHelp final : public CLI::Formatter {
 public:
  std::string make_option(const CLI::Option* option, bool positional) const override {
    return two_columns(make_option_name(option, positional) + make_option_opts(option), make_option_desc(option));
  }
  std::string make_subcommand(const CLI::App* command) const override {
    return two_columns(command->get_display_name(), command->get_description());
  }
  std::string make_description(const CLI::App* app) const override {
    const std::string description = app->get_description();
    return description.empty() ? "" : wrap_paragraphs(description) + "\n";
  }
  std::string make_footer(const CLI::App* app) const override {
    const std::string footer = app->get_footer();
    return footer.empty() ? "" : wrap_paragraphs(footer);
  }
};

// ---- what each command's help says beyond its options ----

std::string names(const std::vector<std::string>& words) { return join_words(words, ", "); }

// Each value's name: ops, dtypes, patterns, report formats.
template <class Value>
std::vector<std::string> names_of(const std::vector<Value>& values) {
  std::vector<std::string> names;
  for (const Value value : values) names.push_back(to_string(value));
  return names;
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const auto& backend : make_all_backends()) names.push_back(backend->name());
  return names;
}

std::string exit_code(int code, const std::string& meaning) { return "  " + std::to_string(code) + "  " + meaning + "\n"; }

// A command's footer: its examples (a line each, indented; a continued line carries its own
// indent), what to know beyond the options (paragraphs; none when empty) and its exit codes.
std::string command_footer(const std::vector<std::string>& examples, const std::string& about,
                           const std::string& exit_codes) {
  std::string footer = "Examples:\n";
  for (const auto& example : examples) footer += "  " + example + "\n";
  footer += "\n";
  if (!about.empty()) footer += about + "\n\n";
  return footer + "Exit codes:\n" + exit_codes;
}

// The verdict's two codes, alike for compare and ab: nothing regressed, or something did.
std::string verdict_exit_codes() {
  return exit_code(kCompareExitPass, "nothing regressed") +
         exit_code(kCompareExitRegression, "a case is slower, failed, or missing");
}

std::string run_footer() {
  return command_footer(
      {"gpubench run --op matmul --size 4096", "gpubench run --op sin,sqrt,sum --size 1M,16M --dtype f32,f64 --backend eigen",
       "gpubench run --op spmv --rows 1M --nnz-per-row 16 --pattern random,powerlaw",
       "gpubench run --op sum --size 1K..256M:x4 --out sweep.json --dry-run",
       "gpubench run --config configs/ci.json --require-gpu --out current.json"},
      "Without --op or --config, the default suite runs (configs/default.json). "
      "Ops: " + names(names_of(all_ops())) + ". Dtypes: " + names(names_of(all_dtypes())) +
          " (also float32, fp32, float64, double, float16, half, bfloat16). Backends: " + names(backend_names()) +
          "; `gpubench list` shows which run here.\n"
          "\n"
          "Sizes: 4096; suffixes K, M, G (powers of two: 4K = 4096); lists 1M,16M (a comma separates sizes, so "
          "write 1000, not 1,000); ranges 1K..256M:x4 (geometric) or 1K..8K:+1K (arithmetic), x2 when no step "
          "is given. A size is each op's natural one: n elements, matmul's square n (other shapes: --shape "
          "MxNxK), spmv's rows. Without --size: " + default_sizes_text() + ".",
      exit_code(kExitOk, "every case ran and verified") +
          exit_code(kCompareExitRegression, "--baseline: the comparison found a regression") +
          exit_code(kExitUsage, "usage error, found before anything is measured; no report written") +
          exit_code(kExitCaseFailed, "a case failed (an error, or a result that did not verify)") +
          exit_code(kCompareExitInconclusive, "--baseline: a case moved beyond its threshold, not settled (--resolve N)") +
          exit_code(kExitNoHistory, "--baseline db:...: no stored run to compare with yet") +
          "  130, 143  stopped by SIGINT, SIGTERM (the reports hold the finished cases)\n");
}

std::string compare_footer() {
  return command_footer({"gpubench compare baseline.json current.json",
                         "gpubench compare baseline.json current.json --format markdown > comparison.md",
                         "gpubench compare \"db:gpubench.db?branch=main&last=10\" current.json"},
                        "A case is slower or faster only when its median moved beyond the threshold (5% unless the suite "
                        "says otherwise) and the raw samples show it (docs/ci.md).",
                        verdict_exit_codes() +
                            exit_code(kExitUsage, "unreadable or mismatched input, reports of different machines") +
                            exit_code(kCompareExitInconclusive,
                                      "a case moved beyond its threshold, not settled (--inconclusive pass: 0)") +
                            exit_code(kExitNoHistory, "a db: baseline holds no run of this machine yet"));
}

std::string ab_footer() {
  return command_footer({"gpubench ab --a \"main/gpubench run --config configs/ci.json\" \\",
                         "            --b \"pr/gpubench run --config configs/ci.json\"",
                         "gpubench ab --a \"gpubench run --op sum --threads 1\" \\",
                         "            --b \"gpubench run --op sum --threads 2\" --rounds 20"},
                        "Alpha is spent over the rounds (little early, most at the last) and each\n"
                        "round is ranked within itself, so a drift between rounds is no evidence and\n"
                        "the whole sequence keeps the error rate of one comparison. A change is\n"
                        "called only when it shows in at least 3 rounds and in most of them. A case\n"
                        "is re-measured until decided; a noisy same not shown within the threshold\n"
                        "when the rounds run out is inconclusive (docs/ci.md).",
                        verdict_exit_codes() +
                            exit_code(kExitUsage, "a command line that fails or writes no report, or a bad option") +
                            exit_code(kCompareExitInconclusive, "a case is still not settled after the last round"));
}

std::string report_footer() {
  return command_footer({"gpubench report sweep.json", "gpubench report sweep.json --html sweep.html --relative-to eigen",
                         "gpubench report fleet.json --fail-on-outlier 5"},
                        "",
                        exit_code(kExitOk, "rendered") + exit_code(kExitOutlier, "--fail-on-outlier: a GPU is an outlier") +
                            exit_code(kExitUsage, "unreadable report or bad option"));
}

std::string history_footer() {
  return command_footer({"gpubench run --config configs/ci.json --db gpubench.db --tag branch=main",
                         "gpubench history list --tag branch=main",
                         "gpubench history show --case sum/eigen/f32/4194304 --html trend.html",
                         "gpubench history check --tag branch=main"},
                        "--db takes a SQLite file (default gpubench.db), sqlite:PATH, or postgresql://user@host/dbname "
                        "(docs/history.md).",
                        exit_code(kExitOk, "done (check: no case got slower)") +
                            exit_code(1, "check: a case's newest runs got slower since a change point") +
                            exit_code(kExitUsage, "usage error, or a database that cannot be read") +
                            exit_code(kExitNoHistory, "the database holds no history yet"));
}

std::string main_footer() {
  return "Run `gpubench COMMAND --help` for a command's options, examples and exit codes.\n"
         "\n"
         "Shell completion: source <(gpubench completion bash) (zsh: gpubench completion zsh). "
         "Colour on a terminal unless NO_COLOR is set or --color never; errors are one line on stderr, "
         "JSON with --format json.";
}

// ---- completion: which values an option takes ----

struct ValueWords {
  const char* command;  // "run", "history export"; "" for every command
  const char* option;   // "--op", or a positional's name
  std::function<std::vector<std::string>()> words;  // empty: file names
};

const std::vector<ValueWords>& value_words() {
  static const std::vector<ValueWords> table = {
      {"", "--op", [] { return names_of(all_ops()); }},
      {"", "--backend", backend_names},
      {"", "--relative-to", backend_names},
      {"", "--dtype", [] { return names_of(all_dtypes()); }},
      {"", "--pattern", [] { return names_of(generated_patterns()); }},
      {"", "--timing", [] { return std::vector<std::string>{to_string(TimingMode::kernel), to_string(TimingMode::e2e),
                                                             to_string(TimingMode::graph)}; }},
      {"", "--l2", [] { return std::vector<std::string>{to_string(L2Mode::flush), to_string(L2Mode::warm)}; }},
      {"", "--data", [] { return names_of(all_input_data()); }},
      {"", "--spmv-kernel",
       [] {
         return std::vector<std::string>{to_string(SpmvKernelChoice::automatic), to_string(SpmvKernelChoice::row_split),
                                         to_string(SpmvKernelChoice::merge_path)};
       }},
      {"", "--progress", [] { return std::vector<std::string>{"auto", "always", "never"}; }},
      {"", "--color", [] { return std::vector<std::string>{"auto", "always", "never"}; }},
      {"", "--match-devices", [] { return std::vector<std::string>{"uuid", "ordinal"}; }},
      {"", "--device", [] { return std::vector<std::string>{"all", "0", "1"}; }},
      {"run", "--format", [] { return names_of(kAllReportFormats); }},
      {"report", "--format", [] { return names_of(kAllReportFormats); }},
      {"compare", "--format", [] { return names_of(kComparisonFormats); }},
      {"ab", "--format", [] { return names_of(kComparisonFormats); }},
      {"info", "--format", [] { return names_of(std::vector<ReportFormat>{ReportFormat::console, ReportFormat::json}); }},
      {"list", "--format", [] { return names_of(std::vector<ReportFormat>{ReportFormat::console, ReportFormat::json}); }},
      {"history export", "--format", [] { return std::vector<std::string>{"csv", "json"}; }},
      {"history check", "--format", [] { return names_of(std::vector<ReportFormat>{ReportFormat::console, ReportFormat::markdown}); }},
      {"completion", "shell", [] { return std::vector<std::string>{"bash", "zsh"}; }},
      {"", "--config", {}},
      {"", "--out", {}},
      {"", "--matrix", {}},
      {"", "--html", {}},
      {"", "--db", {}},
      {"", "--baseline", {}},
      {"compare", "baseline", {}},
      {"compare", "current", {}},
      {"report", "report", {}},
      {"merge", "reports", {}},
      {"history ingest", "report", {}},
  };
  return table;
}

// "a b c"
std::string spaced(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

// A command's words below the program: "history show"; "" for the program itself.
std::string path_of(const CLI::App* command) {
  std::vector<std::string> names;
  for (; command && command->get_parent(); command = command->get_parent()) names.insert(names.begin(), command->get_name());
  return spaced(names);
}

const ValueWords* completion_of(const std::string& path, const std::string& option) {
  for (const auto& entry : value_words())
    if (option == entry.option && (std::string(entry.command).empty() || path == entry.command)) return &entry;
  return nullptr;
}

std::vector<const CLI::App*> subcommands_of(const CLI::App& app) {
  std::vector<const CLI::App*> commands;
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) commands.push_back(command);
  return commands;
}

// The options a command takes on its command line: its own, and its parents' where it lets
// them through (--color), by every name ("--size", "-h").
std::vector<std::pair<std::string, const CLI::Option*>> options_of(const CLI::App& command) {
  std::vector<std::pair<std::string, const CLI::Option*>> options;
  for (const CLI::App* app = &command; app; app = app->get_parent()) {
    for (const CLI::Option* option : app->get_options()) {
      for (const auto& name : option->get_lnames()) options.emplace_back("--" + name, option);
      for (const auto& name : option->get_snames()) options.emplace_back("-" + name, option);
    }
    if (!app->get_fallthrough()) break;
  }
  return options;
}

std::vector<std::string> long_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const auto& entry : options_of(command)) names.push_back(entry.first);
  return names;
}

// A flag (--quiet, --help) expects no value; CLI11 leaves its type size at 1, so the expected
// count is the test.
bool takes_value(const CLI::Option& option) { return option.get_expected_max() != 0; }

bool takes_option(const CLI::App& command, const std::string& option) {
  const auto names = long_names(command);
  return std::find(names.begin(), names.end(), option) != names.end();
}

const CLI::App* find_subcommand(const CLI::App& command, const std::string& name) {
  for (const CLI::App* sub : subcommands_of(command))
    if (sub->get_name() == name) return sub;
  return nullptr;
}

// The command the arguments reach, up to the first argument that is no option or command of
// it where one was expected.
struct Walk {
  const CLI::App* command;
  std::string unknown;  // the mistyped word, if any
  bool unknown_is_option = false;
};

Walk walk(const CLI::App& app, const std::vector<std::string>& args) {
  Walk walk{&app, "", false};
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") break;
    if (arg.size() > 1 && arg[0] == '-' && !(std::isdigit(static_cast<unsigned char>(arg[1])) || arg[1] == '.')) {
      const std::string name = arg.substr(0, arg.find('='));
      const auto options = options_of(*walk.command);
      const auto known = std::find_if(options.begin(), options.end(), [&](const auto& entry) { return entry.first == name; });
      if (known == options.end()) {
        walk.unknown = name;
        walk.unknown_is_option = true;
        break;
      }
      if (takes_value(*known->second) && name.size() == arg.size()) ++i;  // its value, which is no command
      continue;
    }
    if (const CLI::App* sub = find_subcommand(*walk.command, arg)) {
      walk.command = sub;
      continue;
    }
    // A word where a command must come: the first one that is not a command is mistyped.
    if (walk.command->get_require_subcommand_min() > 0) {
      walk.unknown = arg;
      break;
    }
  }
  return walk;
}

std::string shown_path(const CLI::App* command) {
  const std::string path = path_of(command);
  return "gpubench" + (path.empty() ? "" : " " + path);
}

// ---- the bash script ----

void append_bash_cases(std::ostringstream& out, const CLI::App& command) {
  const std::string path = path_of(&command);
  std::vector<std::string> words, value_options, positional_words;
  for (const CLI::App* sub : subcommands_of(command)) words.push_back(sub->get_name());
  bool file_positionals = false;
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_positional() && option->get_lnames().empty() && option->get_snames().empty()) {
      if (const ValueWords* completion = completion_of(path, option->get_name())) {
        if (completion->words) {
          const auto offered = completion->words();
          positional_words.insert(positional_words.end(), offered.begin(), offered.end());
        } else {
          file_positionals = true;
        }
      }
    }
  }
  for (const auto& [name, option] : options_of(command)) {
    if (name.rfind("--", 0) != 0) continue;
    words.push_back(name);
    if (takes_value(*option)) value_options.push_back(name);
  }
  out << "    \"" << path << "\") words=\"" << spaced(words) << "\"; values=\" " << spaced(value_options)
      << " \"; arguments=\"" << spaced(positional_words) << "\"; files=" << (file_positionals ? 1 : 0) << " ;;\n";
}

void append_value_cases(std::ostringstream& out, const CLI::App& command) {
  const std::string path = path_of(&command);
  for (const auto& entry : options_of(command)) {
    const ValueWords* completion = completion_of(path, entry.first);
    if (!completion || entry.first.rfind("--", 0) != 0) continue;
    out << "    \"" << path << "|" << entry.first << "\") ";
    if (completion->words)
      out << "_gpubench_words \"" << spaced(completion->words()) << "\"; return ;;\n";
    else
      out << "COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
  }
  for (const CLI::App* sub : subcommands_of(command)) append_value_cases(out, *sub);
}

void for_each_command(const CLI::App& app, const std::function<void(const CLI::App&)>& visit) {
  visit(app);
  for (const CLI::App* sub : subcommands_of(app)) for_each_command(*sub, visit);
}

std::string bash_function(const CLI::App& app) {
  std::vector<std::string> command_words;
  for_each_command(app, [&](const CLI::App& command) {
    if (command.get_parent()) command_words.push_back(path_of(command.get_parent()) + "/" + command.get_name());
  });
  std::ostringstream out;
  out << "# Offers the words of a comma-separated list after its last comma.\n"
         "_gpubench_words() {\n"
         "  local head=\"\"\n"
         "  [[ $cur == *,* ]] && head=\"${cur%,*},\"\n"
         "  COMPREPLY=($(compgen -P \"$head\" -W \"$1\" -- \"${cur##*,}\"))\n"
         "}\n"
         "\n"
         "_gpubench() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} command=\"\" word i\n"
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "    word=${COMP_WORDS[i]}\n"
         "    case \"$command/$word\" in\n"
         "      ";
  for (std::size_t i = 0; i < command_words.size(); ++i) out << (i ? "|" : "") << "\"" << command_words[i] << "\"";
  out << ") command=\"${command:+$command }$word\" ;;\n"
         "    esac\n"
         "  done\n"
         "  case \"$command|$prev\" in\n";
  append_value_cases(out, app);
  out << "  esac\n"
         "  local words=\"\" values=\"\" arguments=\"\" files=0\n"
         "  case \"$command\" in\n";
  for_each_command(app, [&](const CLI::App& command) { append_bash_cases(out, command); });
  out << "  esac\n"
         "  # The value of an option that takes one: nothing to offer but what the user types.\n"
         "  [[ $values == *\" $prev \"* ]] && return\n"
         "  if [[ $cur != -* && -n $arguments ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$arguments\" -- \"$cur\"))\n"
         "    return\n"
         "  fi\n"
         "  if [[ $cur != -* && $files == 1 ]]; then\n"
         "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "    return\n"
         "  fi\n"
         "  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
         "}\n";
  return out.str();
}

}  // namespace

std::string wrap_paragraphs(const std::string& text, std::size_t width) {
  std::ostringstream out;
  std::istringstream lines(text);
  std::string paragraph;
  const auto flush = [&] {
    for (const auto& line : fill(paragraph, width)) out << line << '\n';
    paragraph.clear();
  };
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == ' ') {
      flush();
      out << line << '\n';
    } else {
      paragraph += (paragraph.empty() ? "" : " ") + line;
    }
  }
  flush();
  return out.str();
}

void use_wrapped_help(CLI::App& app) { app.formatter(std::make_shared<WrappedHelp>()); }

void describe_commands(CLI::App& app) {
  app.footer(main_footer());
  const std::map<std::string, std::function<std::string()>> footers = {
      {"run", run_footer},         {"compare", compare_footer}, {"ab", ab_footer},
      {"report", report_footer}, {"history", history_footer}};
  for (const auto& [name, footer] : footers) app.get_subcommand(name)->footer(footer());
}

namespace {

// Other benchmark tools' words for an option (Google Benchmark, hyperfine, nvbench habits): an
// unknown option that is one of them names the option that does the same here, where the
// command has it (before the nearest spelling: '-o' is not '-h').
std::string other_tools_word(const std::string& given, const CLI::App& command) {
  static const std::map<std::string, std::string> kSynonyms = {
      {"--iterations", "--min-samples"}, {"--iters", "--min-samples"},   {"--reps", "--min-samples"},
      {"--runs", "--min-samples"},       {"--samples", "--min-samples"}, {"--repeat", "--repetitions"},
      {"--repeats", "--repetitions"},    {"--output", "--out"},          {"-o", "--out"},
      {"--gpu", "--device"},             {"--gpus", "--device"},         {"--type", "--dtype"},
      {"--types", "--dtype"},            {"--precision", "--dtype"},     {"--ops", "--op"},
      {"--operation", "--op"},           {"--database", "--db"},         {"--warm-up", "--warmup"},
      {"--shapes", "--shape"},           {"--backends", "--backend"},    {"--dtypes", "--dtype"},
      {"--sizes", "--size"},             {"--seconds", "--max-time"},    {"--timeout", "--max-time"},
      {"--json", "--format json"},       {"--csv", "--format csv"},      {"--markdown", "--format markdown"},
      {"--md", "--format markdown"},
  };
  const auto found = kSynonyms.find(given);
  if (found == kSynonyms.end()) return "";
  // "--format json" only where this command's --format has json.
  const std::size_t space = found->second.find(' ');
  const std::string option = found->second.substr(0, space);
  if (!takes_option(command, option)) return "";
  if (space == std::string::npos) return found->second;
  const ValueWords* values = completion_of(path_of(&command), option);
  if (!values || !values->words) return "";
  const auto words = values->words();
  return std::find(words.begin(), words.end(), found->second.substr(space + 1)) != words.end() ? found->second : "";
}

// The subcommands of `command` that take the option `given` (history's --db): it was written
// before the subcommand instead of after it.
std::vector<std::string> subcommands_taking(const std::string& given, const CLI::App& command) {
  std::vector<std::string> takers;
  for (const CLI::App* sub : subcommands_of(command))
    if (takes_option(*sub, given)) takers.push_back(sub->get_name());
  return takers;
}

}  // namespace

std::string mistyped_word_message(const CLI::App& app, const std::vector<std::string>& args) {
  const Walk found = walk(app, args);
  if (found.unknown.empty()) return "";
  if (found.unknown_is_option) {
    const std::string head = "unknown option '" + found.unknown + "' for " + shown_path(found.command);
    const std::vector<std::string> takers = subcommands_taking(found.unknown, *found.command);
    if (!takers.empty())
      return head + " (it is an option of its " + (takers.size() == 1 ? "command " : "commands ") +
             join_words(takers, " and ") + ": write it after the command, e.g. " + shown_path(found.command) + " " +
             takers.front() + " " + found.unknown + " ...)";
    std::string nearest = other_tools_word(found.unknown, *found.command);
    if (nearest.empty()) nearest = nearest_word(found.unknown, long_names(*found.command));
    return head + (nearest.empty() ? "" : " (did you mean '" + nearest + "'?)");
  }
  std::vector<std::string> commands;
  for (const CLI::App* sub : subcommands_of(*found.command)) commands.push_back(sub->get_name());
  const std::string nearest = nearest_word(found.unknown, commands);
  return "unknown command '" + found.unknown + "'" + (found.command == &app ? "" : " for " + shown_path(found.command)) +
         " (" + (nearest.empty() ? "" : "did you mean '" + nearest + "'? ") + "commands: " + join_words(commands, ", ") + ")";
}

std::string repeated_option_message(const std::string& refusal) {
  const std::string marker = ": At Most 1 required but received ";
  const std::size_t at = refusal.find(marker);
  if (at == std::string::npos || at == 0) return "";
  const std::string option = refusal.substr(0, at), times = refusal.substr(at + marker.size());
  if (times.empty() || times.find_first_not_of("0123456789") != std::string::npos) return "";
  return option + " is given " + times + " times; it takes one value: give it once";
}

std::string value_refusal_message(const std::string& refusal) {
  std::smatch match;
  // "0.000000" is "0", "2.500000" is "2.5".
  const auto number = [](std::string text) {
    if (text.find('.') != std::string::npos && text.find_first_of("eE") == std::string::npos) {
      text.erase(text.find_last_not_of('0') + 1);
      if (!text.empty() && text.back() == '.') text.pop_back();
    }
    return text;
  };
  static const std::regex range(R"(^(--?[\w-]+): Value (.*) not in range (\S+) to (\S+)$)");
  if (std::regex_match(refusal, match, range)) {
    const std::string option = match[1], value = match[2], low = number(match[3]), high = match[4];
    char* end = nullptr;
    std::strtod(value.c_str(), &end);
    const bool numeric = !value.empty() && end && *end == '\0';
    const bool unbounded = high.size() > 30;  // the largest double: "positive", no upper end
    if (!numeric)
      return option + ": expected a number" +
             (unbounded ? std::string(" of at least ") + low : " from " + low + " to " + number(high)) + ", got '" +
             value + "'";
    if (unbounded) return option + ": " + value + " is out of range (at least " + low + ")";
    return option + ": " + value + " is out of range (at least " + low + ", at most " + number(high) + ")";
  }
  static const std::regex conversion(R"(^Could not convert: (--?[\w-]+) = (.*)$)");
  if (std::regex_match(refusal, match, conversion))
    return std::string(match[1]) + ": expected a number, got '" + std::string(match[2]) + "'";
  static const std::regex missing(R"(^(--?[\w-]+): \d+ required (\S+) missing$)");
  if (std::regex_match(refusal, match, missing))
    return std::string(match[1]) + " needs a value (" + std::string(match[2]) + ")";
  return "";
}

std::string extra_arguments_message(const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App* command = walk(app, args).command;
  // CLI11 hands the words up to the top command, last first: take them in the command line's order.
  std::vector<std::string> left = command->remaining();
  if (left.empty()) left = app.remaining();
  std::vector<std::string> extras;
  for (std::size_t i = 1; i < args.size(); ++i)
    if (std::find(left.begin(), left.end(), args[i]) != left.end() &&
        std::find(extras.begin(), extras.end(), args[i]) == extras.end())
      extras.push_back(args[i]);
  if (extras.empty()) return "";
  std::vector<std::string> quoted;
  for (const auto& word : extras) quoted.push_back("'" + word + "'");
  const std::string& first = extras.front();
  const std::string path = path_of(command);
  std::string where;
  const auto ends_with = [&first](const std::string& tail) {
    return first.size() > tail.size() && first.compare(first.size() - tail.size(), tail.size(), tail) == 0;
  };
  const bool database = ends_with(".db") || ends_with(".sqlite") || first.rfind("sqlite:", 0) == 0 ||
                        first.rfind("postgresql://", 0) == 0 || first.rfind("postgres://", 0) == 0;
  // Several stray words, each a value of some option (`run matmul 4096`): all of them placed.
  std::vector<std::string> placed;
  if (path == "run" && extras.size() > 1)
    for (const auto& word : extras)
      if (const std::string owner = run_option_taking(word); !owner.empty()) placed.push_back(owner + " " + word);
  if (!placed.empty() && placed.size() == extras.size()) {
    std::string line;
    for (const auto& option : placed) line += (line.empty() ? "" : " ") + option;
    where = "every value follows its option: " + line;
  } else if (path == "run") {
    const std::string owner = run_option_taking(first);
    if (owner == "--op")
      where = "the op goes after --op: --op " + first;
    else if (!owner.empty())
      where = "'" + first + "' is a value of " + owner + ": " + owner + " " + first;
    else if (ends_with(".json"))
      where = "a suite file goes after --config, a report to compare against after --baseline";
    else if (database)
      where = "a database goes after --db: --db " + first;
    else
      where = "run takes no arguments of its own: every value follows its option";
  } else if (database && takes_option(*command, "--db")) {
    where = "a database goes after --db: --db " + first;
  } else if (path == "report") {
    where = "report re-renders one report: to compare two, gpubench compare BASELINE CURRENT; to join a run's ranks, "
            "gpubench merge REPORTS... --out MERGED.json";
  } else if (path == "compare") {
    where = "compare takes two reports, the baseline, then the current one";
  } else if (path == "completion") {
    where = "one shell: bash or zsh";
  } else {
    where = shown_path(command) + " takes no " + (command->get_options([](const CLI::Option* option) {
                                                     return option->get_positional();
                                                   }).empty()
                                                      ? "arguments"
                                                      : "more arguments") +
            " but its options' values";
  }
  return std::string("unexpected ") + (extras.size() == 1 ? "argument " : "arguments ") + join_words(quoted, " and ") +
         " for " + shown_path(command) + " (" + where + ")";
}

std::string missing_argument_message(const CLI::App& app, const std::vector<std::string>& args, const std::string& missing) {
  const CLI::App* command = walk(app, args).command;
  std::vector<const CLI::Option*> positionals;
  const CLI::Option* absent = nullptr;
  for (const CLI::Option* option : command->get_options([](const CLI::Option* o) { return o->get_positional(); })) {
    positionals.push_back(option);
    if (option->get_name() == missing) absent = option;
  }
  if (!absent) return "";
  std::string form = shown_path(command);
  for (const CLI::Option* option : positionals) {
    std::string name = option->get_name();
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    form += " " + name + (option->get_expected_max() > 1 ? "..." : "");
  }
  std::string what = absent->get_description();
  if (!what.empty()) what[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(what[0])));
  return "missing " + missing + " for " + shown_path(command) + ": " + what + " (" + form + ")";
}

std::string command_path(const CLI::App& app, const std::vector<std::string>& args) {
  return shown_path(walk(app, args).command);
}

std::string completion_script(const CLI::App& app, const std::string& shell) {
  if (shell == "bash")
    return "# bash completion for gpubench, generated by `gpubench completion bash`:\n"
           "#   source <(gpubench completion bash)   or save it in /etc/bash_completion.d/gpubench\n" +
           bash_function(app) + "complete -F _gpubench gpubench\n";
  if (shell == "zsh")
    return "#compdef gpubench\n"
           "# zsh completion for gpubench, generated by `gpubench completion zsh`: save it as _gpubench\n"
           "# in a directory of $fpath, or source it; it runs the bash completion through bashcompinit.\n"
           "# bashcompinit's `complete` needs compinit's compdef: loaded here where no .zshrc has.\n"
           "(( $+functions[compdef] )) || { autoload -U +X compinit && compinit -i; }\n"
           "autoload -U +X bashcompinit && bashcompinit\n" +
           bash_function(app) + "complete -F _gpubench gpubench\n";
  throw UsageError(unknown_word_message("shell", shell, {"bash", "zsh"}));
}

}  // namespace gpb
