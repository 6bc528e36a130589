// sortie-local-supervisor <app_dir>: runs the app described by <app_dir>/request.json.
//
// The process started by the scheduler forks the real supervisor and exits as soon as that one
// has recorded itself in state.json, so the scheduler learns "started" or "failed to start"
// without waiting for the app, and the supervisor is re-parented away from the submitting
// process (it never becomes that process's zombie).
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string>

#include "file_util.hpp"
#include "json_util.hpp"
#include "launch_request.hpp"
#include "supervisor.hpp"

int main(int argc, char** argv) {
  using namespace sortie::local;
  if (argc != 2) {
    std::fprintf(stderr, "usage: sortie-local-supervisor <app_dir>\n");
    return 2;
  }
  const std::string app_dir = argv[1];
  const std::string request_path = app_dir + "/request.json";
  LaunchRequest request;
  try {
    request = read_launch_request(parse_json(read_file(request_path), request_path), request_path);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "sortie-local-supervisor: %s\n", error.what());
    return 2;
  }

  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) {
    std::perror("sortie-local-supervisor: pipe");
    return 1;
  }
  const pid_t child = ::fork();
  if (child < 0) {
    std::perror("sortie-local-supervisor: fork");
    return 1;
  }
  if (child > 0) {
    ::close(ready[1]);
    char byte = 0;
    return ::read(ready[0], &byte, 1) == 1 ? 0 : 1;
  }
  ::close(ready[0]);
  try {
    // Orphans of the replicas are re-parented to us, so we can reap them.
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    Supervisor supervisor(std::move(request));
    supervisor.prepare();
    [[maybe_unused]] const ssize_t n = ::write(ready[1], "1", 1);
    ::close(ready[1]);
    return supervisor.run();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "sortie-local-supervisor: %s\n", error.what());
    return 1;
  }
}
