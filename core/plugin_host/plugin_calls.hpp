// File: core/plugin_host/plugin_calls.hpp
//
// What every call into a plugin needs: sinks that collect output, the sized-struct rule (ABI-3),
// status checks and payload checks. Private to the plugin host.
#ifndef SORTIE_PLUGIN_HOST_PLUGIN_CALLS_HPP
#define SORTIE_PLUGIN_HOST_PLUGIN_CALLS_HPP

#include <sortie/plugin_abi.h>

#include <cstddef>
#include <cstdint>
#include <sortie/limits.hpp>
#include <sortie/model/error.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// True when `member` of the sized struct `*table` of C type `type` lies within its struct_size,
// so the host may read it (ABI-3).
#define SORTIE_HAS_MEMBER(table, type, member) \
  ((table)->struct_size >= offsetof(type, member) + sizeof(static_cast<type*>(nullptr)->member))

namespace sortie::plugin_host::detail {

// A sortie_sink whose writes are appended to a string, up to `limit` bytes: a plugin that writes
// more cannot exhaust the host's memory. Past the limit the text ends with a note saying so, and
// cut() is true. Without a limit it holds a message (limits::kPluginMessageBytes).
class StringSink {
 public:
  explicit StringSink(const limits::Limit& limit = limits::kPluginMessageBytes)
      : limit_(limit), max_bytes_(limits::value(limit)), sink_{this, &StringSink::append} {}
  StringSink(const StringSink&) = delete;
  StringSink& operator=(const StringSink&) = delete;
  const sortie_sink* get() const { return &sink_; }
  const std::string& text() const { return text_; }
  bool cut() const { return cut_; }
  const limits::Limit& limit() const { return limit_; }

 private:
  static void append(void* ctx, const char* data, size_t len);
  const limits::Limit& limit_;
  size_t max_bytes_;
  bool cut_ = false;
  std::string text_;
  sortie_sink sink_;
};

inline sortie_str as_str(std::string_view text) { return sortie_str{text.data(), text.size()}; }

bool is_known_status(sortie_status status);

// The call into plugin code this thread is running, if any: what a crash handler names
// (plugin_faults.hpp). `context` names the plugin ("scheduler 'x' (plugin y, ...)" or
// "plugin 'y' (...)").
struct PluginCall {
  const std::string* context = nullptr;
  const char* call = nullptr;
};
const PluginCall& current_plugin_call() noexcept;

// Marks this thread as running `call` of `context` while it lives.
class PluginCallMarker {
 public:
  PluginCallMarker(const std::string& context, const char* call) noexcept;
  ~PluginCallMarker();
  PluginCallMarker(const PluginCallMarker&) = delete;
  PluginCallMarker& operator=(const PluginCallMarker&) = delete;

 private:
  PluginCall previous_;
};

// Runs a call into plugin code. A C++ exception that escapes it breaks ABI-6; it becomes
// Error(INTERNAL) instead of unwinding further into the host.
template <class Call>
sortie_status invoke(const std::string& context, const char* call, Call&& body) {
  const PluginCallMarker marker(context, call);
  try {
    return body();
  } catch (const std::exception& e) {
    throw Error::internal(context + ": " + call +
                          " let a C++ exception cross the plugin boundary (ABI-6): " + e.what());
  } catch (...) {
    throw Error::internal(context + ": " + call +
                          " let an exception of unknown type cross the plugin "
                          "boundary (ABI-6)");
  }
}

// While it lives, diagnostics logged on this thread are printed to stderr at or above `level`
// (outside any scope: SORTIE_LOG_WARNING). Each call through a PluginHost opens one with the
// host's print level, so hosts in one process print as each was told to.
class DiagnosticPrintScope {
 public:
  explicit DiagnosticPrintScope(int32_t level);
  ~DiagnosticPrintScope();
  DiagnosticPrintScope(const DiagnosticPrintScope&) = delete;
  DiagnosticPrintScope& operator=(const DiagnosticPrintScope&) = delete;

 private:
  int32_t previous_;
};

// invoke() with the diagnostics the call logs printed at or above `print_level`.
template <class Call>
sortie_status invoke_printing(int32_t print_level, const std::string& context, const char* call,
                              Call&& body) {
  const DiagnosticPrintScope scope(print_level);
  return invoke(context, call, std::forward<Call>(body));
}

// Throws an Error with `status` and "<context>: <call> failed: <message>" unless status is
// SORTIE_OK. A status outside the documented set is reported as UNKNOWN with its numeric value.
void check_status(const std::string& context, const char* call, sortie_status status,
                  const std::string& message);

// Error(INTERNAL): the plugin's answer to `call` breaks its payload's rules (`what`).
[[noreturn]] void bad_payload(const std::string& context, const char* call,
                              const std::string& what);

// Throws Error(INTERNAL) unless the payload in `out` is whole (not cut at its limit) and a JSON
// object whose "schema" is `schema`.
void check_payload(const std::string& context, const char* call, const StringSink& out,
                   const char* schema);

// The "names" of a "sortie.resource_names/1" payload (checked as by check_payload).
std::vector<std::string> resource_names_of(const std::string& context, const StringSink& out);

}  // namespace sortie::plugin_host::detail

#endif  // SORTIE_PLUGIN_HOST_PLUGIN_CALLS_HPP
