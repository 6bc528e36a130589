// File: core/plugin_host/helper/plugin_server.hpp
//
// The helper's side of plugin isolation: answers the host's requests
// (core/plugin_host/plugin_wire.hpp) by making the named ABI call on the one library it loaded,
// with the in-process loader's own checks, and holds the handles the plugin created.
#ifndef SORTIE_PLUGIN_HOST_HELPER_PLUGIN_SERVER_HPP
#define SORTIE_PLUGIN_HOST_HELPER_PLUGIN_SERVER_HPP

#include <sortie/plugin_abi.h>

#include <cstdint>
#include <map>
#include <sortie/plugin_host/plugin_host.hpp>
#include <string>

namespace sortie::plugin_host::detail {

class PluginServer {
 public:
  PluginServer();
  // One request in, its reply out (both JSON objects).
  std::string handle(const std::string& request);

 private:
  struct Instance {
    uint32_t kind;
    const void* vtable;
    void* self;
  };
  struct Stream {
    const sortie_scheduler_vtable* vtable;
    sortie_log_stream* stream;
  };
  const LoadedPlugin* plugin_ = nullptr;
  std::map<int64_t, Instance> instances_;
  std::map<int64_t, Stream> streams_;
  int64_t next_id_ = 1;
};

}  // namespace sortie::plugin_host::detail

#endif  // SORTIE_PLUGIN_HOST_HELPER_PLUGIN_SERVER_HPP
