// libFuzzer harness: the host's decoder of what an isolation helper sends
// (core/plugin_host/plugin_wire.cpp): framing, then each reply as the proxy reads it.
#include <stdexcept>

#include "plugin_wire.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string received(reinterpret_cast<const char*>(data), size);
  try {
    while (const auto message = sortie::plugin_host::detail::take_wire_message(received)) {
      rapidjson::Document reply;
      sortie::plugin_host::detail::parse_wire_reply(*message, reply);
    }
  } catch (const std::length_error&) {
    // a length above the channel's limit: the proxy stops the helper
  }
  return 0;
}
