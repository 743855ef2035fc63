/* SPDX-License-Identifier: Apache-2.0 */
/* watch's view cells (watch_cells.h). */
#include "watch_cells.h"
#include "gpu_table.h"

#include <stdio.h>
#include <string.h>

const char gd_watch_mem_head[] = "MEM MiB";

void gd_watch_mem_cell(gd_value used, gd_value total, char *buf, size_t len)
{
    gd_reading_pair(used, total, buf, len);
}

/* The reasons that hold clocks back; the others (idle, settings, sync boost) are states. */
static bool slows(const char *name)
{
    static const char *const slow[] = {"sw_power_cap", "hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown",
                                       "hw_power_brake_slowdown"};
    for (size_t i = 0; i < sizeof slow / sizeof slow[0]; i++)
        if (strcmp(name, slow[i]) == 0)
            return true;
    return false;
}

bool gd_watch_reasons_cell(unsigned long long mask, int width, char *buf, size_t len)
{
    bool slow = false;
    size_t used = 0, n = 0, shown = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < gd_reason_names_count; k++) {
        if (!(mask & gd_reason_names[k].bit))
            continue;
        n++;
        slow |= slows(gd_reason_names[k].name);
    }
    for (size_t k = 0; k < gd_reason_names_count && len > 0; k++) {
        if (!(mask & gd_reason_names[k].bit))
            continue;
        const char *name = gd_reason_names[k].name;
        size_t need = used + (used ? 1 : 0) + strlen(name);
        size_t more = n - shown - 1; /* the "+N" this name would leave to say */
        char tail[24] = "";
        if (more)
            snprintf(tail, sizeof tail, " +%zu", more);
        if (need + strlen(tail) > (size_t)width && shown > 0) {
            snprintf(buf + used, len - used, " +%zu", n - shown);
            return slow;
        }
        if (shown == 0 && need > (size_t)width) { /* one name wider than the column: cut, marked */
            snprintf(buf, len, "%.*s~", width > 1 ? width - 1 : 0, name);
            return slow;
        }
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "", name);
        shown++;
        if (used >= len)
            break;
    }
    return slow;
}
