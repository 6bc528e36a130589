#include "cli_harness.hpp"

#include <fcntl.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace sortie::testing {

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

CliSandbox::CliSandbox() {
  char pattern[] = "/tmp/sortie-cli-test-XXXXXX";
  if (mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  root_ = pattern;
  std::filesystem::create_directories(root_ + "/cwd");
}

CliSandbox::~CliSandbox() {
  std::error_code ignored;
  std::filesystem::remove_all(root_, ignored);
}

std::string CliSandbox::write_file(const std::string& relative, const std::string& content) const {
  const std::string path = root_ + "/" + relative;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

int CliSandbox::spawn(const std::vector<std::string>& args,
                      const std::map<std::string, std::string>& extra_env,
                      const std::string& output) const {
  std::map<std::string, std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const size_t eq = text.find('=');
    if (eq != std::string::npos) env[text.substr(0, eq)] = text.substr(eq + 1);
  }
  for (const char* name : {"SORTIE_PLUGIN_PATH", "SORTIE_PLUGIN_DIRS", "SORTIE_CONFIG",
                           "SORTIE_SESSION", "SORTIE_GPU_DEVICES"}) {
    env.erase(name);
  }
  env["SORTIE_STATE_DIR"] = root_ + "/state";
  env["HOME"] = root_ + "/home";
  env["XDG_CONFIG_HOME"] = root_ + "/xdg-config";
  env["XDG_DATA_HOME"] = root_ + "/xdg-data";
  env["XDG_CONFIG_DIRS"] = root_ + "/no-such-config-dir";
  env["XDG_DATA_DIRS"] = root_ + "/no-such-data-dir";
  for (const auto& [key, value] : extra_env) env[key] = value;
  std::vector<std::string> env_text;
  for (const auto& [key, value] : env) env_text.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (auto& text : env_text) envp.push_back(text.data());
  envp.push_back(nullptr);

  const std::string binary = std::string(SORTIE_STAGE_DIR) + "/bin/sortie";
  std::vector<std::string> argv_text{binary};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& text : argv_text) argv.push_back(text.data());
  argv.push_back(nullptr);

  const std::string out_path = root_ + "/" + output + ".out";
  const std::string err_path = root_ + "/" + output + ".err";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addchdir_np(&actions, (root_ + "/cwd").c_str());
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + binary);
  return pid;
}

CommandResult CliSandbox::finish(int pid, const std::string& output) const {
  int status = 0;
  waitpid(pid, &status, 0);
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_file(root_ + "/" + output + ".out");
  result.err = read_file(root_ + "/" + output + ".err");
  return result;
}

std::vector<CommandResult> CliSandbox::sortie_concurrently(
    const std::vector<std::vector<std::string>>& commands) const {
  std::vector<int> pids;
  for (size_t i = 0; i < commands.size(); ++i) {
    pids.push_back(spawn(commands[i], {}, "concurrent-" + std::to_string(i)));
  }
  std::vector<CommandResult> results;
  for (size_t i = 0; i < pids.size(); ++i) {
    results.push_back(finish(pids[i], "concurrent-" + std::to_string(i)));
  }
  return results;
}

CommandResult CliSandbox::sortie(const std::vector<std::string>& args,
                                 const std::map<std::string, std::string>& extra_env) const {
  return finish(spawn(args, extra_env));
}

CommandResult CliSandbox::sortie_interrupted(
    const std::vector<std::string>& args, int signal,
    const std::function<bool(const std::string&)>& ready) const {
  const int pid = spawn(args, {});
  // The probe runs other sortie commands, whose output must not clobber the watched one's.
  const std::string watched = root_ + "/interrupted.out";
  std::filesystem::rename(root_ + "/last.out", watched);
  std::filesystem::rename(root_ + "/last.err", root_ + "/interrupted.err");
  for (int i = 0; i < 500 && !ready(read_file(watched)); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, signal);
  int status = 0;
  waitpid(pid, &status, 0);
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_file(watched);
  result.err = read_file(root_ + "/interrupted.err");
  return result;
}

std::string CliSandbox::wait_terminal(const std::string& handle, int attempts) const {
  std::string json;
  for (int i = 0; i < attempts; ++i) {
    json = sortie({"status", handle, "--json"}).out;
    const std::string state = json_string_member(json, "state");
    if (state == "SUCCEEDED" || state == "FAILED" || state == "CANCELLED") return json;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return json;
}

std::string json_string_member(const std::string& json, const std::string& name) {
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  if (doc.HasParseError() || !doc.IsObject()) return "";
  auto it = doc.FindMember(name.c_str());
  return it != doc.MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

bool process_exists(long pid) { return kill(static_cast<pid_t>(pid), 0) == 0; }

}  // namespace sortie::testing
