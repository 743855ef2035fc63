/* SPDX-License-Identifier: Apache-2.0 */
/* The version files of the software stack: torch/version.py, TensorFlow's
 * build_info.py, dist-info METADATA, a toolkit's version.json / version.txt. */
#include "version_files.h"
#include "fatbin.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Finds `key` at the start of a line (after spaces) in buf; returns the rest
 * of that line in out (trimmed). */
static bool line_after(const char *buf, size_t len, const char *key, char *out, size_t olen)
{
    size_t klen = strlen(key);
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && buf[e] != '\n')
            e++;
        size_t s = i;
        while (s < e && (buf[s] == ' ' || buf[s] == '\t'))
            s++;
        if (e - s >= klen && memcmp(buf + s, key, klen) == 0) {
            s += klen;
            while (s < e && isspace((unsigned char)buf[s]))
                s++;
            size_t t = e;
            while (t > s && isspace((unsigned char)buf[t - 1]))
                t--;
            snprintf(out, olen, "%.*s", (int)(t - s), buf + s);
            return true;
        }
        i = e + 1;
    }
    return false;
}

/* The first quoted string in s ('x' or "x"), or "" (for None). */
static void first_quoted(const char *s, char *out, size_t olen)
{
    out[0] = '\0';
    const char *q = strpbrk(s, "'\"");
    if (!q)
        return;
    const char *e = strchr(q + 1, *q);
    if (!e)
        return;
    snprintf(out, olen, "%.*s", (int)(e - q - 1), q + 1);
}

bool gd_torch_version_parse(const char *buf, size_t len, char *version, size_t vlen, char *cuda, size_t clen)
{
    char line[256];
    version[0] = cuda[0] = '\0';
    if (!line_after(buf, len, "__version__", line, sizeof line) || line[0] != '=')
        return false;
    first_quoted(line, version, vlen);
    /* `cuda: Optional[str] = '12.8'` (typed, 1.10+) or `cuda = '11.3'`. */
    if (line_after(buf, len, "cuda:", line, sizeof line) || line_after(buf, len, "cuda =", line, sizeof line) ||
        line_after(buf, len, "cuda=", line, sizeof line)) {
        const char *eq = strchr(line, '=');
        first_quoted(eq ? eq : line, cuda, clen);
        if (!gd_cuda_version_parse(cuda))
            cuda[0] = '\0';
    }
    return version[0] != '\0';
}

/* After `key` (quoted) in buf: the value that follows the next ':' or ','. */
static const char *after_key(const char *buf, size_t len, const char *key)
{
    size_t klen = strlen(key);
    for (size_t i = 0; i + klen + 2 <= len; i++) {
        if ((buf[i] == '\'' || buf[i] == '"') && memcmp(buf + i + 1, key, klen) == 0 && buf[i + 1 + klen] == buf[i]) {
            size_t j = i + klen + 2;
            while (j < len && (isspace((unsigned char)buf[j]) || buf[j] == ':' || buf[j] == ','))
                j++;
            return buf + j;
        }
    }
    return NULL;
}

bool gd_tf_build_info_parse(const char *buf, size_t len, char *cuda, size_t clen, gd_arch *archs, size_t max,
                            size_t *narchs)
{
    *narchs = 0;
    cuda[0] = '\0';
    const char *end = buf + len;
    const char *v = after_key(buf, len, "cuda_version");
    if (!v || v >= end || (*v != '\'' && *v != '"'))
        return false;
    const char *q = memchr(v + 1, *v, (size_t)(end - v - 1));
    if (!q)
        return false;
    /* Windows wheels write '64_112' for 11.2. */
    char raw[32];
    snprintf(raw, sizeof raw, "%.*s", (int)(q - v - 1), v + 1);
    const char *num = strncmp(raw, "64_", 3) == 0 ? raw + 3 : raw;
    if (num != raw && strlen(num) >= 3 && !strchr(num, '.'))
        snprintf(cuda, clen, "%.*s.%s", (int)strlen(num) - 1, num, num + strlen(num) - 1);
    else
        snprintf(cuda, clen, "%s", num);
    const char *caps = after_key(buf, len, "cuda_compute_capabilities");
    if (caps && caps < end && *caps == '[') {
        const char *close = memchr(caps, ']', (size_t)(end - caps));
        for (const char *p = caps; close && p < close; p++) {
            bool ptx = (size_t)(close - p) > 8 && memcmp(p, "compute_", 8) == 0;
            bool sass = (size_t)(close - p) > 3 && memcmp(p, "sm_", 3) == 0;
            if (!ptx && !sass)
                continue;
            p += ptx ? 8 : 3;
            int sm = atoi(p);
            if (sm > 0 && sm < 1000)
                gd_arch_add(archs, max, narchs, sm, ptx);
        }
    }
    return cuda[0] != '\0';
}

bool gd_metadata_version_parse(const char *buf, size_t len, char *version, size_t vlen)
{
    return line_after(buf, len, "Version:", version, vlen) && version[0];
}

bool gd_toolkit_version_parse(const char *buf, size_t len, char *version, size_t vlen)
{
    char line[128];
    if (line_after(buf, len, "CUDA Version", line, sizeof line)) {
        snprintf(version, vlen, "%s", line);
        return gd_cuda_version_parse(version) != 0;
    }
    /* version.json: the "version" inside the "cuda" object. */
    const char *c = after_key(buf, len, "cuda");
    if (!c)
        return false;
    const char *v = after_key(c, len - (size_t)(c - buf), "version");
    if (!v || v >= buf + len || *v != '"')
        return false;
    const char *q = memchr(v + 1, '"', len - (size_t)(v + 1 - buf));
    if (!q)
        return false;
    snprintf(version, vlen, "%.*s", (int)(q - v - 1), v + 1);
    return gd_cuda_version_parse(version) != 0;
}
