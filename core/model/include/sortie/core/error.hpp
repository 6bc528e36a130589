// File: sortie/core/error.hpp
//
// The one exception type of the core. It carries a status code of plugin_abi.h so that errors
// from plugins and from the core read alike, and a message that names the file, field, plugin or
// option at fault and, where there is one, what to do about it.
#ifndef SORTIE_CORE_ERROR_HPP
#define SORTIE_CORE_ERROR_HPP

#include <sortie/plugin_abi.h>

#include <stdexcept>
#include <string>

namespace sortie::core {

class Error : public std::runtime_error {
 public:
  Error(sortie_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  explicit Error(const std::string& message) : Error(SORTIE_INVALID_ARGUMENT, message) {}
  sortie_status status() const noexcept { return status_; }

 private:
  sortie_status status_;
};

// The canonical name of a status code ("NOT_FOUND"), "UNKNOWN" for values outside the set.
const char* status_name(sortie_status status) noexcept;

}  // namespace sortie::core

#endif  // SORTIE_CORE_ERROR_HPP
