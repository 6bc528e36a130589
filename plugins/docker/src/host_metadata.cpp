#include "host_metadata.hpp"

#include <rapidjson/document.h>

#include <sortie/plugin.hpp>
#include <string>

namespace sortie::docker {
namespace {

constexpr const char* kHostPortsKey = "sortie.host_ports";
constexpr const char* kJobNameKey = "sortie.job_name";

[[noreturn]] void refuse(const Role& role, const std::string& key, const std::string& message) {
  throw Error::invalid_argument("role '" + role.name + "': metadata '" + key + "': " + message);
}

bool in_port_map(const Role& role, int64_t port) {
  for (const auto& [name, number] : role.port_map) {
    if (number == port) return true;
  }
  return false;
}

}  // namespace

std::map<int64_t, int64_t> read_host_ports(const Role& role) {
  std::map<int64_t, int64_t> ports;
  const std::string* text = find_value(role.metadata, kHostPortsKey);
  if (text == nullptr) return ports;
  rapidjson::Document value;
  value.Parse(text->c_str(), text->size());
  if (value.HasParseError() || !value.IsObject()) {
    refuse(role, kHostPortsKey, "expected an object of container ports to host ports");
  }
  for (const auto& entry : value.GetObject()) {
    const std::string container(entry.name.GetString(), entry.name.GetStringLength());
    int64_t container_port = 0;
    try {
      size_t used = 0;
      container_port = std::stoll(container, &used);
      if (used != container.size()) container_port = 0;
    } catch (const std::exception&) {
      container_port = 0;
    }
    if (container_port < 1 || container_port > 65535) {
      refuse(role, kHostPortsKey, "'" + container + "' is not a container port from 1 to 65535");
    }
    if (!in_port_map(role, container_port)) {
      refuse(role, kHostPortsKey, "container port " + container + " is not in the role's port_map");
    }
    if (!entry.value.IsInt64() || entry.value.GetInt64() < 0 || entry.value.GetInt64() > 65535) {
      refuse(role, kHostPortsKey,
             "the host port of " + container + " must be a number from 0 to 65535");
    }
    const int64_t host_port = entry.value.GetInt64();
    if (host_port != 0 && role.num_replicas > 1) {
      refuse(role, kHostPortsKey,
             "host port " + std::to_string(host_port) + " is fixed, and the role's " +
                 std::to_string(role.num_replicas) +
                 " replicas cannot all bind it; give host port 0 (Docker picks one per "
                 "replica) or one replica");
    }
    ports[container_port] = host_port;
  }
  return ports;
}

std::string job_name_alias(const Role& role) {
  const std::string* text = find_value(role.metadata, kJobNameKey);
  if (text == nullptr) return "";
  rapidjson::Document value;
  value.Parse(text->c_str(), text->size());
  if (value.HasParseError() || !value.IsString() || value.GetStringLength() == 0) {
    refuse(role, kJobNameKey, "expected the job's name as a string");
  }
  return std::string(value.GetString(), value.GetStringLength());
}

}  // namespace sortie::docker
