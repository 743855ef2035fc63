/* SPDX-License-Identifier: Apache-2.0 */
/* Scenarios, pages and a headless Chromium for the HTML report's tests. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "report_fixture.h"
#include "run_tool.h"

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef GD_HAVE_PNG
#include <png.h>
#endif

double scenario_temp(size_t g, size_t i)
{
    return 45 + (double)((i * 7 + g * 3) % 40);
}

/* A small deterministic generator: the same scenario every run. */
static double noise(unsigned *state, double lo, double hi)
{
    *state = *state * 1103515245u + 12345u;
    return lo + (hi - lo) * (double)((*state >> 8) % 10000) / 10000.0;
}

static json_t *gpu_json(size_t g, const scenario_opts *o)
{
    char uuid[64], bus[32];
    snprintf(uuid, sizeof uuid, "GPU-7e57da7a-0000-0000-0000-%012zu", g);
    snprintf(bus, sizeof bus, "00000000:%02zX:00.0", 0x18 + g * 0x11);
    json_t *gpu = json_pack("{s:s, s:s, s:s, s:[i,i], s:i, s:i, s:i, s:i, s:i, s:{s:i, s:i}, s:{s:i, s:i}, "
                            "s:{s:i, s:i, s:i, s:i}, s:{s:i, s:i}, s:b}",
                            "name", o->gpu_name ? o->gpu_name : "NVIDIA H100 80GB HBM3", "uuid", uuid, "pci_bus_id",
                            bus, "compute_capability", 9, 0, "memory_total_mib", 81559, "power_limit_w", 700,
                            "power_limit_default_w", 700, "power_limit_min_w", 200, "power_limit_max_w", 700,
                            "clocks_max_mhz", "sm", 1980, "mem", 2619, "clocks_default_app_mhz", "sm", 1755, "mem",
                            2619, "temperature_thresholds_c", "shutdown", 92, "slowdown", 89, "gpu_max", 87, "mem_max",
                            95, "pcie_max", "gen", 5, "width", 16, "persistence_mode", 1);
    json_object_set_new(gpu, "processes",
                        json_pack("[{s:i, s:s, s:i}]", "pid", (int)(41000 + g), "name",
                                  g == 0 && o->process_name ? o->process_name : "python", "used_mib", 60000));
    json_t *tl = json_array();
    unsigned st = (unsigned)g * 7919u + 1;
    for (size_t i = 0; i < o->points; i++) {
        json_t *p = json_pack("{s:i, s:f}", "t", (int)i, "temp_c", scenario_temp(g, i));
        if (i == 0 || o->noisy) {
            json_object_set_new(p, "sm_clock_mhz", json_real(o->noisy ? noise(&st, 1400, 1980) : 1980));
            json_object_set_new(p, "power_w", json_real(o->noisy ? noise(&st, 300, 690) : 550));
            json_object_set_new(p, "util_gpu_pct", json_real(o->noisy ? noise(&st, 60, 100) : 98));
            json_object_set_new(p, "util_mem_pct", json_real(o->noisy ? noise(&st, 20, 60) : 40));
            json_object_set_new(p, "mem_used_mib", json_real(o->noisy ? noise(&st, 50000, 70000) : 61000));
            json_object_set_new(p, "pcie_tx_kbps", json_real(o->noisy ? noise(&st, 1e5, 5e6) : 2e6));
            json_object_set_new(p, "pcie_rx_kbps", json_real(o->noisy ? noise(&st, 1e5, 5e6) : 2e6));
            json_object_set_new(p, "pcie_gen", json_integer(5));
            json_object_set_new(p, "pcie_width", json_integer(16));
            json_object_set_new(p, "mem_clock_mhz", json_integer(2619));
        }
        if (o->noisy && noise(&st, 0, 1) < 0.1)
            json_object_set_new(p, "event_reasons", json_pack("[s]", "sw_thermal_slowdown"));
        else if (i == 0 || o->noisy)
            json_object_set_new(p, "event_reasons", json_array());
        json_array_append_new(tl, p);
    }
    json_object_set_new(gpu, "timeline", tl);
    return gpu;
}

char *write_scenario(const char *dir, const char *name, const scenario_opts *o)
{
    json_t *gpus = json_array();
    for (size_t g = 0; g < o->gpus; g++)
        json_array_append_new(gpus, gpu_json(g, o));
    json_t *s = json_pack("{s:s, s:s, s:i, s:o}", "description", "HTML report test machine", "driver_version",
                          "550.54.15", "cuda_driver_version", 12040, "gpus", gpus);
    char *text = json_dumps(s, JSON_COMPACT);
    char *path = write_temp_file(dir, name, text);
    free(text);
    json_decref(s);
    return path;
}

char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
    }
    fclose(f);
    if (buf)
        buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}

size_t count_of(const char *s, const char *needle)
{
    size_t n = 0, l = strlen(needle);
    for (const char *p = s; (p = strstr(p, needle)); p += l)
        n++;
    return n;
}

const char *chromium_path(void)
{
    static char found[1024];
    const char *env = getenv("GD_CHROMIUM");
    if (env && *env)
        return access(env, X_OK) == 0 ? env : NULL;
    const char *path = getenv("PATH");
    static const char *const names[] = {"chromium", "chromium-browser"};
    for (size_t k = 0; path && k < 2; k++) {
        const char *p = path;
        while (*p) {
            const char *colon = strchr(p, ':');
            size_t l = colon ? (size_t)(colon - p) : strlen(p);
            snprintf(found, sizeof found, "%.*s/%s", (int)l, p, names[k]);
            if (l && access(found, X_OK) == 0)
                return found;
            p += l + (colon ? 1 : 0);
        }
    }
    return NULL;
}

void need_chromium(void)
{
    need_component(chromium_path() != NULL, "chromium (Debian's package, headless)", GD_FIX_TEST_PACKAGES);
}

int chromium_run(const char *page, const char *const *extra, const char *out_file, const char *profile_dir)
{
    const char *browser = chromium_path();
    if (!browser)
        return -1;
    char profile[1200], url[1200];
    snprintf(profile, sizeof profile, "--user-data-dir=%s", profile_dir);
    snprintf(url, sizeof url, "file://%s", page);
    const char *argv[32] = {"timeout",
                            "120",
                            browser,
                            "--headless",
                            "--no-sandbox",
                            "--disable-gpu",
                            "--disable-background-networking",
                            "--no-first-run",
                            profile};
    size_t n = 9;
    for (size_t i = 0; extra && extra[i] && n < 30; i++)
        argv[n++] = extra[i];
    argv[n++] = url;
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int out = open(out_file ? out_file : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int null = open("/dev/null", O_WRONLY);
        if (out < 0 || null < 0)
            _exit(126);
        dup2(out, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int png_rgb(const char *path, unsigned *w, unsigned *h, unsigned char **rgb)
{
#ifdef GD_HAVE_PNG
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path))
        return -1;
    img.format = PNG_FORMAT_RGB;
    *rgb = malloc(PNG_IMAGE_SIZE(img));
    if (!*rgb || !png_image_finish_read(&img, NULL, *rgb, 0, NULL)) {
        free(*rgb);
        png_image_free(&img);
        return -1;
    }
    *w = img.width;
    *h = img.height;
    return 0;
#else
    (void)path;
    (void)w;
    (void)h;
    (void)rgb;
    return -1;
#endif
}

/* Nothing in the page makes the browser fetch: every tag is looked at
 * (text holds no '<': it is escaped), and the style sheet. */
void assert_self_contained(const char *page)
{
    static const char *const tags[] = {"<script", "<link",  "<img",    "<iframe", "<object", "<embed", "<base",
                                       "<video",  "<audio", "<source", "<image",  "<use",    "<frame", "<form"};
    for (const char *p = page; (p = strchr(p, '<'));) {
        const char *end = strchr(p, '>');
        assert_non_null(end);
        size_t len = (size_t)(end - p + 1);
        for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
            size_t l = strlen(tags[i]);
            if (strncasecmp(p, tags[i], l) == 0 && (p[l] == ' ' || p[l] == '>' || p[l] == '/'))
                fail_msg("the page holds a %s> tag", tags[i]);
        }
        char tag[4096];
        snprintf(tag, sizeof tag, "%.*s", (int)(len < sizeof tag ? len : sizeof tag - 1), p);
        if (strcasestr(tag, " src=") || strcasestr(tag, "url(") || strcasestr(tag, "xlink:href") ||
            strcasestr(tag, " action="))
            fail_msg("a tag that fetches: %s", tag);
        const char *href = strcasestr(tag, " href=");
        if (href && href[6 + 1] != '#')
            fail_msg("a link off the page: %s", tag);
        p = end + 1;
    }
    const char *style = strstr(page, "<style>"), *style_end = style ? strstr(style, "</style>") : NULL;
    assert_non_null(style_end);
    char *css = strndup(style, (size_t)(style_end - style));
    assert_null(strstr(css, "url("));
    assert_null(strstr(css, "@import"));
    assert_null(strstr(css, "@font-face"));
    free(css);
    assert_non_null(strstr(page, "default-src 'none'"));
    assert_non_null(strcasestr(page, "<!doctype html>"));
    assert_non_null(strstr(page, "</html>"));
}
