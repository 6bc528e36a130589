#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sortie/model/config_trust.hpp>
#include <sortie/model/error.hpp>
#include <sortie/sha256.hpp>
#include <sstream>

#include "model_files.hpp"

namespace sortie::model {
namespace {

constexpr const char* kWhat = "trusted-config records";

// "DIGEST PATH" lines; the path is the rest of the line, so it may hold spaces.
std::string records_without(const std::string& text, const std::string& path) {
  std::istringstream lines(text);
  std::string kept;
  for (std::string line; std::getline(lines, line);) {
    const size_t space = line.find(' ');
    if (space == std::string::npos || line.substr(space + 1) == path) continue;
    kept += line + "\n";
  }
  return kept;
}

[[noreturn]] void fail_writing(const std::string& path) {
  throw Error::permission_denied("cannot write the " + std::string(kWhat) + " " + path + " (" +
                                 std::strerror(errno) + ")");
}

// Replaces `path` with `content` through a private temporary file, so a reader never sees half.
void write_private_file(const std::string& path, const std::string& content) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    errno = error.value();
    fail_writing(path);
  }
  ::chmod(dir.c_str(), 0700);
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) fail_writing(path);
  const bool written =
      ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
  if (::close(fd) != 0 || !written || ::rename(temporary.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    ::unlink(temporary.c_str());
    errno = saved;
    fail_writing(path);
  }
}

std::string digest_of(const std::string& content) {
  Sha256 sha;
  sha.update(content);
  return sha.hex_digest();
}

}  // namespace

std::string trusted_configs_path() {
  if (const char* config_home = std::getenv("XDG_CONFIG_HOME");
      config_home != nullptr && *config_home == '/') {
    return std::string(config_home) + "/sortie/trusted-configs";
  }
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "") + "/.config/sortie/trusted-configs";
}

bool is_trusted_config(const std::string& path, const std::string& content) {
  const auto records =
      read_text_file_if_exists(trusted_configs_path(), kWhat, limits::kConfigFileBytes);
  if (!records) return false;
  const std::string wanted = digest_of(content) + " " + path;
  std::istringstream lines(*records);
  for (std::string line; std::getline(lines, line);) {
    if (line == wanted) return true;
  }
  return false;
}

std::string trust_config(const std::string& path) {
  const std::string digest =
      digest_of(read_text_file(path, "config file", limits::kConfigFileBytes));
  const std::string store = trusted_configs_path();
  const auto records = read_text_file_if_exists(store, kWhat, limits::kConfigFileBytes);
  write_private_file(store,
                     records_without(records.value_or(""), path) + digest + " " + path + "\n");
  return digest;
}

}  // namespace sortie::model
