// The Vertex AI REST calls the scheduler makes (projects.locations.customJobs create, get, list,
// cancel), with a bearer token, bounded retries and errors that carry the API's own message.
//
// Retries: 429 and 5xx answers and unreachable endpoints are retried up to Connection::retries
// times, waiting retry_base_delay * 2^attempt (or the Retry-After header), at most 60 s each.
// create is retried only on 429, 503 and connection failures, which the API documents as "not
// processed": a retried 500 could create the job twice. One 401 fetches a fresh token and retries.
#ifndef SORTIE_VERTEX_VERTEX_API_HPP
#define SORTIE_VERTEX_VERTEX_API_HPP

#include <rapidjson/document.h>

#include <memory>
#include <sortie/http_client.hpp>
#include <string>

#include "access_token.hpp"
#include "connection.hpp"

namespace sortie::vertex {

class VertexApi {
 public:
  explicit VertexApi(Connection connection);

  // POST v1/{parent}/customJobs; returns the created CustomJob.
  rapidjson::Document create_custom_job(const std::string& parent, const std::string& job_json);
  // GET v1/{name}.
  rapidjson::Document get_custom_job(const std::string& name);
  // GET v1/{parent}/customJobs?filter=..&pageToken=..; returns one page.
  rapidjson::Document list_custom_jobs(const std::string& parent, const std::string& filter,
                                       const std::string& page_token);
  // POST v1/{name}:cancel with body {}.
  void cancel_custom_job(const std::string& name);

  // The bearer token the calls send; registries of Google take it too (push_image_tag).
  std::string access_token() { return tokens_.token(); }

  const Connection& connection() const { return connection_; }

 private:
  rapidjson::Document call(const std::string& method, const std::string& path,
                           const std::string& body, bool is_create, const std::string& what);

  Connection connection_;
  AccessTokenSource tokens_;
  http::Client client_;
};

}  // namespace sortie::vertex

#endif  // SORTIE_VERTEX_VERTEX_API_HPP
