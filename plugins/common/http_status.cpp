#include "http_status.hpp"

namespace sortie::plugins_common {

Code code_for_http_status(long status) {
  switch (status) {
    case 400:
      return Code::kInvalidArgument;
    case 401:
      return Code::kUnauthenticated;
    case 403:
      return Code::kPermissionDenied;
    case 404:
      return Code::kNotFound;
    case 409:
      return Code::kAlreadyExists;
    case 412:
      return Code::kFailedPrecondition;
    case 429:
      return Code::kResourceExhausted;
    case 501:
      return Code::kUnimplemented;
    default:
      return status >= 500 ? Code::kUnavailable : Code::kUnknown;
  }
}

}  // namespace sortie::plugins_common
