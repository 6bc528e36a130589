// Runs a shell command and collects what it prints, for access_token_command. The command gets
// no standard input and is killed when it outlives its time limit, so a stuck credential helper
// cannot hang a sortie command.
#ifndef SORTIE_VERTEX_COMMAND_OUTPUT_HPP
#define SORTIE_VERTEX_COMMAND_OUTPUT_HPP

#include <cstdint>
#include <string>

namespace sortie::vertex {

struct CommandOutput {
  int exit_status = -1;  // -1: killed or not started
  bool timed_out = false;
  std::string out;
  std::string err;
};

// Runs `/bin/sh -c command`. Throws UNAVAILABLE only when the shell cannot be started.
CommandOutput run_command(const std::string& command, int64_t timeout_ms);

}  // namespace sortie::vertex

#endif  // SORTIE_VERTEX_COMMAND_OUTPUT_HPP
