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

  // `replicas` is the number of indexes that may be used; at most `max_open` hold files at once
  // (at least one).
  OutputFileBudget(size_t replicas, size_t max_open);

  // Replica `index` is about to write. Returns the least recently written replica whose files
  // must be closed first to stay within the budget, or kNone.
  size_t use(size_t index);

  // The number of replicas that fit in an open-file limit of `fd_limit`, given the descriptors a
  // supervisor of `replicas` replicas needs besides log files.
  static size_t max_open_for(size_t fd_limit, size_t replicas);

 private:
  size_t max_open_;
  std::list<size_t> recent_first_;
  std::vector<std::list<size_t>::iterator> position_;
  std::vector<bool> open_;
};

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_OUTPUT_FILE_BUDGET_HPP
