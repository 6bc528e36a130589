// The go signal of a supervisor's starter, and its answer. schedule() spawns the starter as soon
// as the app directory exists and writes the app's other files while the starter execs and
// initialises (its C library's start-up alone is about 0.4 ms here), then tells it to go. The
// starter waits for that one byte on kStartSignalFd before it reads anything of the app, and
// exits quietly at end-of-file: schedule() failed after spawning it, or the submitting process
// died. Once told to go, the starter answers on the same socket whether the supervisor recorded
// itself, or why not: schedule() returns only with a supervisor on record, and a start that
// failed where nothing can be written (a full disk) still reaches the caller with its reason.
#ifndef SORTIE_LOCAL_START_SIGNAL_HPP
#define SORTIE_LOCAL_START_SIGNAL_HPP

#include <exception>
#include <optional>
#include <sortie/error.hpp>
#include <string>
#include <string_view>

namespace sortie::local {

// The descriptor on which the starter receives the signal and answers.
inline constexpr int kStartSignalFd = 4;

// In the starter: true once told to go, false at end-of-file (the socket is then closed).
bool await_start_signal();

// In the starter, once: the supervisor recorded itself (`failure` empty) or could not start,
// `failure` being what encode_start_failure() made of why. Closes the socket.
void answer_start_signal(std::string_view failure);

// `error` as sortie's Error: itself, or UNKNOWN with its message.
Error as_sortie_error(const std::exception& error);

// A failure as text that keeps its code, for the starter's answer and the supervisor's report to
// the starter; decode_start_failure() gives it back.
std::string encode_start_failure(const Error& error);
Error decode_start_failure(std::string_view text);

// In schedule(): the sending end, closed (so the starter exits) unless go() was called first.
class StartSignal {
 public:
  explicit StartSignal(int fd) : fd_(fd) {}
  ~StartSignal();
  StartSignal(StartSignal&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  StartSignal(const StartSignal&) = delete;
  StartSignal& operator=(const StartSignal&) = delete;
  StartSignal& operator=(StartSignal&&) = delete;
  // Tells the starter to go; throws UNAVAILABLE when it has already exited.
  void go();
  // After go(): blocks for the starter's answer: "" once the supervisor recorded itself, an
  // encoded failure when it could not start, nothing when the starter ended without answering
  // (it was killed).
  std::optional<std::string> await_answer();

 private:
  int fd_;
};

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_START_SIGNAL_HPP
