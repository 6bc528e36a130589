#include "output_file_budget.hpp"

#include <algorithm>

namespace sortie::local {
namespace {

constexpr size_t kFilesPerReplica = 6;  // stdout, stderr, combined and an index for each
constexpr size_t kPipesPerReplica = 2;
// epoll, signalfd, timerfd, the cgroup, state.json being rewritten, supervisor.log, the notify
// FIFO, what the C library may open, and the sanitizers' runtime in checked builds (UBSan opens a
// pipe for each check of a vtable pointer); generous, since running out kills log writing.
constexpr size_t kSupervisorReserve = 64;

// A start holds both ends of its replica's two pipes until the child has its write ends.
constexpr size_t kStartingWriteEnds = kPipesPerReplica;

// The number of replicas whose log files fit in an open-file limit of `fd_limit` beside the pipes
// of `replicas` replicas (and a start's write ends) and the reserve.
size_t max_open_for(size_t fd_limit, size_t replicas) {
  const size_t fixed = kSupervisorReserve + kPipesPerReplica * replicas + kStartingWriteEnds;
  return fd_limit > fixed ? (fd_limit - fixed) / kFilesPerReplica : 0;
}

}  // namespace

OutputFileBudget::OutputFileBudget(size_t replicas, size_t fd_limit)
    : fd_limit_(fd_limit),
      max_open_(std::max<size_t>(1, max_open_for(fd_limit, replicas))),
      position_(replicas),
      open_(replicas, false) {}

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

bool OutputFileBudget::pipes_fit(size_t pipe_ends) const {
  const size_t needed = kSupervisorReserve + kFilesPerReplica * max_open_ + pipe_ends +
                        kPipesPerReplica + kStartingWriteEnds;
  return needed <= fd_limit_;
}

}  // namespace sortie::local
