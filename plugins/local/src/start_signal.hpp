// The go signal of a supervisor's starter. schedule() spawns the starter as soon as the app
// directory exists and writes the app's other files while the starter execs and initialises
// (its C library's start-up alone is about 0.4 ms here), then tells it to go. The starter waits
// for that one byte on kStartSignalFd before it reads anything of the app, and exits quietly at
// end-of-file: schedule() failed after spawning it, or the submitting process died.
#ifndef SORTIE_LOCAL_START_SIGNAL_HPP
#define SORTIE_LOCAL_START_SIGNAL_HPP

namespace sortie::local {

// The descriptor on which the starter receives the signal.
inline constexpr int kStartSignalFd = 4;

// In the starter: true once told to go, false at end-of-file.
bool await_start_signal();

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

 private:
  int fd_;
};

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_START_SIGNAL_HPP
