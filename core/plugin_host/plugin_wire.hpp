// File: core/plugin_host/plugin_wire.hpp
//
// The messages between the host and an isolation helper (docs/plugin-policy.md ISO-3): each is
// a JSON object preceded by its length as 4 bytes, little-endian. A request names an ABI call
// and carries its arguments; the reply carries the call's status, its sinks' text and the
// diagnostics the plugin logged meanwhile. Private to the plugin host and the helper.
#ifndef SORTIE_PLUGIN_HOST_PLUGIN_WIRE_HPP
#define SORTIE_PLUGIN_HOST_PLUGIN_WIRE_HPP

#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::plugin_host::detail {

// Larger messages are refused: no payload comes close, so one would be a corrupted stream.
inline constexpr size_t kMaxWireMessageBytes = size_t{256} << 20;

// The version of these messages (ISO-3). The host's `load` request and the helper's answer each
// carry it as "wire"; either side refuses the other's by name when it differs, so a helper left
// from another sortie build fails at once, saying so, rather than misreading a call.
inline constexpr int64_t kWireProtocolVersion = 1;

// The file descriptor on which the helper finds its end of the channel.
inline constexpr int kHelperChannelFd = 3;

// One JSON object, built member by member and written by RapidJSON's Writer. Strings are copied
// byte for byte (only '"', '\\' and control characters are escaped), so log lines that are not
// UTF-8 cross unchanged.
class WireObject {
 public:
  WireObject& string(std::string_view key, std::string_view value);
  WireObject& number(std::string_view key, int64_t value);
  WireObject& raw(std::string_view key, std::string_view json);  // `json` is already JSON
  std::string str() const;

 private:
  enum class Kind { kString, kNumber, kRaw };
  struct Member {
    std::string key;
    Kind kind;
    std::string text;  // the string, or the raw JSON
    int64_t number = 0;
  };
  std::vector<Member> members_;
};

// `items` (each already JSON) as a JSON array.
std::string wire_array(const std::vector<std::string>& items);

// `texts` as a JSON array of strings, copied byte for byte as WireObject::string does.
std::string wire_strings(const std::vector<std::string_view>& texts);

// `json` with its length prefix.
std::string wire_frame(std::string_view json);

// Removes the first complete message from the front of `buffer` and returns it; nullopt while
// the message is still incomplete. Throws std::length_error for a length above the limit.
std::optional<std::string> take_wire_message(std::string& buffer);

// Parses a reply taken by take_wire_message into `document`; false unless it is a JSON object,
// nested within limits::kJsonDepth, whose "status" is an integer.
bool parse_wire_reply(const std::string& message, rapidjson::Document& document);

}  // namespace sortie::plugin_host::detail

#endif  // SORTIE_PLUGIN_HOST_PLUGIN_WIRE_HPP
