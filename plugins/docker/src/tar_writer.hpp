// Writes a POSIX ustar archive in memory (the body of POST /build). Names longer than the ustar
// fields use GNU long-name records, which the Engine's archive reader understands.
#ifndef SORTIE_DOCKER_TAR_WRITER_HPP
#define SORTIE_DOCKER_TAR_WRITER_HPP

#include <cstdint>
#include <string>
#include <string_view>

namespace sortie::docker {

class TarWriter {
 public:
  void add_directory(std::string_view name, uint32_t mode, int64_t mtime);
  void add_file(std::string_view name, uint32_t mode, int64_t mtime, std::string_view content);
  void add_symlink(std::string_view name, std::string_view target, int64_t mtime);
  // The archive with its end-of-archive blocks. Call once, last.
  std::string finish();

 private:
  void header(std::string_view name, char type, uint32_t mode, uint64_t size, int64_t mtime,
              std::string_view link);
  void long_name(char type, std::string_view name);
  void pad();

  std::string data_;
};

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_TAR_WRITER_HPP
