// Caps how many replicas hold their log files open at once. Each replica's pipes must stay open,
// but its six log files (three data files and their indexes) can be closed between writes and
// reopened in append mode: so a wide app runs under an open-file limit that cannot be raised
// (a hard limit of 1024 is common), at the cost of reopening files when more replicas write
// than fit.
#ifndef SORTIE_LOCAL_OUTPUT_FILE_BUDGET_HPP
#define SORTIE_LOCAL_OUTPUT_FILE_BUDGET_HPP

#include <cstddef>
#include <list>
#include <vector>

namespace sortie::local {

class OutputFileBudget {
 public:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  // `replicas` is the number of indexes that may be used; as many hold files at once as fit in
  // the open-file limit `fd_limit` beside every replica's pipes and the reserve (at least one).
  OutputFileBudget(size_t replicas, size_t fd_limit);

  // Replica `index` is about to write. Returns the least recently written replica whose files
  // must be closed first to stay within the budget, or kNone.
  size_t use(size_t index);

  // Whether another replica's pipes fit beside `pipe_ends` open ones. The supervisor never uses
  // up its last descriptors: when they are gone, recording the app's state fails, and so does
  // the sanitizers' runtime, which probes memory through a pipe (a checked supervisor aborted).
  bool pipes_fit(size_t pipe_ends) const;

 private:
  size_t fd_limit_;
  size_t max_open_;
  std::list<size_t> recent_first_;
  std::vector<std::list<size_t>::iterator> position_;
  std::vector<bool> open_;
};

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_OUTPUT_FILE_BUDGET_HPP
