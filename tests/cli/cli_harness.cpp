#include "cli_harness.hpp"

#include <fcntl.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace sortie::testing {

namespace {

constexpr const char* kSystemPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

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
  std::filesystem::create_directories(cwd());
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
                           "TORCHXCONFIG", "SORTIE_SESSION", "SORTIE_GPU_DEVICES"}) {
    env.erase(name);
  }
  env["PATH"] = invocation_.path_dir + ":" + kSystemPath;
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

  std::vector<std::string> argv_text{invocation_.program};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& text : argv_text) argv.push_back(text.data());
  argv.push_back(nullptr);

  // The parent opens the files, so they exist once spawn() returns; the child only makes system
  // calls. A close-on-exec pipe carries exec's errno back, or closes when exec succeeded.
  const std::string out_path = root_ + "/" + output + ".out";
  const std::string err_path = root_ + "/" + output + ".err";
  const std::string work_dir = cwd();
  const int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int exec_status[2];
  if (in < 0 || out < 0 || err < 0 || ::pipe2(exec_status, O_CLOEXEC) != 0) {
    throw std::runtime_error("cannot prepare the output files of sortie in " + root_);
  }
  const pid_t pid = fork();
  const int fork_error = errno;
  if (pid == 0) {
    // execvp searches the PATH of the environment in force, so the sandbox's replaces ours
    // (posix_spawnp would search the test's own PATH).
    environ = envp.data();
    if (::dup2(in, 0) >= 0 && ::dup2(out, 1) >= 0 && ::dup2(err, 2) >= 0 &&
        ::chdir(work_dir.c_str()) == 0) {
      ::execvp(argv[0], argv.data());
    }
    const int error = errno;
    [[maybe_unused]] const ssize_t ignored = ::write(exec_status[1], &error, sizeof error);
    ::_exit(127);
  }
  for (const int fd : {in, out, err, exec_status[1]}) ::close(fd);
  int error = 0;
  const bool exec_failed = pid > 0 && ::read(exec_status[0], &error, sizeof error) > 0;
  ::close(exec_status[0]);
  if (pid < 0 || exec_failed) {
    if (exec_failed) ::waitpid(pid, nullptr, 0);
    throw std::runtime_error("cannot start " + invocation_.program + " from " + work_dir + ": " +
                             std::strerror(pid < 0 ? fork_error : error));
  }
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
    const std::function<bool(const std::string&)>& ready,
    const std::map<std::string, std::string>& extra_env) const {
  const int pid = spawn(args, extra_env);
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

std::string experiment_id(const std::string& out) {
  std::smatch match;
  return std::regex_search(out, match, std::regex(R"(^experiment (\d+) )")) ? match[1].str() : "";
}

std::vector<std::pair<std::string, std::string>> launched_jobs(const std::string& out) {
  std::vector<std::pair<std::string, std::string>> jobs;
  const std::regex line(R"(  work unit \d+: (\S+) (\S+))");
  for (std::sregex_iterator it(out.begin(), out.end(), line), end; it != end; ++it) {
    jobs.emplace_back((*it)[1].str(), (*it)[2].str());
  }
  return jobs;
}

bool process_exists(long pid) { return kill(static_cast<pid_t>(pid), 0) == 0; }

}  // namespace sortie::testing
