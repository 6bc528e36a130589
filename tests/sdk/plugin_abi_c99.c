/* sortie/plugin_abi.h compiles as strict C99 (-std=c99 -pedantic -Werror) and its version macros
 * and struct layout behave as documented. */
#include <sortie/plugin_abi.h>
#include <stdio.h>

int main(void) {
  const uint32_t v = SORTIE_ABI_VERSION(3, 17);
  int failures = 0;
  failures += SORTIE_ABI_MAJOR(v) != 3;
  failures += SORTIE_ABI_MINOR(v) != 17;
  failures +=
      SORTIE_ABI_CURRENT != SORTIE_ABI_VERSION(SORTIE_ABI_CURRENT_MAJOR, SORTIE_ABI_CURRENT_MINOR);
  /* struct_size leads every struct, so a reader can always find it (ABI-3). */
  failures += offsetof(sortie_plugin_info, struct_size) != 0;
  failures += offsetof(sortie_scheduler_vtable, struct_size) != 0;
  failures += offsetof(sortie_component, struct_size) != 0;
  failures += offsetof(sortie_log_line, struct_size) != 0;
  printf("%d passed, %d failed\n", 7 - failures, failures);
  return failures == 0 ? 0 : 1;
}
