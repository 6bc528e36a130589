#include "bazel_build.hpp"

#include <array>
#include <filesystem>
#include <sortie/plugin.hpp>
#include <string_view>
#include <utility>

namespace sortie::bazel {
namespace {

// Output meant for a log, not a terminal: no colour codes, no cursor movement.
constexpr std::array<const char*, 2> kPlainOutput = {"--color=no", "--curses=no"};

// How many of Bazel's last stderr lines a failure carries.
constexpr size_t kErrorLines = 30;

// One line per target: label, executable path, then its default output paths, tab-separated
// (Bazel forbids tabs and newlines in labels and file names). Bazel 4's cquery has no json
// module, hence plain text.
constexpr const char* kOutputsExpression =
    "--starlark:expr=\"\\t\".join([str(target.label), "
    "target.files_to_run.executable.path if target.files_to_run.executable else \"\"] + "
    "[f.path for f in target.files.to_list()])";

// Every field, empty ones included ("a\t\t" is three fields).
std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t end = text.find(separator, start);
    parts.emplace_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// The directory, `directory` or above, that holds a file marking a Bazel workspace; "" if none.
std::string enclosing_workspace(const std::string& directory) {
  std::error_code ec;
  for (std::filesystem::path dir = std::filesystem::absolute(directory, ec); !dir.empty();
       dir = dir.parent_path()) {
    for (const char* marker : {"WORKSPACE", "WORKSPACE.bazel", "MODULE.bazel"}) {
      if (std::filesystem::is_regular_file(dir / marker, ec)) return dir.string();
    }
    if (dir == dir.root_path()) break;
  }
  return "";
}

std::string absolute_output(const Workspace& workspace, const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  return workspace.execution_root + "/" + path;
}

// Runs one `bazel cquery` for `labels`; returns each target it printed, as cquery names it.
std::vector<std::pair<std::string, TargetOutputs>> run_cquery(
    const BazelCommand& bazel, const Workspace& workspace, const std::vector<std::string>& labels,
    const std::vector<std::string>& bazel_args) {
  std::string query = "set(";
  for (const std::string& label : labels) query += " \"" + label + "\"";
  query += " )";
  std::vector<std::string> args(kPlainOutput.begin(), kPlainOutput.end());
  // The build's own arguments, so cquery sees the configuration (and outputs) that was built.
  args.insert(args.end(), bazel_args.begin(), bazel_args.end());
  args.insert(args.end(), {"--output=starlark", kOutputsExpression, "--", query});
  const BazelCommand::Outcome cquery =
      bazel.run("cquery", args, workspace.root, BazelCommand::Progress::kQuiet);
  if (!cquery.succeeded) {
    throw Error::failed_precondition("`bazel cquery` could not list the outputs of " + query +
                                     " in workspace " + workspace.root +
                                     "; the last lines bazel printed:\n" +
                                     last_lines(cquery.err_lines, kErrorLines));
  }
  std::vector<std::pair<std::string, TargetOutputs>> targets;
  for (const std::string& line : split(cquery.out, '\n')) {
    const std::vector<std::string> fields = split(line, '\t');
    if (fields[0].empty()) continue;
    TargetOutputs target;
    if (fields.size() > 1) target.executable = absolute_output(workspace, fields[1]);
    for (size_t i = 2; i < fields.size(); ++i) {
      target.files.push_back(absolute_output(workspace, fields[i]));
    }
    targets.emplace_back(fields[0], std::move(target));
  }
  return targets;
}

}  // namespace

Workspace locate_workspace(const BazelCommand& bazel, const std::string& launch_dir) {
  const BazelCommand::Outcome info = bazel.run("info", {"workspace", "execution_root"}, launch_dir,
                                               BazelCommand::Progress::kQuiet);
  if (!info.succeeded) {
    const std::string root = enclosing_workspace(launch_dir);
    // Inside a workspace, Bazel's words (not a missing WORKSPACE) say what went wrong.
    throw Error::failed_precondition(
        "`bazel info` failed in launch_dir " + launch_dir +
        (root.empty() ? ", which is not inside a Bazel workspace (no WORKSPACE, "
                        "WORKSPACE.bazel or MODULE.bazel file there or above)"
                      : " (Bazel workspace " + root + ")") +
        "; bazel said:\n" + last_lines(info.err_lines, kErrorLines));
  }
  Workspace workspace;
  for (const std::string& line : split(info.out, '\n')) {
    if (line.starts_with("workspace: ")) workspace.root = line.substr(11);
    if (line.starts_with("execution_root: ")) workspace.execution_root = line.substr(16);
  }
  if (workspace.root.empty() || workspace.execution_root.empty()) {
    throw Error::internal("`bazel info workspace execution_root` in " + launch_dir +
                          " printed no workspace or execution_root:\n" + info.out);
  }
  return workspace;
}

void build_targets(const BazelCommand& bazel, const Workspace& workspace,
                   const std::vector<std::string>& labels,
                   const std::vector<std::string>& bazel_args, const std::string& what) {
  std::vector<std::string> args(kPlainOutput.begin(), kPlainOutput.end());
  args.insert(args.end(), bazel_args.begin(), bazel_args.end());
  args.push_back("--");  // every later word is a target, even one that looks like an option
  args.insert(args.end(), labels.begin(), labels.end());
  const BazelCommand::Outcome build =
      bazel.run("build", args, workspace.root, BazelCommand::Progress::kLog);
  if (!build.succeeded) {
    throw Error::failed_precondition("`bazel build` failed for " + what + " in workspace " +
                                     workspace.root + "; the last lines bazel printed:\n" +
                                     last_lines(build.err_lines, kErrorLines));
  }
}

std::map<std::string, TargetOutputs> query_outputs(const BazelCommand& bazel,
                                                   const Workspace& workspace,
                                                   const std::vector<std::string>& labels,
                                                   const std::vector<std::string>& bazel_args) {
  std::map<std::string, TargetOutputs> outputs;
  for (auto& [label, target] : run_cquery(bazel, workspace, labels, bazel_args)) {
    outputs.emplace(label, std::move(target));  // keeps the first configuration of a label
  }
  // cquery prints an alias as the target it stands for: ask for those one at a time.
  for (const std::string& label : labels) {
    if (outputs.contains(label)) continue;
    auto alone = run_cquery(bazel, workspace, {label}, bazel_args);
    if (alone.empty()) {
      throw Error::internal("`bazel cquery` reported no target for " + label + " in workspace " +
                            workspace.root);
    }
    outputs.emplace(label, std::move(alone.front().second));
  }
  return outputs;
}

}  // namespace sortie::bazel
