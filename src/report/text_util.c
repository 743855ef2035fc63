/* Word wrapping, colours and scalar formatting for the text renderers. */
#include "text_util.h"
#include "core/text_safe.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char *gd_c(const gd_text_style *st, const char *code)
{
    return st->color ? code : "";
}

const char *gd_safe(const char *s)
{
    static char buf[8][4096];
    static unsigned next;
    char *out = buf[next++ % 8];
    return gd_text_safe(s, out, sizeof buf[0]);
}

void gd_wrap(FILE *out, const gd_text_style *st, int indent, int first_col, const char *text)
{
    int width = st->width > 40 ? st->width : 40;
    int col = first_col;
    bool first = true;
    for (const char *p = text; *p;) {
        while (*p == ' ')
            p++;
        size_t w = strcspn(p, " ");
        if (w == 0)
            break;
        if (!first && col + 1 + (int)w > width) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (!first) {
            fputc(' ', out);
            col++;
        }
        gd_write_safe(out, p, w);
        col += (int)w;
        p += w;
        first = false;
    }
    fputc('\n', out);
}

void gd_json_scalar_text(const json_t *v, char *buf, size_t len)
{
    if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, len, "%.4g", json_real_value(v));
    else if (json_is_string(v))
        gd_text_safe(json_string_value(v), buf, len);
    else if (json_is_true(v))
        snprintf(buf, len, "yes");
    else if (json_is_false(v))
        snprintf(buf, len, "no");
    else if (json_is_null(v))
        snprintf(buf, len, "n/a");
    else {
        char *s = json_dumps(v, JSON_COMPACT);
        snprintf(buf, len, "%s", s ? s : "?");
        free(s);
    }
}
