// How to reach Vertex AI for one app: endpoint, where the access token comes from, retry and
// timeout settings. Written into the dryrun payload and the app record, so schedule() and any
// later process use the settings the app was submitted with. Holds no secret.
#ifndef SORTIE_VERTEX_CONNECTION_HPP
#define SORTIE_VERTEX_CONNECTION_HPP

#include <rapidjson/document.h>

#include <cstdint>
#include <string>

#include "run_options.hpp"

namespace sortie::vertex {

struct Connection {
  std::string endpoint;  // base URL, no trailing '/'
  std::string service_account_key_file;
  std::string access_token_command = "gcloud auth print-access-token";
  int64_t retries = 5;
  double retry_base_delay_s = 1.0;
  double request_timeout_s = 60.0;
};

Connection connection_from(const VertexOptions& options);
rapidjson::Value connection_to_json(const Connection& connection,
                                    rapidjson::Document::AllocatorType& alloc);
// Reads what connection_to_json wrote; absent members keep their defaults.
Connection connection_from_json(const rapidjson::Value& value, std::string_view what);

}  // namespace sortie::vertex

#endif  // SORTIE_VERTEX_CONNECTION_HPP
