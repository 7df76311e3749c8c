// Writing reports so that readers (a CI step, `gpubench compare`) see either the old files
// or the complete new ones, never a partial write, and so that two runs writing the same
// set of files leave one run's set, not a mix.
#pragma once

#include <string>
#include <vector>

namespace gpb {

// Writes content to path atomically: a temporary file beside it, then rename. A symbolic
// link is followed (its target is replaced, the link kept); an existing directory, device
// or fifo is refused. Throws UsageError naming the path when it cannot be written.
void write_file_atomic(const std::string& path, const std::string& content);

// Writes a set of files (one run's --out files) each as write_file_atomic does. Every
// temporary file is complete before the first rename, so a file that cannot be written
// replaces none; the renames happen under an advisory lock on the files' directories, so
// two runs writing the same set leave one run's set, never a mix.
struct OutputFile {
  std::string path;
  std::string content;
};
void write_files_atomic(const std::vector<OutputFile>& files);

// Throws the UsageError that writing to path would throw for what is there now: an existing
// directory, device or fifo (also behind symbolic links), or a directory to write in (the
// link's target's, for a link) that is missing or takes no new file. For checking outputs
// before a run, without creating them.
void check_report_destination(const std::string& path);

// A file a command reads or writes, named as the user named it: what it is ("--out", "the
// suite of --config") and the path given.
struct NamedFile {
  std::string what;
  std::string path;
};

// No command writes over one of its inputs: throws a UsageError naming both when an output
// is the same file as an input -- the same path once links and relative spellings
// ("./x.json", "dir/../x.json") are resolved, or the same file under two names (a hard
// link). Every command calls it with everything it reads and writes, before it measures or
// writes anything.
void refuse_outputs_over_inputs(const std::vector<NamedFile>& outputs, const std::vector<NamedFile>& inputs);

}  // namespace gpb
