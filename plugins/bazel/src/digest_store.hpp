// The digest each Bazel binary had when it was last packaged, kept in the packager's state_dir,
// so a packaging can say whether Bazel produced the same file again (`cached`).
#ifndef SORTIE_BAZEL_DIGEST_STORE_HPP
#define SORTIE_BAZEL_DIGEST_STORE_HPP

#include <string>
#include <utility>
#include <vector>

namespace sortie::bazel {

class DigestStore {
 public:
  // `state_dir` "" keeps nothing: every lookup misses.
  explicit DigestStore(std::string state_dir) : state_dir_(std::move(state_dir)) {}

  // A binary is one label built in one workspace with one set of bazel_args.
  struct Key {
    std::string workspace;
    std::string label;
    std::vector<std::string> bazel_args;
  };
  // The digest recorded for `key`, "" when none.
  std::string previous(const Key& key) const;
  // Records `digest` for `key` (atomically: a concurrent reader sees the old or the new one).
  void record(const Key& key, const std::string& digest) const;

 private:
  std::string path_of(const Key& key) const;

  std::string state_dir_;
};

}  // namespace sortie::bazel

#endif  // SORTIE_BAZEL_DIGEST_STORE_HPP
