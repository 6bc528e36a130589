// File: tests/framework/temp_dir.hpp
//
// A fresh directory for one test (mkdtemp under gtest's TempDir(), or under `base`), removed
// with everything in it when the test ends: also directories a tool left read-only (Bazel's
// output trees), and what a process still running adds while it is removed (a local supervisor
// moving an ended app's state into its app directory).
#ifndef SORTIE_TESTS_FRAMEWORK_TEMP_DIR_HPP
#define SORTIE_TESTS_FRAMEWORK_TEMP_DIR_HPP

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace sortie::testing {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "sortie",
                   const std::string& base = ::testing::TempDir()) {
    std::string pattern =
        base + (base.empty() || base.back() == '/' ? "" : "/") + prefix + "-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp " + pattern);
    path_ = pattern;
  }
  ~TempDir() {
    namespace fs = std::filesystem;
    std::error_code ignored;
    for (int round = 0; round < 10 && fs::exists(path_, ignored); ++round) {
      for (auto it = fs::recursive_directory_iterator(path_, ignored);
           !ignored && it != fs::recursive_directory_iterator(); it.increment(ignored)) {
        if (it->is_directory(ignored) && !it->is_symlink(ignored)) {
          fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ignored);
        }
      }
      ignored.clear();
      fs::remove_all(path_, ignored);
    }
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace sortie::testing

#endif  // SORTIE_TESTS_FRAMEWORK_TEMP_DIR_HPP
