// File: core/ui/connection_pool.hpp
//
// The dashboard server's task queue (cpp-httplib serves each connection as one task, on one
// thread, until it closes). A fixed number of request workers serve connections; a worker whose
// request becomes an event or log stream leaves them, a new worker takes its place, and the
// stream's thread ends with its connection. So open streams never take a request worker: a
// stalled browser, or a hundred, never keeps the others from their answers. Streams are bounded
// in all (L-17) and per client address (L-16), so no client can grow the threads without end.
#ifndef SORTIE_UI_CONNECTION_POOL_HPP
#define SORTIE_UI_CONNECTION_POOL_HPP

#include <httplib.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sortie::ui {

struct StreamLimits {
  size_t total = 0;
  size_t per_client = 0;
};

enum class StreamAdmission { kAdmitted, kTooManyInAll, kTooManyFromClient };

// The client whose streams `address` (a connection's peer) counts against (L-16): the address
// itself, but every loopback address (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104) is "loopback", one
// client, since any local process can bind any of them (one could take 127.0.0.2 to .11 and
// with them every stream of L-17); an IPv6 address is its /64, the least one host is given.
std::string stream_client_of(const std::string& address);

class ConnectionPool final : public httplib::TaskQueue {
 public:
  ConnectionPool(size_t request_workers, StreamLimits limits);
  ~ConnectionPool() override;
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  void enqueue(std::function<void()> connection) override;
  // Waits for every thread: streams end when their connection does (the server stops them).
  void shutdown() override;

  // Called by a request worker whose request becomes a stream for `client` (its address): when
  // admitted, the worker becomes the stream's thread until its connection closes; else the limit
  // the stream would pass. `threads`: the stream's own and those it starts (a live stream's log
  // panes), all counted in the total (L-17); the client's count is of connections (L-16).
  StreamAdmission begin_stream(const std::string& client, size_t threads = 1);

 private:
  void serve();
  void start_worker();   // with mutex_ held
  void join_finished();  // with mutex_ held

  const StreamLimits limits_;
  std::mutex mutex_;
  std::condition_variable work_;
  std::deque<std::function<void()>> connections_;
  std::map<std::thread::id, std::thread> threads_;
  std::vector<std::thread::id> finished_;     // stream threads that ended, to join
  std::map<std::string, size_t> streams_of_;  // open streams per client address
  size_t streams_ = 0;                        // their threads
  bool shutting_down_ = false;
};

}  // namespace sortie::ui

#endif  // SORTIE_UI_CONNECTION_POOL_HPP
