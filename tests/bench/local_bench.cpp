// sortie-local-bench STAGE_DIR: in-process benchmarks of the local scheduler through the real
// plugin host (the path `sortie run` takes), on the workloads of TorchX's published baseline:
//   raw      spawn and reap 100 /bin/true processes (the floor the next line is compared with)
//   apps     submit 100 apps of /bin/true, then wait until all are done
//   fan-out  submit one app of 64 replicas, until every replica has exec'd (all RUNNING)
//   rss      peak RSS of one supervisor after relaying 1,000,000 lines
// Each figure is the median of RUNS runs (default 5). Prints a Markdown table.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sortie/model/error.hpp>
#include <sortie/plugin_host/plugin_host.hpp>
#include <sortie/registry/registry.hpp>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

std::string json_field(const std::string& json, const std::string& key) {
  const std::string pattern = "\"" + key + "\":";
  const size_t at = json.find(pattern);
  if (at == std::string::npos) return "";
  size_t begin = at + pattern.size();
  if (json[begin] == '"') {
    ++begin;
    return json.substr(begin, json.find('"', begin) - begin);
  }
  return json.substr(begin, json.find_first_of(",}", begin) - begin);
}

class Bench {
 public:
  Bench(const std::string& stage_dir, const std::string& state_dir) : state_dir_(state_dir) {
    registry_ = sortie::registry::Registry::from_files(
        {stage_dir + "/share/sortie/plugins.d/sortie_local.json"});
    const auto* entry = registry_.find(sortie::registry::Group::kSchedulers, "local_cwd");
    if (entry == nullptr) throw std::runtime_error("no local_cwd in the staged manifest");
    scheduler_ =
        host_.scheduler(*entry, R"({"schema":"sortie.scheduler_config/1","scheduler":"local_cwd",)"
                                R"("session":"bench","state_dir":")" +
                                    state_dir + R"("})");
  }

  std::string submit(const std::string& id, const std::string& role_json) {
    const std::string input =
        R"({"schema":"sortie.dryrun_input/1","app":{"schema":"sortie.appdef/1","name":"bench",)"
        R"("roles":[)" +
        role_json + R"(]},"cfg":{},"app_id":")" + id + R"(","session":"bench"})";
    return scheduler_->schedule(scheduler_->dryrun(input));
  }

  // Waits through the scheduler's event-driven wait() until `done` holds for the status.
  std::string wait_until(const std::string& app,
                         const std::function<bool(const std::string&)>& done) {
    std::string state;
    for (;;) {
      const std::string status = scheduler_->wait(app, state, 60000);
      if (done(status)) return status;
      state = json_field(status, "state");
    }
  }

  sortie::plugin_host::SchedulerClient& scheduler() { return *scheduler_; }

 private:
  std::string state_dir_;
  sortie::registry::Registry registry_;
  sortie::plugin_host::PluginHost host_;
  std::unique_ptr<sortie::plugin_host::SchedulerClient> scheduler_;
};

bool terminal(const std::string& status) {
  const std::string state = json_field(status, "state");
  return state == "SUCCEEDED" || state == "FAILED" || state == "CANCELLED";
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

double raw_spawn(int count) {
  const auto start = Clock::now();
  std::vector<pid_t> pids;
  char arg0[] = "/bin/true";
  char* argv[] = {arg0, nullptr};
  for (int i = 0; i < count; ++i) {
    pid_t pid = 0;
    if (posix_spawn(&pid, "/bin/true", nullptr, nullptr, argv, environ) != 0) {
      throw std::runtime_error("posix_spawn failed");
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) ::waitpid(pid, nullptr, 0);
  return ms_since(start);
}

long vm_hwm_kb(long pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: sortie-local-bench STAGE_DIR [RUNS]\n");
    return 2;
  }
  const int runs = argc > 2 ? std::atoi(argv[2]) : 5;
  // TMPDIR chooses the file system the state dir lives on (its metadata speed shows).
  const char* tmpdir = std::getenv("TMPDIR");
  std::string pattern = std::string(tmpdir != nullptr ? tmpdir : "/tmp") + "/sortie-bench-XXXXXX";
  const std::string work = ::mkdtemp(pattern.data());
  try {
    Bench bench(argv[1], work + "/state");
    const std::string true_role = R"({"name":"t","entrypoint":"/bin/true","num_replicas":1})";
    std::vector<double> raw, submit, all_done, fan_out;
    for (int run = 0; run < runs; ++run) {
      raw.push_back(raw_spawn(100));

      const auto start = Clock::now();
      std::vector<std::string> apps;
      for (int i = 0; i < 100; ++i) {
        apps.push_back(
            bench.submit("t" + std::to_string(run) + "-" + std::to_string(i), true_role));
      }
      submit.push_back(ms_since(start));
      for (const std::string& app : apps) {
        const std::string status = bench.wait_until(app, terminal);
        if (json_field(status, "state") != "SUCCEEDED") throw std::runtime_error(status);
      }
      all_done.push_back(ms_since(start));

      const auto fan_start = Clock::now();
      const std::string fan =
          bench.submit("f" + std::to_string(run),
                       R"({"name":"w","entrypoint":"sleep","args":["30"],"num_replicas":64})");
      bench.wait_until(fan, [](const std::string& status) {
        return count_of(status, "\"state\":\"RUNNING\"") == 65 || terminal(status);
      });
      fan_out.push_back(ms_since(fan_start));
      bench.scheduler().cancel(fan);
      bench.wait_until(fan, terminal);
    }

    // One supervisor relaying a million lines; its VmHWM is read once they are all on disk.
    const std::string logger = bench.submit(
        "rss", R"({"name":"s","entrypoint":"sh","args":["-c","seq 1 1000000; sleep 30"]})");
    const std::string stdout_log = work + "/state/logs/bench/rss/s/0/stdout.log";
    std::string state_json;
    for (int i = 0; i < 3000; ++i) {
      std::error_code ec;
      if (std::filesystem::file_size(stdout_log, ec) == 6888896) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    {
      // In the runtime directory (<app_dir>/run) while it runs, when $XDG_RUNTIME_DIR is usable.
      const std::string app_dir = work + "/state/logs/bench/rss";
      std::ifstream in(std::filesystem::exists(app_dir + "/run") ? app_dir + "/run/state.json"
                                                                 : app_dir + "/state.json");
      state_json.assign(std::istreambuf_iterator<char>(in), {});
    }
    const long supervisor_pid =
        std::stol(json_field(state_json.substr(state_json.find("\"supervisor\"")), "pid"));
    const long supervisor_kb = vm_hwm_kb(supervisor_pid);
    bench.scheduler().cancel(logger);
    bench.wait_until(logger, terminal);

    std::printf("| workload (median of %d runs) | sortie | reference |\n|---|---|---|\n", runs);
    std::printf("| spawn and reap 100 `/bin/true` (raw posix_spawn) | %.1f ms | floor |\n",
                median(raw));
    std::printf("| submit 100 apps of `/bin/true` | %.1f ms (%.2f ms/app) | TorchX 159 ms |\n",
                median(submit), median(submit) / 100);
    std::printf(
        "| 100 apps of `/bin/true`, submit -> all done | %.1f ms = %.1fx raw | target <= 3x raw; "
        "TorchX 2150 ms |\n",
        median(all_done), median(all_done) / median(raw));
    std::printf(
        "| 64 replicas, submit -> all running | %.1f ms | target <= 20 ms; TorchX 115 ms |\n",
        median(fan_out));
    std::printf(
        "| supervisor peak RSS after relaying 1,000,000 lines | %ld KB | target <= 4 MB |\n",
        supervisor_kb);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "sortie-local-bench: %s\n", error.what());
    std::filesystem::remove_all(work);
    return 1;
  }
  std::filesystem::remove_all(work);
  return 0;
}
