// File: sortie/plugin.hpp
//
// Header-only C++17 wrapper over sortie/plugin_abi.h for plugin authors. Derive from
// sortie::Scheduler (or ImageProvider, Packager, NamedResources), then list the classes once:
//
//   SORTIE_PLUGIN("acme", "0.1.0",
//                 SORTIE_SCHEDULER("acme_batch", "Runs apps on ACME Batch", AcmeScheduler));
//
// NAME and VERSION are the ones the plugin's manifest says (sortie_add_plugin writes the target's
// name): `sortie plugins doctor` fails a library that says others. The macro defines the one
// exported entry point. Every call from the host goes through a
// noexcept trampoline that turns a sortie::Error into its status code, std::bad_alloc into
// RESOURCE_EXHAUSTED and any other exception into INTERNAL, so no exception crosses the ABI.
// Payloads are JSON text (docs/payloads.md); parse them with the JSON library of your choice.
#ifndef SORTIE_PLUGIN_HPP
#define SORTIE_PLUGIN_HPP

#include <sortie/plugin_abi.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <sortie/error.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace sortie {

// What the host told the plugin at negotiation, available to every component.
class Host {
 public:
  static void log(int32_t level, std::string_view msg) noexcept {
    const sortie_host_api* api = instance().api_;
    if (api != nullptr && api->struct_size >= offsetof(sortie_host_api, log) + sizeof(api->log) &&
        api->log != nullptr) {
      api->log(api->ctx, level, msg.data(), msg.size());
    }
  }
  static void set_api(const sortie_host_api* api) noexcept { instance().api_ = api; }

 private:
  static Host& instance() noexcept {
    static Host host;
    return host;
  }
  const sortie_host_api* api_ = nullptr;
};

// One log line as produced by a LogStream.
struct LogLine {
  int32_t stream = SORTIE_STREAM_STDOUT;
  std::string_view role;
  uint32_t replica_id = 0;
  int64_t timestamp_ns = 0;
  std::string_view data;  // the whole line, with its '\n' if it had one
};

// Where a LogStream hands its lines.
class LogSink {
 public:
  explicit LogSink(const sortie_log_sink* sink) noexcept : sink_(sink) {}
  void emit(const LogLine& line) const {
    sortie_log_line raw{};
    raw.struct_size = sizeof(raw);
    raw.stream = line.stream;
    raw.role = sortie_str{line.role.data(), line.role.size()};
    raw.replica_id = line.replica_id;
    raw.timestamp_ns = line.timestamp_ns;
    raw.data = sortie_str{line.data.data(), line.data.size()};
    sink_->line(sink_->ctx, &raw);
  }

 private:
  const sortie_log_sink* sink_;
};

// A pull-based log reader (see sortie_scheduler_vtable.log_open).
class LogStream {
 public:
  virtual ~LogStream() = default;
  // Emits zero or more whole lines, waiting at most timeout_ms for the first one.
  // Returns false once the stream has ended.
  virtual bool next(int64_t timeout_ms, const LogSink& sink) = 0;
};

// Base of scheduler components. The constructor receives the "sortie.scheduler_config/1" JSON.
// Methods receive and return the JSON payloads of docs/payloads.md. list, wait and log_open are
// optional: a class that does not override one leaves its vtable slot NULL, so the host knows
// without a call (it polls describe() instead of waiting, and reports the rest as UNIMPLEMENTED).
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual std::string run_options() { return R"({"schema":"sortie.runopts/1","options":[]})"; }
  virtual std::string dryrun(std::string_view input) = 0;
  virtual std::string schedule(std::string_view request) = 0;
  virtual std::string describe(std::string_view app_id) = 0;
  virtual std::string list(std::string_view /*filter*/) {
    throw Error::unimplemented("this scheduler cannot list apps");
  }
  virtual void cancel(std::string_view app_id) = 0;
  virtual std::string wait(std::string_view /*app_id*/, std::string_view /*known_state*/,
                           int64_t /*timeout_ms*/) {
    throw Error::unimplemented("this scheduler cannot wait for state changes");
  }
  virtual std::unique_ptr<LogStream> log_open(std::string_view /*app_id*/,
                                              std::string_view /*request*/) {
    throw Error::unimplemented("this scheduler has no logs");
  }
  // Submits dryrun requests together (ABI-14); returns their app ids in input order.
  virtual std::vector<std::string> schedule_batch(
      const std::vector<std::string_view>& /*requests*/) {
    throw Error::unimplemented("this scheduler cannot submit a batch");
  }
  // Requests the cancellation of many apps in as few backend requests as it can (ABI-15).
  virtual void cancel_batch(const std::vector<std::string_view>& /*app_ids*/) {
    throw Error::unimplemented("this scheduler cannot cancel a batch");
  }
};

// Base of image-provider components; the constructor receives "sortie.image_provider_config/1".
class ImageProvider {
 public:
  virtual ~ImageProvider() = default;
  virtual std::string fetch(std::string_view role) = 0;  // returns "sortie.image/1"
};

// Base of packager components; the constructor receives "sortie.packager_config/1".
class Packager {
 public:
  virtual ~Packager() = default;
  virtual std::string package(std::string_view request) = 0;  // returns "sortie.package_result/1"
};

// Base of code-backed named-resource registries (default-constructed once per call).
class NamedResources {
 public:
  virtual ~NamedResources() = default;
  virtual std::string names() = 0;                        // returns "sortie.resource_names/1"
  virtual std::string lookup(std::string_view name) = 0;  // returns "sortie.resource/1"
};

namespace detail {

inline std::string_view view(sortie_str s) noexcept { return {s.ptr, s.len}; }

inline void put(const sortie_sink* sink, std::string_view text) noexcept {
  if (sink != nullptr && sink->write != nullptr) sink->write(sink->ctx, text.data(), text.size());
}

// Runs body(); maps whatever it throws onto a status code and a message in err.
template <class Body>
sortie_status guarded(const sortie_sink* err, Body&& body) noexcept {
  try {
    body();
    return SORTIE_OK;
  } catch (const Error& e) {
    put(err, e.what());
    return static_cast<sortie_status>(e.code());
  } catch (const std::bad_alloc&) {
    put(err, "out of memory");
    return SORTIE_RESOURCE_EXHAUSTED;
  } catch (const std::exception& e) {
    put(err, "unexpected exception: ");
    put(err, e.what());
    return SORTIE_INTERNAL;
  } catch (...) {
    put(err, "unexpected exception of unknown type");
    return SORTIE_INTERNAL;
  }
}

// True when T declares its own `member` instead of inheriting Scheduler's: &T::f then has type
// R (T::*)(...) rather than R (Scheduler::*)(...).
#define SORTIE_DETAIL_OVERRIDES(T, member) \
  (!std::is_same_v<decltype(&T::member), decltype(&Scheduler::member)>)

template <class T>
struct SchedulerTable {
  static sortie_status create(sortie_str config, sortie_scheduler** out,
                              const sortie_sink* err) noexcept {
    return guarded(err, [&] {
      *out = reinterpret_cast<sortie_scheduler*>(static_cast<Scheduler*>(new T(view(config))));
    });
  }
  static Scheduler* self(sortie_scheduler* s) noexcept { return reinterpret_cast<Scheduler*>(s); }
  static void destroy(sortie_scheduler* s) noexcept { delete self(s); }
  static sortie_status run_options(sortie_scheduler* s, const sortie_sink* out,
                                   const sortie_sink* err) noexcept {
    return guarded(err, [&] { put(out, self(s)->run_options()); });
  }
  static sortie_status dryrun(sortie_scheduler* s, sortie_str input, const sortie_sink* out,
                              const sortie_sink* err) noexcept {
    return guarded(err, [&] { put(out, self(s)->dryrun(view(input))); });
  }
  static sortie_status schedule(sortie_scheduler* s, sortie_str request, const sortie_sink* out,
                                const sortie_sink* err) noexcept {
    return guarded(err, [&] { put(out, self(s)->schedule(view(request))); });
  }
  static sortie_status describe(sortie_scheduler* s, sortie_str app_id, const sortie_sink* out,
                                const sortie_sink* err) noexcept {
    return guarded(err, [&] { put(out, self(s)->describe(view(app_id))); });
  }
  static sortie_status list(sortie_scheduler* s, sortie_str filter, const sortie_sink* out,
                            const sortie_sink* err) noexcept {
    return guarded(err, [&] { put(out, self(s)->list(view(filter))); });
  }
  static sortie_status cancel(sortie_scheduler* s, sortie_str app_id,
                              const sortie_sink* err) noexcept {
    return guarded(err, [&] { self(s)->cancel(view(app_id)); });
  }
  static sortie_status wait(sortie_scheduler* s, sortie_str app_id, sortie_str known_state,
                            int64_t timeout_ms, const sortie_sink* out,
                            const sortie_sink* err) noexcept {
    return guarded(err,
                   [&] { put(out, self(s)->wait(view(app_id), view(known_state), timeout_ms)); });
  }
  static sortie_status log_open(sortie_scheduler* s, sortie_str app_id, sortie_str request,
                                sortie_log_stream** out, const sortie_sink* err) noexcept {
    return guarded(err, [&] {
      *out = reinterpret_cast<sortie_log_stream*>(
          self(s)->log_open(view(app_id), view(request)).release());
    });
  }
  static sortie_status log_next(sortie_log_stream* stream, int64_t timeout_ms,
                                const sortie_log_sink* sink, int32_t* eof,
                                const sortie_sink* err) noexcept {
    return guarded(err, [&] {
      *eof = reinterpret_cast<LogStream*>(stream)->next(timeout_ms, LogSink(sink)) ? 0 : 1;
    });
  }
  static void log_close(sortie_log_stream* stream) noexcept {
    delete reinterpret_cast<LogStream*>(stream);
  }
  static std::vector<std::string_view> views(const sortie_str* items, size_t count) {
    std::vector<std::string_view> texts;
    for (size_t i = 0; i < count; ++i) texts.push_back(view(items[i]));
    return texts;
  }
  static sortie_status schedule_batch(sortie_scheduler* s, const sortie_str* requests, size_t count,
                                      const sortie_sink* out, const sortie_sink* err) noexcept {
    return guarded(err, [&] {
      for (const std::string& app_id : self(s)->schedule_batch(views(requests, count))) {
        put(out, app_id + "\n");
      }
    });
  }
  static sortie_status cancel_batch(sortie_scheduler* s, const sortie_str* app_ids, size_t count,
                                    const sortie_sink* err) noexcept {
    return guarded(err, [&] { self(s)->cancel_batch(views(app_ids, count)); });
  }
  static const sortie_scheduler_vtable* get() noexcept {
    constexpr bool has_list = SORTIE_DETAIL_OVERRIDES(T, list);
    constexpr bool has_wait = SORTIE_DETAIL_OVERRIDES(T, wait);
    constexpr bool has_logs = SORTIE_DETAIL_OVERRIDES(T, log_open);
    constexpr bool has_batch = SORTIE_DETAIL_OVERRIDES(T, schedule_batch);
    constexpr bool has_cancel_batch = SORTIE_DETAIL_OVERRIDES(T, cancel_batch);
    static const sortie_scheduler_vtable table = {sizeof(sortie_scheduler_vtable),
                                                  create,
                                                  destroy,
                                                  run_options,
                                                  dryrun,
                                                  schedule,
                                                  describe,
                                                  has_list ? list : nullptr,
                                                  cancel,
                                                  has_wait ? wait : nullptr,
                                                  has_logs ? log_open : nullptr,
                                                  has_logs ? log_next : nullptr,
                                                  has_logs ? log_close : nullptr,
                                                  has_batch ? schedule_batch : nullptr,
                                                  has_cancel_batch ? cancel_batch : nullptr};
    return &table;
  }
};

template <class T>
struct ImageProviderTable {
  static ImageProvider* self(sortie_image_provider* p) noexcept {
    return reinterpret_cast<ImageProvider*>(p);
  }
  static sortie_status create(sortie_str config, sortie_image_provider** out,
                              const sortie_sink* err) noexcept {
    return guarded(err, [&] {
      *out = reinterpret_cast<sortie_image_provider*>(
          static_cast<ImageProvider*>(new T(view(config))));
    });
  }
  static void destroy(sortie_image_provider* p) noexcept { delete self(p); }
  static sortie_status fetch(sortie_image_provider* p, sortie_str role, const sortie_sink* out,
                             const sortie_sink* err) noexcept {
    return guarded(err, [&] { put(out, self(p)->fetch(view(role))); });
  }
  static const sortie_image_provider_vtable* get() noexcept {
    static const sortie_image_provider_vtable table = {sizeof(sortie_image_provider_vtable), create,
                                                       destroy, fetch};
    return &table;
  }
};

template <class T>
struct PackagerTable {
  static Packager* self(sortie_packager* p) noexcept { return reinterpret_cast<Packager*>(p); }
  static sortie_status create(sortie_str config, sortie_packager** out,
                              const sortie_sink* err) noexcept {
    return guarded(err, [&] {
      *out = reinterpret_cast<sortie_packager*>(static_cast<Packager*>(new T(view(config))));
    });
  }
  static void destroy(sortie_packager* p) noexcept { delete self(p); }
  static sortie_status package(sortie_packager* p, sortie_str request, const sortie_sink* out,
                               const sortie_sink* err) noexcept {
    return guarded(err, [&] { put(out, self(p)->package(view(request))); });
  }
  static const sortie_packager_vtable* get() noexcept {
    static const sortie_packager_vtable table = {sizeof(sortie_packager_vtable), create, destroy,
                                                 package};
    return &table;
  }
};

template <class T>
struct NamedResourcesTable {
  static sortie_status names(const sortie_sink* out, const sortie_sink* err) noexcept {
    return guarded(err, [&] { put(out, T().names()); });
  }
  static sortie_status lookup(sortie_str name, const sortie_sink* out,
                              const sortie_sink* err) noexcept {
    return guarded(err, [&] { put(out, T().lookup(view(name))); });
  }
  static const sortie_named_resources_vtable* get() noexcept {
    static const sortie_named_resources_vtable table = {sizeof(sortie_named_resources_vtable),
                                                        names, lookup};
    return &table;
  }
};

// Fills `out` for a plugin built against this header's ABI version (see sortie_plugin_info).
// The component pointers sortie_plugin_info.components expects, for a static array.
template <size_t N>
std::array<const sortie_component*, N> pointers_to(const sortie_component (&components)[N]) {
  std::array<const sortie_component*, N> pointers{};
  for (size_t i = 0; i < N; ++i) pointers[i] = &components[i];
  return pointers;
}

inline sortie_status negotiate(const sortie_host_info* host, sortie_plugin_info* out,
                               const sortie_sink* err, const char* name, const char* version,
                               const sortie_component* const* components, size_t count) noexcept {
  if (host == nullptr || out == nullptr) {
    put(err, "negotiation called with NULL host info or output");
    return SORTIE_INVALID_ARGUMENT;
  }
  const uint32_t mine = SORTIE_ABI_CURRENT;
  if (SORTIE_ABI_MAJOR(host->abi_min) > SORTIE_ABI_MAJOR(mine) ||
      SORTIE_ABI_MAJOR(host->abi_max) < SORTIE_ABI_MAJOR(mine)) {
    put(err, "plugin speaks sortie ABI major " + std::to_string(SORTIE_ABI_MAJOR(mine)) +
                 ", host accepts majors " + std::to_string(SORTIE_ABI_MAJOR(host->abi_min)) +
                 " to " + std::to_string(SORTIE_ABI_MAJOR(host->abi_max)));
    return SORTIE_FAILED_PRECONDITION;
  }
  uint32_t chosen = mine;
  if (SORTIE_ABI_MAJOR(host->abi_max) == SORTIE_ABI_MAJOR(mine) && host->abi_max < mine) {
    chosen = host->abi_max;  // an older host: speak its minor; it reads only what it knows
  }
  if (host->struct_size >= offsetof(sortie_host_info, api) + sizeof(host->api)) {
    Host::set_api(host->api);
  }
  sortie_plugin_info mine_info{};
  mine_info.struct_size = sizeof(sortie_plugin_info);
  mine_info.abi_version = chosen;
  mine_info.name = name;
  mine_info.version = version;
  mine_info.component_count = count;
  mine_info.components = components;
  const uint32_t size =
      out->struct_size < mine_info.struct_size ? out->struct_size : mine_info.struct_size;
  mine_info.struct_size = size;
  std::memcpy(out, &mine_info, size);
  return SORTIE_OK;
}

}  // namespace detail
}  // namespace sortie

// One component entry for SORTIE_PLUGIN.
#define SORTIE_SCHEDULER(NAME, DESCRIPTION, CLASS)                      \
  sortie_component {                                                    \
    sizeof(sortie_component), SORTIE_KIND_SCHEDULER, NAME, DESCRIPTION, \
        ::sortie::detail::SchedulerTable<CLASS>::get()                  \
  }
#define SORTIE_IMAGE_PROVIDER(NAME, DESCRIPTION, CLASS)                      \
  sortie_component {                                                         \
    sizeof(sortie_component), SORTIE_KIND_IMAGE_PROVIDER, NAME, DESCRIPTION, \
        ::sortie::detail::ImageProviderTable<CLASS>::get()                   \
  }
#define SORTIE_PACKAGER(NAME, DESCRIPTION, CLASS)                      \
  sortie_component {                                                   \
    sizeof(sortie_component), SORTIE_KIND_PACKAGER, NAME, DESCRIPTION, \
        ::sortie::detail::PackagerTable<CLASS>::get()                  \
  }
#define SORTIE_NAMED_RESOURCES(NAME, DESCRIPTION, CLASS)                      \
  sortie_component {                                                          \
    sizeof(sortie_component), SORTIE_KIND_NAMED_RESOURCES, NAME, DESCRIPTION, \
        ::sortie::detail::NamedResourcesTable<CLASS>::get()                   \
  }

// Defines the plugin's exported entry point. Use once per library, at namespace scope.
#define SORTIE_PLUGIN(NAME, VERSION, ...)                                              \
  extern "C" SORTIE_PLUGIN_EXPORT sortie_status sortie_plugin_negotiate(               \
      const sortie_host_info* host, sortie_plugin_info* out, const sortie_sink* err) { \
    static const sortie_component components[] = {__VA_ARGS__};                        \
    static const auto pointers = ::sortie::detail::pointers_to(components);            \
    return ::sortie::detail::negotiate(host, out, err, NAME, VERSION, pointers.data(), \
                                       pointers.size());                               \
  }

#endif  // SORTIE_PLUGIN_HPP
