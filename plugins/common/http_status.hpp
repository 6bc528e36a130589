// The sortie error Code a first-party plugin reports for an HTTP error status from a REST API
// (Docker Engine, Vertex AI): the google.rpc mapping, so 429 is RESOURCE_EXHAUSTED everywhere.
#ifndef SORTIE_PLUGINS_COMMON_HTTP_STATUS_HPP
#define SORTIE_PLUGINS_COMMON_HTTP_STATUS_HPP

#include <sortie/error.hpp>

namespace sortie::plugins_common {

Code code_for_http_status(long status);

}  // namespace sortie::plugins_common

#endif
