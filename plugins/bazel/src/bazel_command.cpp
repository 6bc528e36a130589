#include "bazel_command.hpp"

#include <unistd.h>

#include <cstdlib>
#include <deque>
#include <filesystem>
#include <sortie/plugin.hpp>
#include <sstream>

#include "subprocess.hpp"

namespace sortie::bazel {
namespace {

// Enough stderr to explain a failure (Bazel prints its errors last) without keeping a long
// build's whole output.
constexpr size_t kKeptStderrLines = 200;

bool is_executable_file(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

// The absolute path of `program`: as given when it has a '/', else the first match on PATH.
std::string resolve_program(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    return is_executable_file(program) ? std::filesystem::absolute(program).string() : "";
  }
  const char* path = std::getenv("PATH");
  std::stringstream directories(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string directory; std::getline(directories, directory, ':');) {
    const std::filesystem::path candidate =
        std::filesystem::path(directory.empty() ? "." : directory) / program;
    if (is_executable_file(candidate)) return std::filesystem::absolute(candidate).string();
  }
  return "";
}

}  // namespace

BazelCommand BazelCommand::from_environment() {
  const char* setting = std::getenv("SORTIE_BAZEL");
  std::istringstream words(setting != nullptr && *setting != '\0' ? setting : "bazel");
  std::string program;
  words >> program;
  std::vector<std::string> startup_options;
  for (std::string word; words >> word;) startup_options.push_back(word);
  if (program.empty()) program = "bazel";

  const std::string resolved = resolve_program(program);
  if (resolved.empty()) {
    const std::string source = setting != nullptr && *setting != '\0'
                                   ? "SORTIE_BAZEL=" + std::string(setting)
                                   : "searched on PATH; SORTIE_BAZEL is unset";
    throw Error::failed_precondition(
        "the bazel packagers need the `bazel` command, and '" + program +
        "' is not an executable (" + source +
        "). Install Bazel: on Debian 12 run `bash packaging/engines/bazel_up.sh` "
        "from the sortie source tree (Bazel 4 from bazel-bootstrap, usable offline), "
        "or point SORTIE_BAZEL at a bazel binary");
  }
  return BazelCommand(resolved, std::move(startup_options));
}

BazelCommand::Outcome BazelCommand::run(const std::string& command,
                                        const std::vector<std::string>& args,
                                        const std::string& directory, Progress progress) const {
  std::vector<std::string> words = startup_options_;
  words.push_back(command);
  words.insert(words.end(), args.begin(), args.end());
  const int32_t level = progress == Progress::kLog ? SORTIE_LOG_INFO : SORTIE_LOG_DEBUG;
  Host::log(level, describe(command, args) + " (in " + directory + ")");

  std::deque<std::string> kept;
  const ProcessOutput output = run_process(program_, words, directory, [&](std::string_view line) {
    Host::log(level, "bazel: " + std::string(line));
    kept.emplace_back(line);
    if (kept.size() > kKeptStderrLines) kept.pop_front();
  });
  return {output.exit_code == 0, output.out, std::vector<std::string>(kept.begin(), kept.end())};
}

std::string BazelCommand::describe(const std::string& command,
                                   const std::vector<std::string>& args) const {
  std::string text = program_;
  for (const std::string& option : startup_options_) text += " " + option;
  text += " " + command;
  for (const std::string& arg : args) text += " " + arg;
  return text;
}

std::string last_lines(const std::vector<std::string>& lines, size_t count) {
  const size_t first = lines.size() > count ? lines.size() - count : 0;
  std::string text;
  for (size_t i = first; i < lines.size(); ++i) {
    if (!text.empty()) text += '\n';
    text += lines[i];
  }
  return text;
}

}  // namespace sortie::bazel
