// Runs a two-replica command on the local_cwd scheduler through sortie's runner API, waits for
// it, and prints its status and log lines: what `sortie run`, `sortie status` and `sortie log`
// do, from C++.
#include <cstdio>
#include <sortie/error.hpp>
#include <sortie/runner.hpp>

namespace runner = sortie::runner;

int main() {
  try {
    runner::Runner sortie = runner::Runner::create();

    runner::AppSpec app;
    app.command = {"sh", "-c", "echo hello from replica $SORTIE_REPLICA_ID"};
    app.replicas = 2;
    const std::string handle = sortie.run(app, runner::RunOptions{"local_cwd", {}});
    std::printf("launched %s\n", handle.c_str());

    const runner::AppStatus status = sortie.wait(handle);
    std::printf("%s %s\n", handle.c_str(), runner::to_string(status.state).c_str());
    for (const auto& role : status.roles) {
      for (const auto& replica : role.replicas) {
        std::printf("  %s/%lld exit code %lld\n", role.role.c_str(),
                    static_cast<long long>(replica.id),
                    static_cast<long long>(replica.exit_code.value_or(-1)));
      }
    }

    runner::LogOptions only_stdout;
    only_stdout.streams = runner::Streams::kStdout;
    for (const runner::LogLine& line : sortie.log_lines(handle, only_stdout)) {
      std::printf("%s/%u: %s", line.role.c_str(), line.replica, line.text.c_str());
    }
    return status.state == runner::AppState::kSucceeded ? 0 : 1;
  } catch (const sortie::Error& e) {
    std::fprintf(stderr, "runner_example: %s\n", e.what());
    return 2;
  }
}
