/* target_name.c - the spelling of a target, as --arch and `tune TARGET:`
 * take it. */
#include <string.h>

#include "frontend.h"

int target_arch_number(const char *arch, bool *specific) {
    *specific = false;
    if (!arch || strncmp(arch, "sm_", 3) != 0) return 0;
    int v = 0, n = 0;
    const char *p = arch + 3;
    if (*p == '0') return 0; /* sm_080: not a spelling NVRTC knows */
    while (*p >= '0' && *p <= '9' && n < 4) v = v * 10 + (*p++ - '0'), n++;
    if (n < 2 || (*p && strcmp(p, "a") != 0)) return 0;
    *specific = *p == 'a';
    return v;
}
