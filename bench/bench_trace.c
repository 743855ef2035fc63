/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_trace: the cost of gpudoctor trace, as ratios against references
 * taken in the same run (bench/README.md).
 *
 *   bench_trace [--big MB] [FILE.json.gz ...]
 *
 * Per trace (default: the ResNet-50 traces of shared/realdata, and one of
 * about --big MB, default 512, built by replicating a real trace's events
 * with shifted timestamps and correlation ids):
 *   - parse: our reader and the analysis over the JSON in memory, one core, MB/s
 *   - yajl: yajl_parse over the same bytes with no callbacks (the least a
 *     yajl-based reader costs), MB/s, and the ratio
 *   - gz: gpudoctor trace FILE.json.gz --json, wall time against
 *     zcat FILE.json.gz >/dev/null on the same file (>1: faster than zcat)
 *   - peak RSS of that gpudoctor process
 */
#include "analysis/trace/trace.h"
#include "formats/trace/trace_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#ifdef GD_HAVE_YAJL
#include <yajl/yajl_parse.h>
#endif

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *gunzip_file(const char *path, size_t *len)
{
    gzFile g = gzopen(path, "rb");
    if (!g)
        return NULL;
    size_t cap = 64u << 20, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (cap - n < (1u << 20))
            buf = realloc(buf, cap *= 2);
        int k = gzread(g, buf + n, (unsigned)(cap - n));
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    gzclose(g);
    *len = n;
    return buf;
}

static double best_of(int runs, double (*f)(const char *, size_t), const char *d, size_t n)
{
    double best = 1e30;
    for (int i = 0; i < runs; i++) {
        double t = f(d, n);
        if (t < best)
            best = t;
    }
    return best;
}

static double time_ours(const char *d, size_t n)
{
    double t0 = now();
    gd_trace_acc *acc = gd_trace_acc_new();
    gd_trace_meta meta;
    char err[256];
    gd_trace_result r;
    gd_trace_opts o;
    gd_trace_opts_default(&o);
    if (gd_trace_read_mem(d, n, acc, &meta, err, sizeof err) || gd_trace_analyze(acc, &meta, &o, &r, err, sizeof err)) {
        fprintf(stderr, "bench_trace: %s\n", err);
        exit(1);
    }
    gd_trace_result_free(&r);
    gd_trace_acc_free(acc);
    return now() - t0;
}

#ifdef GD_HAVE_YAJL
static double time_yajl(const char *d, size_t n)
{
    double t0 = now();
    yajl_handle h = yajl_alloc(NULL, NULL, NULL);
    for (size_t off = 0; off < n; off += 1u << 20) {
        size_t k = n - off < (1u << 20) ? n - off : 1u << 20;
        if (yajl_parse(h, (const unsigned char *)d + off, k) != yajl_status_ok) {
            fprintf(stderr, "bench_trace: yajl refused the trace\n");
            exit(1);
        }
    }
    yajl_complete_parse(h);
    yajl_free(h);
    return now() - t0;
}
#endif

/* Runs argv with stdout to /dev/null; returns wall seconds, and peak RSS in KiB. */
static double run_child(char *const argv[], long *rss_kib)
{
    fflush(stdout);
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        freopen("/dev/null", "w", stdout);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    struct rusage ru;
    wait4(pid, &st, 0, &ru);
    double t = now() - t0;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "bench_trace: %s failed\n", argv[0]);
        exit(1);
    }
    if (rss_kib)
        *rss_kib = ru.ru_maxrss;
    return t;
}

static void bench_file(const char *gz, const char *label)
{
    size_t n;
    char *json = gunzip_file(gz, &n);
    if (!json) {
        fprintf(stderr, "bench_trace: cannot read %s\n", gz);
        exit(1);
    }
    int runs = n > (256u << 20) ? 1 : 5;
    double ours = best_of(runs, time_ours, json, n);
    printf("%-44s %7.1f MB  parse %7.0f MB/s", label, (double)n / 1e6, (double)n / 1e6 / ours);
#ifdef GD_HAVE_YAJL
    double y = best_of(runs, time_yajl, json, n);
    printf("  yajl %6.0f MB/s (ours %4.1fx)", (double)n / 1e6 / y, y / ours);
#endif
    free(json);
    char *zcat[] = {"zcat", (char *)gz, NULL};
    char *tool[] = {GD_BINARY, "trace", (char *)gz, "--json", NULL};
    double tz = 1e30, tt = 1e30;
    long rss = 0;
    for (int i = 0; i < (runs > 3 ? 3 : runs); i++) {
        double a = run_child(zcat, NULL), b = run_child(tool, &rss);
        tz = a < tz ? a : tz;
        tt = b < tt ? b : tt;
    }
    printf("  .gz %6.3f s, zcat %6.3f s (%.2fx)  peak RSS %5.1f MiB\n", tt, tz, tz / tt, (double)rss / 1024);
    fflush(stdout);
}

/* The big trace: the events of src replicated with ts and correlation shifted, gzipped fast. */
static void build_big(const char *src, size_t mb, const char *out_gz)
{
    size_t n = 0;
    char *json = gunzip_file(src, &n);
    char *open = strstr(json, "\"traceEvents\"");
    char *first = open ? strchr(open, '[') : NULL;
    char *last = strrchr(json, ']');
    if (!first || !last || last < first) {
        fprintf(stderr, "bench_trace: %s has no traceEvents\n", src);
        exit(1);
    }
    gzFile g = gzopen(out_gz, "wb1");
    gzwrite(g, json, (unsigned)(first + 1 - json));
    const char *ev = first + 1;
    size_t evlen = (size_t)(last - ev);
    size_t copies = mb * 1000000 / (evlen + 1) + 1;
    const long long span = 10000000, corr_shift = 100000000; /* 10 s and 1e8 ids per copy */
    char *tmp = malloc(evlen * 2 + 1024);
    for (size_t k = 0; k < copies; k++) {
        /* Rewrite "ts": N and "correlation": N with the copy's offsets. */
        size_t o = 0;
        for (size_t i = 0; i < evlen;) {
            const char *p = ev + i;
            int is_ts = evlen - i > 5 && memcmp(p, "\"ts\":", 5) == 0;
            int is_corr = evlen - i > 14 && memcmp(p, "\"correlation\":", 14) == 0;
            if (is_ts || is_corr) {
                size_t klen = is_ts ? 5 : 14;
                memcpy(tmp + o, p, klen);
                o += klen, i += klen;
                while (i < evlen && ev[i] == ' ')
                    tmp[o++] = ev[i++];
                char *end;
                long long v = strtoll(ev + i, &end, 10);
                if (end == ev + i)
                    continue;
                o += (size_t)sprintf(tmp + o, "%lld", v + (long long)k * (is_ts ? span : corr_shift));
                i = (size_t)(end - ev);
                continue;
            }
            tmp[o++] = ev[i++];
        }
        gzwrite(g, tmp, (unsigned)o);
        gzwrite(g, k + 1 < copies ? ",\n" : "\n", k + 1 < copies ? 2 : 1);
    }
    gzwrite(g, last, (unsigned)(json + n - last));
    gzclose(g);
    free(tmp);
    free(json);
}

int main(int argc, char **argv)
{
    size_t big_mb = 512;
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "--big") == 0) {
        big_mb = (size_t)atol(argv[2]);
        first = 3;
    }
    static const char *const resnet[] = {
        "resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
        "resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz",
        "resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz",
        "resnet50_num_workers_4/worker0.1623213129365.pt.trace.json.gz",
    };
    printf("bench_trace: inflater %s, %ld cores\n", gd_trace_inflater(), sysconf(_SC_NPROCESSORS_ONLN));
    char path[2048];
    if (first < argc) {
        for (int i = first; i < argc; i++)
            bench_file(argv[i], strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i]);
    } else {
        for (size_t i = 0; i < 4; i++) {
            snprintf(path, sizeof path, "%s/traces/kineto_tb_plugin/samples/%s", GD_REALDATA_DIR, resnet[i]);
            if (access(path, R_OK) != 0) {
                fprintf(stderr, "bench_trace: no %s (shared/realdata missing)\n", path);
                return 1;
            }
            bench_file(path, resnet[i] + 9);
        }
    }
    if (big_mb) {
        snprintf(path, sizeof path, "%s/traces/kineto_tb_plugin/samples/%s", GD_REALDATA_DIR, resnet[0]);
        char big[] = "/tmp/bench_trace_XXXXXX";
        int fd = mkstemp(big);
        close(fd);
        char gz[64];
        snprintf(gz, sizeof gz, "%s.json.gz", big);
        double t0 = now();
        build_big(path, big_mb, gz);
        printf("(built %s from %s in %.1f s)\n", gz, resnet[0], now() - t0);
        char label[64];
        snprintf(label, sizeof label, "replicated (~%zu MB)", big_mb);
        bench_file(gz, label);
        if (getenv("BENCH_TRACE_KEEP")) /* to profile the analysis on it afterwards */
            printf("(kept %s)\n", gz);
        else
            unlink(gz);
        unlink(big);
    }
    return 0;
}
