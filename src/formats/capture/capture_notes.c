/* SPDX-License-Identifier: Apache-2.0 */
/* What the capture readers say they passed over, kept with the facts. */
#include "import.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gd_import_note(gd_facts *f, const char *fmt, ...)
{
    if (f->capture_note_count == GD_CAPTURE_NOTES) {
        f->capture_notes_more++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->capture_notes[f->capture_note_count++], GD_CAPTURE_NOTE_LEN, fmt, ap);
    va_end(ap);
}

void gd_import_notes_take(gd_facts *f, const gd_facts *part)
{
    for (size_t i = 0; i < part->capture_note_count; i++)
        gd_import_note(f, "%s", part->capture_notes[i]);
    f->capture_notes_more += part->capture_notes_more;
}

const char *gd_import_base(const char *name)
{
    const char *slash = strrchr(name, '/');
    return slash ? slash + 1 : name;
}
