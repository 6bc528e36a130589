// File: sortie/error.hpp
//
// The one exception type of sortie, shared by plugins (sortie/plugin.hpp) and the host. It
// carries a status code of plugin_abi.h and a message that names the file, field, plugin or
// option at fault. Errors are made by name, as with Abseil's status.h, so every throw site says
// which code it means:
//
//   throw sortie::Error::not_found("no app '" + id + "'");
//
// Standard C++17 only (rule ABI-9 of sdk/README.md).
#ifndef SORTIE_ERROR_HPP
#define SORTIE_ERROR_HPP

#include <sortie/plugin_abi.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace sortie {

// The status codes of plugin_abi.h as a scoped enum.
enum class Code : sortie_status {
  kOk = SORTIE_OK,
  kCancelled = SORTIE_CANCELLED,
  kUnknown = SORTIE_UNKNOWN,
  kInvalidArgument = SORTIE_INVALID_ARGUMENT,
  kDeadlineExceeded = SORTIE_DEADLINE_EXCEEDED,
  kNotFound = SORTIE_NOT_FOUND,
  kAlreadyExists = SORTIE_ALREADY_EXISTS,
  kPermissionDenied = SORTIE_PERMISSION_DENIED,
  kResourceExhausted = SORTIE_RESOURCE_EXHAUSTED,
  kFailedPrecondition = SORTIE_FAILED_PRECONDITION,
  kUnimplemented = SORTIE_UNIMPLEMENTED,
  kInternal = SORTIE_INTERNAL,
  kUnavailable = SORTIE_UNAVAILABLE,
  kUnauthenticated = SORTIE_UNAUTHENTICATED,
};

// A failure with a status code. A std::runtime_error, so callers that know nothing of sortie
// still get its message from what().
class Error : public std::runtime_error {
 public:
  Error(Code code, const std::string& message) : std::runtime_error(message), code_(code) {}
  // For a code that arrives as a number, e.g. across the ABI.
  Error(sortie_status status, const std::string& message)
      : Error(static_cast<Code>(status), message) {}

  // One named constructor per code of plugin_abi.h; the comments there say when each applies.
  static Error cancelled(const std::string& message) { return {Code::kCancelled, message}; }
  static Error unknown(const std::string& message) { return {Code::kUnknown, message}; }
  static Error invalid_argument(const std::string& message) {
    return {Code::kInvalidArgument, message};
  }
  static Error deadline_exceeded(const std::string& message) {
    return {Code::kDeadlineExceeded, message};
  }
  static Error not_found(const std::string& message) { return {Code::kNotFound, message}; }
  static Error already_exists(const std::string& message) {
    return {Code::kAlreadyExists, message};
  }
  static Error permission_denied(const std::string& message) {
    return {Code::kPermissionDenied, message};
  }
  static Error resource_exhausted(const std::string& message) {
    return {Code::kResourceExhausted, message};
  }
  static Error failed_precondition(const std::string& message) {
    return {Code::kFailedPrecondition, message};
  }
  static Error unimplemented(const std::string& message) {
    return {Code::kUnimplemented, message};
  }
  static Error internal(const std::string& message) { return {Code::kInternal, message}; }
  static Error unavailable(const std::string& message) { return {Code::kUnavailable, message}; }
  static Error unauthenticated(const std::string& message) {
    return {Code::kUnauthenticated, message};
  }

  Code code() const noexcept { return code_; }
  sortie_status status() const noexcept { return static_cast<sortie_status>(code_); }

 private:
  Code code_;
};

}  // namespace sortie

#endif  // SORTIE_ERROR_HPP
