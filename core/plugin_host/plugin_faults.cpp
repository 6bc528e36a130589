// File: core/plugin_host/plugin_faults.cpp
//
// The signal handler may only use async-signal-safe calls: it formats with plain loops into
// fixed buffers and writes with write(2); what it needs (the records directory) is ready before
// any plugin runs.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sortie/plugin_host/plugin_faults.hpp>
#include <sstream>
#include <string>
#include <string_view>

#include "plugin_calls.hpp"

namespace sortie::plugin_host {
namespace {

constexpr int kContainedSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
constexpr int kExitPluginFailed = 3;  // docs/exit-status.md

// Set once by contain_plugin_crashes, read by the handler.
char g_records_dir[4096] = {0};

// A bounded string builder on the stack, for the handler.
struct Text {
  char data[8192];
  size_t size = 0;
  Text& add(const char* text, size_t length) {
    for (size_t i = 0; i < length && size + 1 < sizeof data; ++i) data[size++] = text[i];
    data[size] = '\0';
    return *this;
  }
  Text& add(const char* text) { return add(text, std::strlen(text)); }
};

// The plugin's name within a call context: "... (plugin NAME, ..." or "plugin 'NAME' (...".
void add_plugin_name(Text& text, const std::string& context) {
  const char* begin = std::strstr(context.c_str(), "(plugin ");
  char end = ',';
  if (begin != nullptr) {
    begin += std::strlen("(plugin ");
  } else if (std::strncmp(context.c_str(), "plugin '", 8) == 0) {
    begin = context.c_str() + 8;
    end = '\'';
  } else {
    text.add("unknown");
    return;
  }
  size_t length = 0;
  while (begin[length] != '\0' && begin[length] != end) ++length;
  text.add(begin, length);
}

// A plugin name as a file name: anything but [A-Za-z0-9._-] becomes '_', and no leading dot.
void make_file_name(char* name) {
  for (char* c = name; *c != '\0'; ++c) {
    const bool safe = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                      (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' ||
                      (*c == '.' && c != name);
    if (!safe) *c = '_';
  }
}

std::string record_path(const std::string& plugin_name) {
  std::string name = plugin_name;
  make_file_name(name.data());
  return std::string(g_records_dir) + "/" + name;
}

// Names the plugin of `call` and what it did (`deed`, e.g. "crashed sortie with SIGSEGV", and
// `fault`, e.g. "SIGSEGV") on stderr, records "FAULT during CALL" and ends the host with 3.
[[noreturn]] void report_plugin_fault(const detail::PluginCall& call, const char* deed,
                                      const char* fault) {
  Text name;
  add_plugin_name(name, *call.context);
  make_file_name(name.data);
  Text record;
  record.add(g_records_dir).add("/").add(name.data);
  Text message;
  message.add("sortie: ")
      .add(call.context->c_str())
      .add(" ")
      .add(deed)
      .add(" during ")
      .add(call.call)
      .add("; the plugin is disabled in process until `sortie plugins doctor ")
      .add(name.data)
      .add("` passes (record: ")
      .add(record.data)
      .add(")\n");
  [[maybe_unused]] const ssize_t shown = ::write(STDERR_FILENO, message.data, message.size);
  ::mkdir(g_records_dir, 0700);
  const int fd = ::open(record.data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd >= 0) {
    Text what;
    what.add(fault).add(" during ").add(call.call);
    [[maybe_unused]] const ssize_t kept = ::write(fd, what.data, what.size);
    ::close(fd);
  }
  ::_exit(kExitPluginFailed);
}

void on_fatal_signal(int signal_number) {
  const detail::PluginCall& call = detail::current_plugin_call();
  if (call.context == nullptr) {
    // Not the plugin's doing: the default action, as if no handler were installed.
    ::signal(signal_number, SIG_DFL);
    ::raise(signal_number);
    return;
  }
  const char* signal_name = sigabbrev_np(signal_number);
  Text fault;
  fault.add("SIG").add(signal_name != nullptr ? signal_name : "?");
  Text deed;
  deed.add("crashed sortie with ").add(fault.data);
  report_plugin_fault(call, deed.data, fault.data);
}

// exit() runs this on the thread that called it: inside a plugin call, the plugin ended the host
// mid-call (e.g. `sortie run` would exit 0 with nothing submitted), so it counts as a crash.
void on_exit_during_call() {
  const detail::PluginCall& call = detail::current_plugin_call();
  if (call.context != nullptr) report_plugin_fault(call, "called exit()", "exit()");
}

}  // namespace

void contain_plugin_crashes(const std::string& records_dir) {
  std::snprintf(g_records_dir, sizeof g_records_dir, "%s", records_dir.c_str());
  struct sigaction action {};
  action.sa_handler = on_fatal_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  for (const int signal_number : kContainedSignals) ::sigaction(signal_number, &action, nullptr);
  std::atexit(on_exit_during_call);
  std::at_quick_exit(on_exit_during_call);
}

namespace {

// The record's text, "FAULT during CALL".
std::optional<std::string> read_record(const std::string& plugin_name) {
  if (g_records_dir[0] == '\0') return std::nullopt;
  std::ifstream file(record_path(plugin_name));
  if (!file) return std::nullopt;
  std::ostringstream what;
  what << file.rdbuf();
  return what.str();
}

}  // namespace

std::optional<std::string> recorded_plugin_crash(const std::string& plugin_name) {
  const std::optional<std::string> record = read_record(plugin_name);
  if (!record) return std::nullopt;
  return *record + ", recorded in " + record_path(plugin_name);
}

std::optional<std::string> recorded_plugin_crash_call(const std::string& plugin_name) {
  const std::optional<std::string> record = read_record(plugin_name);
  if (!record) return std::nullopt;
  constexpr std::string_view kDuring = " during ";
  const size_t at = record->rfind(kDuring);
  return at == std::string::npos ? std::string() : record->substr(at + kDuring.size());
}

void forget_plugin_crash(const std::string& plugin_name) {
  if (g_records_dir[0] != '\0') ::unlink(record_path(plugin_name).c_str());
}

}  // namespace sortie::plugin_host
