#include "output_file_budget.hpp"

#include <algorithm>

namespace sortie::local {
namespace {

constexpr size_t kFilesPerReplica = 6;  // stdout, stderr, combined and an index for each
constexpr size_t kPipesPerReplica = 2;
// epoll, signalfd, timerfd, state.json being rewritten, supervisor.log, the notify FIFO and
// what the C library may open; generous, since running out kills log writing.
constexpr size_t kSupervisorReserve = 64;

}  // namespace

OutputFileBudget::OutputFileBudget(size_t replicas, size_t max_open)
    : max_open_(std::max<size_t>(1, max_open)), position_(replicas), open_(replicas, false) {}

size_t OutputFileBudget::use(size_t index) {
  if (open_[index]) {
    recent_first_.splice(recent_first_.begin(), recent_first_, position_[index]);
    return kNone;
  }
  size_t evicted = kNone;
  if (recent_first_.size() >= max_open_) {
    evicted = recent_first_.back();
    recent_first_.pop_back();
    open_[evicted] = false;
  }
  recent_first_.push_front(index);
  position_[index] = recent_first_.begin();
  open_[index] = true;
  return evicted;
}

size_t OutputFileBudget::max_open_for(size_t fd_limit, size_t replicas) {
  const size_t fixed = kSupervisorReserve + kPipesPerReplica * replicas;
  return fd_limit > fixed ? (fd_limit - fixed) / kFilesPerReplica : 0;
}

}  // namespace sortie::local
