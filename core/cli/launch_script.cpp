#include "launch_script.hpp"

#include <cstdlib>
#include <sortie/model/error.hpp>
#include <sortie/model/regular_file.hpp>

#include "python_exec.hpp"

namespace sortie::cli {
namespace {

// Read by sortie.xm: add() prints each scheduler's request and submits nothing.
constexpr const char* kDryRunVariable = "SORTIE_LAUNCH_DRYRUN";

bool is_script(const std::string& word) {
  return word.size() > 3 && word.compare(word.size() - 3, 3, ".py") == 0;
}

}  // namespace

bool names_launch_script(const Args& args) {
  for (const std::string& word : args) {
    if (!word.empty() && word[0] != '-') return is_script(word);
  }
  return false;
}

int run_launch_script(session::Session& ctx, const Args& args) {
  bool dry_run = false;
  size_t index = 0;
  for (; index < args.size() && !is_script(args[index]); ++index) {
    if (args[index] != "--dryrun") {
      throw Error::invalid_argument(
          "sortie launch FILE.py: unknown option '" + args[index] +
          "' before the script; only --dryrun is taken there, and the script's own arguments "
          "go after it: sortie launch [--dryrun] FILE.py [-- ARGS...]");
    }
    dry_run = true;
  }
  // python3 would wait for ever on a FIFO's open.
  model::require_regular_file("launch script", args[index]);
  std::vector<std::string> words = {args[index]};
  ++index;
  if (index < args.size() && args[index] == "--") ++index;
  words.insert(words.end(), args.begin() + static_cast<std::ptrdiff_t>(index), args.end());
  if (dry_run) ::setenv(kDryRunVariable, "1", 1);
  exec_python(ctx, words);
}

}  // namespace sortie::cli
