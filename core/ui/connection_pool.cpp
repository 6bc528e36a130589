#include "connection_pool.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <utility>

namespace sortie::ui {
namespace {

// The client address whose stream this thread serves; empty on a request worker.
thread_local std::string streaming_for;
thread_local size_t stream_threads = 0;  // of the stream this thread serves

}  // namespace

std::string stream_client_of(const std::string& address) {
  constexpr std::string_view kLoopback = "loopback";
  in_addr v4{};
  if (::inet_pton(AF_INET, address.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127 ? std::string(kLoopback) : address;
  }
  in6_addr v6{};
  if (::inet_pton(AF_INET6, address.c_str(), &v6) != 1) return address;
  if (IN6_IS_ADDR_LOOPBACK(&v6) || (IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127)) {
    return std::string(kLoopback);
  }
  if (IN6_IS_ADDR_V4MAPPED(&v6)) return address;
  std::fill(std::begin(v6.s6_addr) + 8, std::end(v6.s6_addr), 0);
  std::array<char, INET6_ADDRSTRLEN> text{};
  ::inet_ntop(AF_INET6, &v6, text.data(), text.size());
  return std::string(text.data()) + "/64";
}

ConnectionPool::ConnectionPool(size_t request_workers, StreamLimits limits) : limits_(limits) {
  const std::lock_guard lock(mutex_);
  for (size_t i = 0; i < request_workers; ++i) start_worker();
}

ConnectionPool::~ConnectionPool() { shutdown(); }

void ConnectionPool::enqueue(std::function<void()> connection) {
  {
    const std::lock_guard lock(mutex_);
    connections_.push_back(std::move(connection));
  }
  work_.notify_one();
}

void ConnectionPool::shutdown() {
  std::map<std::thread::id, std::thread> threads;
  {
    const std::lock_guard lock(mutex_);
    shutting_down_ = true;
    threads.swap(threads_);
  }
  work_.notify_all();
  for (auto& [id, thread] : threads) thread.join();
}

StreamAdmission ConnectionPool::begin_stream(const std::string& client, size_t threads) {
  const std::lock_guard lock(mutex_);
  // A kept-alive stream connection's next stream is on its thread already.
  if (!streaming_for.empty()) return StreamAdmission::kAdmitted;
  if (streams_ + threads > limits_.total) return StreamAdmission::kTooManyInAll;
  const auto open = streams_of_.find(client);
  if (open != streams_of_.end() && open->second >= limits_.per_client) {
    return StreamAdmission::kTooManyFromClient;
  }
  ++streams_of_[client];
  streams_ += threads;
  streaming_for = client;
  stream_threads = threads;
  join_finished();
  if (!shutting_down_) start_worker();  // in this one's place among the request workers
  return StreamAdmission::kAdmitted;
}

void ConnectionPool::serve() {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_.wait(lock, [this] { return shutting_down_ || !connections_.empty(); });
    if (connections_.empty()) return;  // shutting down, every connection served
    std::function<void()> connection = std::move(connections_.front());
    connections_.pop_front();
    lock.unlock();
    connection();
    lock.lock();
    if (!streaming_for.empty()) {
      // A stream's thread ends with its connection; a request worker took its place already.
      if (--streams_of_[streaming_for] == 0) streams_of_.erase(streaming_for);
      streams_ -= stream_threads;
      streaming_for.clear();
      finished_.push_back(std::this_thread::get_id());
      return;
    }
  }
}

void ConnectionPool::start_worker() {
  std::thread worker([this] { serve(); });
  const std::thread::id id = worker.get_id();
  threads_.emplace(id, std::move(worker));
}

void ConnectionPool::join_finished() {
  for (const std::thread::id& id : finished_) {
    const auto thread = threads_.find(id);
    if (thread == threads_.end()) continue;  // taken by shutdown, which joins it
    thread->second.join();
    threads_.erase(thread);
  }
  finished_.clear();
}

}  // namespace sortie::ui
