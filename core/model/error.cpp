// File: core/model/error.cpp
#include <sortie/model/error.hpp>

namespace sortie::model {

const char* status_name(sortie_status status) noexcept {
  switch (status) {
    case SORTIE_OK:
      return "OK";
    case SORTIE_CANCELLED:
      return "CANCELLED";
    case SORTIE_UNKNOWN:
      return "UNKNOWN";
    case SORTIE_INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case SORTIE_DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case SORTIE_NOT_FOUND:
      return "NOT_FOUND";
    case SORTIE_ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case SORTIE_PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case SORTIE_RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case SORTIE_FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case SORTIE_UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case SORTIE_INTERNAL:
      return "INTERNAL";
    case SORTIE_UNAVAILABLE:
      return "UNAVAILABLE";
    case SORTIE_UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "UNKNOWN";
  }
}

}  // namespace sortie::model
