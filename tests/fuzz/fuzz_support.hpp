// File: tests/fuzz/fuzz_support.hpp
//
// What every libFuzzer harness of tests/fuzz/ shares: the input as a file for readers that take
// a path, and the rule that a parser answers bad input with sortie::Error and nothing else (any
// other exception escapes, and libFuzzer reports it as a crash).
#ifndef SORTIE_TESTS_FUZZ_SUPPORT_HPP
#define SORTIE_TESTS_FUZZ_SUPPORT_HPP

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <sortie/error.hpp>
#include <stdexcept>
#include <string>

namespace sortie::fuzz {

// The input in an anonymous in-memory file, named by a path the readers open as any other.
class InputFile {
 public:
  InputFile(const uint8_t* data, size_t size) : fd_(::memfd_create("fuzz-input", 0)) {
    if (fd_ < 0 || ::write(fd_, data, size) != static_cast<ssize_t>(size)) {
      throw std::runtime_error("cannot write the fuzz input to a memfd");
    }
  }
  ~InputFile() { ::close(fd_); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

// Runs `parse`; a sortie::Error is a refusal, the expected answer to most inputs.
template <class Parse>
void parse_refusing_with_errors_only(Parse&& parse) {
  try {
    parse();
  } catch (const sortie::Error&) {
  }
}

}  // namespace sortie::fuzz

#endif  // SORTIE_TESTS_FUZZ_SUPPORT_HPP
