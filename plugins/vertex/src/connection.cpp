#include "connection.hpp"

#include "json_fields.hpp"

namespace sortie::vertex {

Connection connection_from(const VertexOptions& options) {
  Connection connection;
  connection.endpoint = endpoint_url(options);
  connection.service_account_key_file = options.service_account_key_file;
  connection.access_token_command = options.access_token_command;
  connection.retries = options.retries;
  connection.retry_base_delay_s = options.retry_base_delay_s;
  connection.request_timeout_s = options.request_timeout_s;
  return connection;
}

rapidjson::Value connection_to_json(const Connection& connection,
                                    rapidjson::Document::AllocatorType& alloc) {
  rapidjson::Value value(rapidjson::kObjectType);
  plugins_common::add_string(value, "endpoint", connection.endpoint, alloc);
  plugins_common::add_string(value, "service_account_key_file", connection.service_account_key_file,
                             alloc);
  plugins_common::add_string(value, "access_token_command", connection.access_token_command, alloc);
  plugins_common::add_member(value, "retries", rapidjson::Value(connection.retries), alloc);
  plugins_common::add_member(value, "retry_base_delay",
                             rapidjson::Value(connection.retry_base_delay_s), alloc);
  plugins_common::add_member(value, "request_timeout",
                             rapidjson::Value(connection.request_timeout_s), alloc);
  return value;
}

Connection connection_from_json(const rapidjson::Value& value, std::string_view what) {
  Connection connection;
  connection.endpoint = plugins_common::string_member(value, "endpoint", what);
  connection.service_account_key_file =
      plugins_common::string_member(value, "service_account_key_file", what);
  connection.access_token_command = plugins_common::string_member(
      value, "access_token_command", what, connection.access_token_command);
  connection.retries = plugins_common::int_member(value, "retries", what, connection.retries);
  connection.retry_base_delay_s =
      plugins_common::number_member(value, "retry_base_delay", what, connection.retry_base_delay_s);
  connection.request_timeout_s =
      plugins_common::number_member(value, "request_timeout", what, connection.request_timeout_s);
  return connection;
}

}  // namespace sortie::vertex
