// Writes the app's state.json for the supervisor so that its own I/O errors never kill it
// (finding F5): a descriptor is kept in reserve for the write, so a supervisor at its open-file
// limit still records the state; each file is written with room to spare, so when the disk is
// full and no new file can be made, the state is rewritten in place instead.
#ifndef SORTIE_LOCAL_STATE_WRITER_HPP
#define SORTIE_LOCAL_STATE_WRITER_HPP

#include <string>
#include <string_view>

namespace sortie::local {

class StateWriter {
 public:
  explicit StateWriter(std::string dir);  // the app's runtime directory (runtime_dir.hpp)
  ~StateWriter();
  StateWriter(const StateWriter&) = delete;
  StateWriter& operator=(const StateWriter&) = delete;

  // Records `state_json`; false (with error() set) when neither an atomic replacement nor an
  // in-place rewrite worked. Never throws.
  bool write(std::string_view state_json);
  // Writes into `dir` from now on (its runtime directory vanished: runtime_dir.hpp).
  void move_to(const std::string& dir) { path_ = dir + "/state.json"; }
  // Why the last write failed.
  const std::string& error() const { return error_; }

 private:
  bool rewrite_in_place(const std::string& content);

  std::string path_;
  int spare_fd_ = -1;
  std::string error_;
};

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_STATE_WRITER_HPP
