// Wake-ups for processes waiting on an app, without inotify (whose close() blocks for an SRCU
// grace period, ~13 ms per wait here). The app dir holds a FIFO; a waiter opens its read end
// before reading the state it guards and polls it. After writing state or output, the supervisor
// connects a writer and drops it at once; the kernel then reports POLLHUP to every reader that
// was open before, so no change between a waiter's read and its poll is missed.
#ifndef SORTIE_LOCAL_APP_NOTIFY_HPP
#define SORTIE_LOCAL_APP_NOTIFY_HPP

#include <string>

namespace sortie::local {

// Path of the FIFO in an app dir.
std::string notify_fifo_path(const std::string& app_dir);
// Creates the FIFO; throws sortie::Error naming the path on failure.
void create_notify_fifo(const std::string& app_dir);
// Wakes every current waiter (cheap and harmless when there is none).
void notify_waiters(const std::string& app_dir);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_APP_NOTIFY_HPP
