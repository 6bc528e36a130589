// File helpers for the app directory: whole-file reads, atomic replacement, mkdir -p.
#ifndef SORTIE_LOCAL_FILE_UTIL_HPP
#define SORTIE_LOCAL_FILE_UTIL_HPP

#include <string>
#include <string_view>

namespace sortie::local {

// The whole file; throws NOT_FOUND when it does not exist, FAILED_PRECONDITION when it is not a
// regular file (a job can replace what its app directory holds), UNKNOWN on other errors.
std::string read_file(const std::string& path);
// Writes content to a temporary sibling and renames it over `path`, so readers only ever see a
// complete file.
void write_file_atomically(const std::string& path, std::string_view content);
// mkdir -p with mode 0700 (app state is private); throws naming the directory on failure.
void make_directories(const std::string& path);
std::string parent_directory(const std::string& path);
// Throws naming `what` and the errno text: NOT_FOUND for ENOENT, RESOURCE_EXHAUSTED for a full
// disk or quota, else UNKNOWN.
[[noreturn]] void throw_errno(const std::string& what);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_FILE_UTIL_HPP
