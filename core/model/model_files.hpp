// File: core/model/model_files.hpp (private)
//
// Whole-file reads for the files people write (specs, .sortieconfig), bounded in size, with
// errors naming the file and the system's reason.
#ifndef SORTIE_MODEL_MODEL_FILES_HPP
#define SORTIE_MODEL_MODEL_FILES_HPP

#include <optional>
#include <sortie/limits.hpp>
#include <string>

namespace sortie::model {

// The file's content; throws Error (NOT_FOUND or PERMISSION_DENIED) naming `what` and the path,
// or INVALID_ARGUMENT when the file is larger than `size_limit`.
std::string read_text_file(const std::string& path, const std::string& what,
                           const limits::Limit& size_limit);

// nullopt when the file does not exist; other failures throw as read_text_file does.
std::optional<std::string> read_text_file_if_exists(const std::string& path,
                                                    const std::string& what,
                                                    const limits::Limit& size_limit);

}  // namespace sortie::model

#endif  // SORTIE_MODEL_MODEL_FILES_HPP
