/* Pins the binary layout of sortie/plugin_abi.h: the size and every member offset of each struct,
 * and the value of every version macro and constant (Envoy's abi_version.h habit).
 *
 * CHANGING A NUMBER BELOW IS AN ABI CHANGE. If this test fails, the header no longer matches
 * plugins already built. Either undo the change, or make it a deliberate one by the rules of
 * sdk/README.md (ABI-2, ABI-3): a minor version appends members at the end of a struct or table
 * (bump SORTIE_ABI_CURRENT_MINOR, add the new offsets and sizes, change no existing number); any
 * other change bumps SORTIE_ABI_CURRENT_MAJOR. Then update the numbers here in the same commit.
 *
 * C cannot list a struct's members, so a member slipped into padding (after a uint32_t that
 * precedes a pointer) moves no number here: review any edit of plugin_abi.h with these rules too.
 *
 * The sizes and offsets are those of the LP64 data model (Linux and macOS on 64-bit CPUs), the
 * only one sortie builds for. Compiled as strict C99, like a plugin written in C. */
#include <sortie/plugin_abi.h>
#include <stdio.h>
#include <string.h>

#if !defined(__LP64__)
#error "the pinned sizes and offsets below are those of the LP64 data model"
#endif

static int failures = 0;
static int checks = 0;

static void pin(const char* what, unsigned long long actual, unsigned long long pinned) {
  ++checks;
  if (actual != pinned) {
    ++failures;
    printf("ABI CHANGE: %s is %llu, pinned at %llu\n", what, actual, pinned);
  }
}

#define PIN(expression, pinned) pin(#expression, (unsigned long long)(expression), pinned)
#define PIN_SIZE(type, pinned) PIN(sizeof(type), pinned)
#define PIN_OFFSET(type, member, pinned) PIN(offsetof(type, member), pinned)

static void pin_versions(void) {
  PIN(SORTIE_ABI_CURRENT_MAJOR, 1);
  PIN(SORTIE_ABI_CURRENT_MINOR, 2);
  PIN(SORTIE_ABI_CURRENT, 0x00010002u);
  PIN(SORTIE_ABI_VERSION(3, 17), 0x00030011u);
  PIN(SORTIE_ABI_MAJOR(0x00030011u), 3);
  PIN(SORTIE_ABI_MINOR(0x00030011u), 17);
  ++checks;
  if (strcmp(SORTIE_PLUGIN_ENTRY_SYMBOL, "sortie_plugin_negotiate") != 0) {
    ++failures;
    printf("ABI CHANGE: SORTIE_PLUGIN_ENTRY_SYMBOL is \"%s\"\n", SORTIE_PLUGIN_ENTRY_SYMBOL);
  }
}

static void pin_constants(void) {
  PIN_SIZE(sortie_status, 4);
  PIN(SORTIE_OK, 0);
  PIN(SORTIE_CANCELLED, 1);
  PIN(SORTIE_UNKNOWN, 2);
  PIN(SORTIE_INVALID_ARGUMENT, 3);
  PIN(SORTIE_DEADLINE_EXCEEDED, 4);
  PIN(SORTIE_NOT_FOUND, 5);
  PIN(SORTIE_ALREADY_EXISTS, 6);
  PIN(SORTIE_PERMISSION_DENIED, 7);
  PIN(SORTIE_RESOURCE_EXHAUSTED, 8);
  PIN(SORTIE_FAILED_PRECONDITION, 9);
  PIN(SORTIE_UNIMPLEMENTED, 12);
  PIN(SORTIE_INTERNAL, 13);
  PIN(SORTIE_UNAVAILABLE, 14);
  PIN(SORTIE_UNAUTHENTICATED, 16);
  PIN(SORTIE_STREAM_STDOUT, 1);
  PIN(SORTIE_STREAM_STDERR, 2);
  PIN(SORTIE_LOG_DEBUG, 0);
  PIN(SORTIE_LOG_INFO, 1);
  PIN(SORTIE_LOG_WARNING, 2);
  PIN(SORTIE_LOG_ERROR, 3);
  PIN(SORTIE_KIND_SCHEDULER, 1);
  PIN(SORTIE_KIND_PACKAGER, 2);
  PIN(SORTIE_KIND_IMAGE_PROVIDER, 3);
  PIN(SORTIE_KIND_NAMED_RESOURCES, 4);
}

static void pin_basic_types(void) {
  PIN_SIZE(sortie_str, 16);
  PIN_OFFSET(sortie_str, ptr, 0);
  PIN_OFFSET(sortie_str, len, 8);

  PIN_SIZE(sortie_sink, 16);
  PIN_OFFSET(sortie_sink, ctx, 0);
  PIN_OFFSET(sortie_sink, write, 8);

  PIN_SIZE(sortie_log_line, 56);
  PIN_OFFSET(sortie_log_line, struct_size, 0);
  PIN_OFFSET(sortie_log_line, stream, 4);
  PIN_OFFSET(sortie_log_line, role, 8);
  PIN_OFFSET(sortie_log_line, replica_id, 24);
  PIN_OFFSET(sortie_log_line, timestamp_ns, 32);
  PIN_OFFSET(sortie_log_line, data, 40);

  PIN_SIZE(sortie_log_sink, 16);
  PIN_OFFSET(sortie_log_sink, ctx, 0);
  PIN_OFFSET(sortie_log_sink, line, 8);

  PIN_SIZE(sortie_host_api, 24);
  PIN_OFFSET(sortie_host_api, struct_size, 0);
  PIN_OFFSET(sortie_host_api, ctx, 8);
  PIN_OFFSET(sortie_host_api, log, 16);
}

static void pin_negotiation(void) {
  PIN_SIZE(sortie_host_info, 32);
  PIN_OFFSET(sortie_host_info, struct_size, 0);
  PIN_OFFSET(sortie_host_info, abi_min, 4);
  PIN_OFFSET(sortie_host_info, abi_max, 8);
  PIN_OFFSET(sortie_host_info, host_version, 16);
  PIN_OFFSET(sortie_host_info, api, 24);

  PIN_SIZE(sortie_component, 32);
  PIN_OFFSET(sortie_component, struct_size, 0);
  PIN_OFFSET(sortie_component, kind, 4);
  PIN_OFFSET(sortie_component, name, 8);
  PIN_OFFSET(sortie_component, description, 16);
  PIN_OFFSET(sortie_component, vtable, 24);

  PIN_SIZE(sortie_plugin_info, 40);
  PIN_OFFSET(sortie_plugin_info, struct_size, 0);
  PIN_OFFSET(sortie_plugin_info, abi_version, 4);
  PIN_OFFSET(sortie_plugin_info, name, 8);
  PIN_OFFSET(sortie_plugin_info, version, 16);
  PIN_OFFSET(sortie_plugin_info, component_count, 24);
  PIN_OFFSET(sortie_plugin_info, components, 32);
}

static void pin_vtables(void) {
  PIN_SIZE(sortie_scheduler_vtable, 120);
  PIN_OFFSET(sortie_scheduler_vtable, struct_size, 0);
  PIN_OFFSET(sortie_scheduler_vtable, create, 8);
  PIN_OFFSET(sortie_scheduler_vtable, destroy, 16);
  PIN_OFFSET(sortie_scheduler_vtable, run_options, 24);
  PIN_OFFSET(sortie_scheduler_vtable, dryrun, 32);
  PIN_OFFSET(sortie_scheduler_vtable, schedule, 40);
  PIN_OFFSET(sortie_scheduler_vtable, describe, 48);
  PIN_OFFSET(sortie_scheduler_vtable, list, 56);
  PIN_OFFSET(sortie_scheduler_vtable, cancel, 64);
  PIN_OFFSET(sortie_scheduler_vtable, wait, 72);
  PIN_OFFSET(sortie_scheduler_vtable, log_open, 80);
  PIN_OFFSET(sortie_scheduler_vtable, log_next, 88);
  PIN_OFFSET(sortie_scheduler_vtable, log_close, 96);
  PIN_OFFSET(sortie_scheduler_vtable, schedule_batch, 104);
  PIN_OFFSET(sortie_scheduler_vtable, cancel_batch, 112);

  PIN_SIZE(sortie_packager_vtable, 32);
  PIN_OFFSET(sortie_packager_vtable, struct_size, 0);
  PIN_OFFSET(sortie_packager_vtable, create, 8);
  PIN_OFFSET(sortie_packager_vtable, destroy, 16);
  PIN_OFFSET(sortie_packager_vtable, package, 24);

  PIN_SIZE(sortie_image_provider_vtable, 32);
  PIN_OFFSET(sortie_image_provider_vtable, struct_size, 0);
  PIN_OFFSET(sortie_image_provider_vtable, create, 8);
  PIN_OFFSET(sortie_image_provider_vtable, destroy, 16);
  PIN_OFFSET(sortie_image_provider_vtable, fetch, 24);

  PIN_SIZE(sortie_named_resources_vtable, 24);
  PIN_OFFSET(sortie_named_resources_vtable, struct_size, 0);
  PIN_OFFSET(sortie_named_resources_vtable, names, 8);
  PIN_OFFSET(sortie_named_resources_vtable, lookup, 16);
}

int main(void) {
  pin_versions();
  pin_constants();
  pin_basic_types();
  pin_negotiation();
  pin_vtables();
  printf("%d of %d pinned numbers match\n", checks - failures, checks);
  return failures == 0 ? 0 : 1;
}
