/*
 * File: sortie/plugin_abi.h
 *
 * The binary contract between the sortie host and a plugin library. This header is C99 and
 * depends on <stdint.h> and <stddef.h> only, so a plugin may be written in any language that can
 * export a C function. The numbered rules (ABI-n) are explained in sdk/README.md; this header
 * states the same rules next to the types they govern.
 *
 * Shape (ABI-1): a plugin library exports exactly one symbol, sortie_plugin_negotiate(). Through
 * it host and plugin agree on an ABI version, and the plugin lists its components. Each component
 * has a kind (scheduler, packager, image provider, named-resource registry), a name and a
 * function table (vtable) specific to that kind.
 *
 * Versions (ABI-2): SORTIE_ABI_VERSION(major, minor). A major change breaks compatibility; a
 * minor change only appends members to the end of structs and function tables. Every struct
 * begins with `struct_size`, set by the side that fills it in, and a reader never reads a member
 * whose end lies beyond `struct_size` (ABI-3). A function-table member that is absent or NULL
 * means the operation is not implemented (the host answers SORTIE_UNIMPLEMENTED on its behalf).
 *
 * Payloads (ABI-4): domain data (AppDef, dry-run requests, statuses, run options, resources)
 * crosses as UTF-8 JSON text whose top-level object carries a "schema" member such as
 * "sortie.appdef/1". Readers ignore members they do not know. docs/payloads.md lists them.
 *
 * Ownership (ABI-5): input pointers are borrowed for the duration of the call and never retained.
 * Output goes to host-supplied sinks; the host copies what is written, so a plugin never returns
 * heap memory the host must free. Long-lived objects (scheduler instances, log streams) are
 * opaque handles released by the matching destroy/close function, exactly once.
 *
 * Errors (ABI-6): every call that can fail returns a sortie_status from the fixed set below and,
 * on failure, writes a human-readable message to its `err` sink. No exception, longjmp or signal
 * may cross the boundary.
 *
 * Threads (ABI-7): the host calls a given handle from one thread at a time. Distinct handles may
 * be used from distinct threads concurrently.
 */
#ifndef SORTIE_PLUGIN_ABI_H
#define SORTIE_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Versions
 * ------------------------------------------------------------------------------------------- */

#define SORTIE_ABI_VERSION(major, minor) ((((uint32_t)(major)) << 16) | ((uint32_t)(minor)&0xFFFFu))
#define SORTIE_ABI_MAJOR(version) (((uint32_t)(version)) >> 16)
#define SORTIE_ABI_MINOR(version) (((uint32_t)(version)) & 0xFFFFu)

/* The version this header describes. */
#define SORTIE_ABI_CURRENT_MAJOR 1
#define SORTIE_ABI_CURRENT_MINOR 2
#define SORTIE_ABI_CURRENT SORTIE_ABI_VERSION(SORTIE_ABI_CURRENT_MAJOR, SORTIE_ABI_CURRENT_MINOR)

/* The one exported symbol (ABI-1). */
#define SORTIE_PLUGIN_ENTRY_SYMBOL "sortie_plugin_negotiate"

#if defined(_WIN32)
#define SORTIE_PLUGIN_EXPORT __declspec(dllexport)
#else
#define SORTIE_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* ---------------------------------------------------------------------------------------------
 * Status codes (ABI-6). Values follow the canonical gRPC/Abseil codes so that they read the same
 * everywhere. A host treats any value not listed here as SORTIE_UNKNOWN.
 * ------------------------------------------------------------------------------------------- */

typedef int32_t sortie_status;

#define SORTIE_OK 0                  /* success */
#define SORTIE_CANCELLED 1           /* the operation was cancelled by the caller */
#define SORTIE_UNKNOWN 2             /* an error that fits no other code */
#define SORTIE_INVALID_ARGUMENT 3    /* the input is malformed, whatever the system's state */
#define SORTIE_DEADLINE_EXCEEDED 4   /* a deadline passed before the operation completed */
#define SORTIE_NOT_FOUND 5           /* the app, role, image or entity does not exist */
#define SORTIE_ALREADY_EXISTS 6      /* the entity the call would create exists */
#define SORTIE_PERMISSION_DENIED 7   /* the caller may not do this */
#define SORTIE_RESOURCE_EXHAUSTED 8  /* out of memory, disk, quota or capacity */
#define SORTIE_FAILED_PRECONDITION 9 /* the system is not in a state that allows the call */
#define SORTIE_UNIMPLEMENTED 12      /* the component does not support this operation */
#define SORTIE_INTERNAL 13           /* a bug: an invariant of the plugin broke */
#define SORTIE_UNAVAILABLE 14        /* the backend cannot be reached now; retrying may help */
#define SORTIE_UNAUTHENTICATED 16    /* credentials are missing or invalid */

/* ---------------------------------------------------------------------------------------------
 * Basic types
 * ------------------------------------------------------------------------------------------- */

/* A byte string that need not be NUL-terminated.
 * OWNERSHIP: borrowed from the caller for the duration of the call. */
typedef struct sortie_str {
  const char* ptr;
  size_t len;
} sortie_str;

/* A host-supplied output channel. write() appends `len` bytes; the callee may call it any number
 * of times (including zero). The host copies the bytes before write() returns.
 * OWNERSHIP: host-owned; the plugin uses it only during the call it was passed to. */
typedef struct sortie_sink {
  void* ctx;
  void (*write)(void* ctx, const char* data, size_t len);
} sortie_sink;

/* Which output stream a log line came from. */
#define SORTIE_STREAM_STDOUT 1
#define SORTIE_STREAM_STDERR 2
/* The JSON lines a replica appended to $SORTIE_METRICS_FILE, for a scheduler that serves that
 * file (log request streams "metrics", docs/payloads.md P-10). */
#define SORTIE_STREAM_METRICS 3

/* One log line handed to the host.
 * `data` is one whole line including its trailing '\n' when the line had one (the last line of a
 * stream may lack it); '\r' and any other byte pass through untouched.
 * `timestamp_ns` is the time the line was written in nanoseconds since the Unix epoch, or 0 when
 * unknown.
 * OWNERSHIP: every pointer is borrowed for the duration of the line() call. */
typedef struct sortie_log_line {
  uint32_t struct_size;
  int32_t stream; /* SORTIE_STREAM_* */
  sortie_str role;
  uint32_t replica_id;
  int64_t timestamp_ns;
  sortie_str data;
} sortie_log_line;

/* A host-supplied sink for log lines. line() is called once per line, in order.
 * OWNERSHIP: host-owned; used only during the call it was passed to. */
typedef struct sortie_log_sink {
  void* ctx;
  void (*line)(void* ctx, const sortie_log_line* line);
} sortie_log_sink;

/* Severity for sortie_host_api.log. */
#define SORTIE_LOG_DEBUG 0
#define SORTIE_LOG_INFO 1
#define SORTIE_LOG_WARNING 2
#define SORTIE_LOG_ERROR 3

/* Services the host offers to plugins.
 * OWNERSHIP: host-owned; valid from negotiation until the process exits. Callable from any
 * thread. A plugin checks struct_size before using a member added in a later minor version. */
typedef struct sortie_host_api {
  uint32_t struct_size;
  void* ctx;
  /* Records a diagnostic in the host's log. Never writes to the plugin's stdout. */
  void (*log)(void* ctx, int32_t level, const char* msg, size_t len);
} sortie_host_api;

/* ---------------------------------------------------------------------------------------------
 * Negotiation (ABI-1, ABI-2)
 * ------------------------------------------------------------------------------------------- */

/* What the host supports.
 * OWNERSHIP: host-owned; borrowed during negotiation except `api`, which stays valid for the
 * life of the process. */
typedef struct sortie_host_info {
  uint32_t struct_size;
  uint32_t abi_min;         /* lowest SORTIE_ABI_VERSION the host accepts */
  uint32_t abi_max;         /* highest SORTIE_ABI_VERSION the host accepts */
  const char* host_version; /* NUL-terminated, e.g. "0.1.0" */
  const sortie_host_api* api;
} sortie_host_info;

/* Component kinds. */
#define SORTIE_KIND_SCHEDULER 1
#define SORTIE_KIND_PACKAGER 2
#define SORTIE_KIND_IMAGE_PROVIDER 3
#define SORTIE_KIND_NAMED_RESOURCES 4

/* One component a plugin provides. `vtable` points to the table for `kind`
 * (sortie_scheduler_vtable, ...), whose first member is its struct_size.
 * `name` is NUL-terminated, non-empty, unique per kind within the plugin, and matches a
 * "provides" entry of the plugin's manifest.
 * OWNERSHIP: plugin-owned static data, valid until the library is unloaded (the host never
 * unloads a plugin). */
typedef struct sortie_component {
  uint32_t struct_size;
  uint32_t kind;
  const char* name;
  const char* description;
  const void* vtable;
} sortie_component;

/* The plugin's answer.
 * The host zero-fills the struct and sets struct_size to the size it knows; the plugin writes
 * only members that fit, then sets struct_size to min(host's, its own).
 * `abi_version` is the version the plugin will speak: within [host abi_min, abi_max] and of a
 * major version the plugin implements. Its minor is min(host's max minor, plugin's minor).
 * `components` is an array of `component_count` non-NULL pointers rather than an array of
 * structs, so that each component's own struct_size governs it even when a later minor version
 * makes sortie_component larger (ABI-3).
 * OWNERSHIP: every pointer is plugin-owned static data (as for sortie_component). */
typedef struct sortie_plugin_info {
  uint32_t struct_size;
  uint32_t abi_version;
  const char* name;    /* NUL-terminated plugin name, e.g. "local" */
  const char* version; /* NUL-terminated plugin version, e.g. "0.1.0" */
  size_t component_count;
  const sortie_component* const* components;
} sortie_plugin_info;

/* The entry point. Returns SORTIE_OK after filling `out`, or SORTIE_FAILED_PRECONDITION with a
 * message in `err` when no version in [abi_min, abi_max] is one the plugin speaks.
 * The host calls it once per process before any other function of the library. */
typedef sortie_status (*sortie_plugin_negotiate_fn)(const sortie_host_info* host,
                                                    sortie_plugin_info* out,
                                                    const sortie_sink* err);

/* ---------------------------------------------------------------------------------------------
 * Schedulers (SORTIE_KIND_SCHEDULER)
 *
 * A scheduler turns an AppDef into a backend request (dryrun), submits it (schedule) and answers
 * about it afterwards from nothing but its app id (describe, list, cancel, wait, logs), so that
 * any later host process can take over (ABI-8). Payload schemas: docs/payloads.md.
 * ------------------------------------------------------------------------------------------- */

/* OWNERSHIP: plugin-owned; created by create(), released by destroy(). */
typedef struct sortie_scheduler sortie_scheduler;
/* OWNERSHIP: plugin-owned; created by log_open(), released by log_close(). */
typedef struct sortie_log_stream sortie_log_stream;

typedef struct sortie_scheduler_vtable {
  uint32_t struct_size;

  /* config: "sortie.scheduler_config/1" (scheduler name, session, state_dir).
   * On success *out is a non-NULL handle. */
  sortie_status (*create)(sortie_str config, sortie_scheduler** out, const sortie_sink* err);
  /* Releases the handle. NULL is ignored. */
  void (*destroy)(sortie_scheduler* self);

  /* Writes "sortie.runopts/1": the options the scheduler accepts. */
  sortie_status (*run_options)(sortie_scheduler* self, const sortie_sink* out,
                               const sortie_sink* err);
  /* input: "sortie.dryrun_input/1" (app, resolved cfg, proposed app id, images).
   * Writes "sortie.dryrun/1" (final app id and the backend request). Must not start anything. */
  sortie_status (*dryrun)(sortie_scheduler* self, sortie_str input, const sortie_sink* out,
                          const sortie_sink* err);
  /* request: a "sortie.dryrun/1" document previously written by dryrun().
   * Submits it and writes the app id (plain UTF-8, no JSON) to `out`. */
  sortie_status (*schedule)(sortie_scheduler* self, sortie_str request, const sortie_sink* out,
                            const sortie_sink* err);
  /* Writes "sortie.status/1", or returns SORTIE_NOT_FOUND for an unknown app id. */
  sortie_status (*describe)(sortie_scheduler* self, sortie_str app_id, const sortie_sink* out,
                            const sortie_sink* err);
  /* filter: "sortie.list_filter/1". Writes "sortie.list/1". */
  sortie_status (*list)(sortie_scheduler* self, sortie_str filter, const sortie_sink* out,
                        const sortie_sink* err);
  /* Requests cancellation and returns without waiting for it. Cancelling an app that is already
   * terminal succeeds; an unknown app id gives SORTIE_NOT_FOUND. */
  sortie_status (*cancel)(sortie_scheduler* self, sortie_str app_id, const sortie_sink* err);
  /* Blocks until the app's state differs from `known_state` (an AppState name such as
   * "RUNNING", or empty for "any state"), `timeout_ms` passes (negative: no limit) or a signal
   * interrupts the calling thread (so the host's SIGINT handling is prompt), then writes
   * "sortie.status/1". Optional: when absent the host polls describe(). */
  sortie_status (*wait)(sortie_scheduler* self, sortie_str app_id, sortie_str known_state,
                        int64_t timeout_ms, const sortie_sink* out, const sortie_sink* err);

  /* request: "sortie.log_request/1" (role, replica, streams, since, until, follow).
   * A scheduler that cannot honour a requested member returns SORTIE_UNIMPLEMENTED naming it;
   * it never ignores one silently. Regular expressions are applied by the host. */
  sortie_status (*log_open)(sortie_scheduler* self, sortie_str app_id, sortie_str request,
                            sortie_log_stream** out, const sortie_sink* err);
  /* Hands zero or more whole lines to `sink`, waiting at most `timeout_ms` for the first one.
   * Sets *eof to 1 once the stream has ended (no line will follow), else 0. */
  sortie_status (*log_next)(sortie_log_stream* stream, int64_t timeout_ms,
                            const sortie_log_sink* sink, int32_t* eof, const sortie_sink* err);
  /* Releases the stream. NULL is ignored. */
  void (*log_close)(sortie_log_stream* stream);

  /* ABI 1.1 (ABI-14). requests: `count` "sortie.dryrun/1" documents previously written by
   * dryrun(), typically the work units of one sweep. Submits them together (one backend request
   * where the backend can batch, e.g. a Slurm job array) and writes their app ids to `out`, each
   * followed by '\n', in input order; each app id then addresses its own unit only. All or
   * nothing: on failure no app of the batch may be left submitted. Optional: when absent the
   * host calls schedule() once per request. */
  sortie_status (*schedule_batch)(sortie_scheduler* self, const sortie_str* requests, size_t count,
                                  const sortie_sink* out, const sortie_sink* err);

  /* ABI 1.2 (ABI-15). Requests cancellation of `count` apps, as cancel() does each (returns once
   * the backend accepted the request, without waiting for the apps to end; an app already
   * terminal succeeds), in as few backend requests as it can (e.g. one scancel for every job of
   * a Slurm job array). An unknown app id fails the call with SORTIE_NOT_FOUND naming it, before
   * any app is cancelled. Optional: when absent the host calls cancel() once per app. */
  sortie_status (*cancel_batch)(sortie_scheduler* self, const sortie_str* app_ids, size_t count,
                                const sortie_sink* err);
} sortie_scheduler_vtable;

/* ---------------------------------------------------------------------------------------------
 * Executable packagers (SORTIE_KIND_PACKAGER)
 * ------------------------------------------------------------------------------------------- */

/* OWNERSHIP: plugin-owned; created by create(), released by destroy(). */
typedef struct sortie_packager sortie_packager;

typedef struct sortie_packager_vtable {
  uint32_t struct_size;
  /* config: "sortie.packager_config/1". */
  sortie_status (*create)(sortie_str config, sortie_packager** out, const sortie_sink* err);
  void (*destroy)(sortie_packager* self);
  /* request: "sortie.package_request/1" (a batch of executables). Writes
   * "sortie.package_result/1" (one packaged executable per input, same order). */
  sortie_status (*package)(sortie_packager* self, sortie_str request, const sortie_sink* out,
                           const sortie_sink* err);
} sortie_packager_vtable;

/* ---------------------------------------------------------------------------------------------
 * Image providers (SORTIE_KIND_IMAGE_PROVIDER)
 *
 * An image provider makes a role's `image` available locally and says where it lives, in the
 * manner of TorchX's ImageProvider: the host calls it for each role before dryrun when the
 * scheduler's run options name one (option "image_provider").
 * ------------------------------------------------------------------------------------------- */

/* OWNERSHIP: plugin-owned; created by create(), released by destroy(). */
typedef struct sortie_image_provider sortie_image_provider;

typedef struct sortie_image_provider_vtable {
  uint32_t struct_size;
  /* config: "sortie.image_provider_config/1". */
  sortie_status (*create)(sortie_str config, sortie_image_provider** out, const sortie_sink* err);
  void (*destroy)(sortie_image_provider* self);
  /* role: "sortie.role/1". Writes "sortie.image/1" (img_root, cwd). */
  sortie_status (*fetch)(sortie_image_provider* self, sortie_str role, const sortie_sink* out,
                         const sortie_sink* err);
} sortie_image_provider_vtable;

/* ---------------------------------------------------------------------------------------------
 * Named-resource registries (SORTIE_KIND_NAMED_RESOURCES)
 *
 * Code-backed named resources; most organisations need only a data manifest instead.
 * ------------------------------------------------------------------------------------------- */

typedef struct sortie_named_resources_vtable {
  uint32_t struct_size;
  /* Writes "sortie.resource_names/1": the names this registry defines. */
  sortie_status (*names)(const sortie_sink* out, const sortie_sink* err);
  /* Writes "sortie.resource/1" for `name`, or returns SORTIE_NOT_FOUND. */
  sortie_status (*lookup)(sortie_str name, const sortie_sink* out, const sortie_sink* err);
} sortie_named_resources_vtable;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SORTIE_PLUGIN_ABI_H */
