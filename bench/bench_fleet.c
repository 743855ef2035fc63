/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `gpudoctor fleet` over many nodes' reports: N `check --json` reports
 * (default 1 000 and 10 000) made from real reports of simulated 8x H100
 * nodes, each with its own host name, GPU UUIDs and figures a little apart
 * (most under load, a quarter idle, one in 50 with its own findings, one in
 * 1 000 with a hot GPU), in a temporary folder. Timed in the same run, best
 * of BENCH_REPEAT (3): `gpudoctor fleet DIR --json` and the text form,
 * against `jq -c . FILES >/dev/null` over the same files (the least a tool
 * that reads every report costs). Target: fleet within 3x of jq, and a
 * peak RSS that grows only with what it keeps per node (a few hundred
 * bytes per GPU and finding), not with the reports' bytes.
 * Usage: bench_fleet [N...]   (BENCH_FLEET_KEEP=1 keeps the folders;
 * BENCH_FLEET_BINARY=PATH times another gpudoctor, an older build for a
 * before and after on the same reports)
 */
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define JQ "/usr/bin/jq"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One run of argv, its output to /dev/null: wall time, peak RSS in KiB; -1 on failure. */
static int run(char *const *argv, double *wall, long *peak_kib)
{
    double t0 = now();
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) > 2)
        return -1;
    *wall = now() - t0;
    *peak_kib = ru.ru_maxrss;
    return 0;
}

/* The best wall time of `repeat` runs and the largest peak RSS; -1 on failure. */
static int best_of(char *const *argv, int repeat, double *best, long *peak_kib)
{
    *best = 1e300;
    *peak_kib = 0;
    for (int i = 0; i < repeat; i++) {
        double w;
        long kib;
        if (run(argv, &w, &kib) != 0)
            return -1;
        *best = w < *best ? w : *best;
        *peak_kib = kib > *peak_kib ? kib : *peak_kib;
    }
    return 0;
}

/* `gpudoctor check --json --sim EXAMPLE --duration 10`, parsed; NULL on failure. */
static json_t *check_report(const char *example)
{
    char path[1024], tmp[] = "/tmp/bench_fleet_report_XXXXXX";
    snprintf(path, sizeof path, "%s/%s", GD_EXAMPLES_DIR, example);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return NULL;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (dup2(fd, 1) < 0 || !freopen("/dev/null", "w", stderr))
            _exit(126);
        execl(GD_BINARY, GD_BINARY, "check", "--json", "--sim", path, "--duration", "10", (char *)NULL);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    close(fd);
    json_error_t je;
    json_t *j = json_load_file(tmp, 0, &je);
    unlink(tmp);
    if (!j)
        fprintf(stderr, "bench_fleet: check --sim %s gave no report: %s\n", example, je.text);
    return j;
}

/* Node i's report: the kind its number picks, its own name, UUIDs and figures. */
static int write_node(const char *dir, size_t i, json_t *const kinds[4])
{
    /* One in 50 with its own findings (Xid or a lowered power limit), a quarter idle, the rest training. */
    json_t *r = i % 50 == 7 ? kinds[2 + (i / 50) % 2] : i % 4 == 1 ? kinds[1] : kinds[0];
    json_t *copy = json_deep_copy(r);
    char name[64], uuid[64], path[1200];
    snprintf(name, sizeof name, "gpu-node-%05zu", i);
    json_object_set_new(json_object_get(copy, "host"), "hostname", json_string(name));
    json_t *gpus = json_object_get(copy, "gpus");
    for (size_t g = 0; g < json_array_size(gpus); g++) {
        json_t *gpu = json_array_get(gpus, g);
        snprintf(uuid, sizeof uuid, "GPU-5e1d1f3a-%04zx-4000-8000-%012zx", g, i);
        json_object_set_new(gpu, "uuid", json_string(uuid));
        json_t *med = json_object_get(json_object_get(gpu, "window"), "loaded_median");
        json_t *t = json_object_get(med, "temp_c"), *w = json_object_get(med, "power_w");
        if (json_is_number(t)) /* real nodes differ a little; one in 1 000 has a hot GPU 3 */
            json_object_set_new(med, "temp_c",
                                json_integer((json_int_t)json_number_value(t) + (json_int_t)((i + g) % 3) +
                                             (i % 1000 == 500 && g == 3 ? 14 : 0)));
        if (json_is_number(w))
            json_object_set_new(med, "power_w",
                                json_integer((json_int_t)json_number_value(w) + (json_int_t)((i * 3 + g) % 5) * 4));
    }
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    int rc = json_dump_file(copy, path, JSON_INDENT(2));
    json_decref(copy);
    return rc;
}

static void remove_dir(const char *dir, size_t n)
{
    char path[1200];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/gpu-node-%05zu.json", dir, i);
        unlink(path);
    }
    rmdir(dir);
}

static int bench(size_t n, json_t *const kinds[4], int repeat, bool have_jq)
{
    char dir[] = "/tmp/bench_fleet_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    double t0 = now();
    for (size_t i = 0; i < n; i++)
        if (write_node(dir, i, kinds) != 0) {
            fprintf(stderr, "bench_fleet: cannot write %s: %s\n", dir, strerror(errno));
            remove_dir(dir, n);
            return 1;
        }
    double made = now() - t0;
    struct stat sb;
    char first[1200];
    snprintf(first, sizeof first, "%s/gpu-node-00000.json", dir);
    off_t bytes = stat(first, &sb) == 0 ? sb.st_size : 0;
    printf("fleet: %zu reports of about %lld bytes in %s (made in %.1f s)\n", n, (long long)bytes, dir, made);

    char **jq_argv = calloc(n + 4, sizeof *jq_argv), **files = calloc(n + 1, sizeof *files);
    if (!jq_argv || !files) {
        free(jq_argv);
        free(files);
        remove_dir(dir, n);
        return 1;
    }
    jq_argv[0] = JQ;
    jq_argv[1] = "-c";
    jq_argv[2] = ".";
    for (size_t i = 0; i < n; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/gpu-node-%05zu.json", dir, i);
        jq_argv[3 + i] = files[i] = strdup(path);
    }
    jq_argv[3 + n] = NULL;
    const char *other = getenv("BENCH_FLEET_BINARY");
    char *bin = other && *other ? (char *)other : GD_BINARY;
    char *json_argv[] = {bin, "fleet", dir, "--json", NULL};
    char *text_argv[] = {bin, "fleet", dir, NULL};
    if (other && *other)
        printf("  timing %s\n", bin);
    double t_json, t_text, t_jq = 0;
    long kib_json, kib_text, kib_jq = 0;
    int rc = 0;
    if (best_of(json_argv, repeat, &t_json, &kib_json) != 0 || best_of(text_argv, repeat, &t_text, &kib_text) != 0) {
        fprintf(stderr, "bench_fleet: %s fleet %s failed\n", bin, dir);
        rc = 1;
    } else if (have_jq && best_of(jq_argv, repeat, &t_jq, &kib_jq) != 0) {
        fprintf(stderr, "bench_fleet: jq failed on %s\n", dir);
        rc = 1;
    }
    if (!rc) {
        printf("  fleet --json: %.3f s, peak RSS %ld KiB\n", t_json, kib_json);
        printf("  fleet (text): %.3f s, peak RSS %ld KiB\n", t_text, kib_text);
        if (have_jq)
            printf("  jq -c .:      %.3f s, peak RSS %ld KiB\n  ratio fleet --json / jq: %.2f, text / jq: %.2f "
                   "(target: at most 3)\n",
                   t_jq, kib_jq, t_json / t_jq, t_text / t_jq);
    }
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
    free(jq_argv);
    if (getenv("BENCH_FLEET_KEEP"))
        printf("  kept %s\n", dir);
    else
        remove_dir(dir, n);
    return rc;
}

int main(int argc, char **argv)
{
    static const char *const examples[4] = {"h100x8-training.json", "h100x8-idle.json", "h100x8-xid.json",
                                            "h100x8-power-limit-lowered.json"};
    json_t *kinds[4] = {0};
    for (int k = 0; k < 4; k++)
        if (!(kinds[k] = check_report(examples[k])))
            return 1;
    bool have_jq = access(JQ, X_OK) == 0;
    if (!have_jq)
        printf("fleet: no %s here: the ratio to jq is skipped, fleet's times and memory measured\n", JQ);
    const char *rep = getenv("BENCH_REPEAT");
    int repeat = rep && atoi(rep) > 0 ? atoi(rep) : 3;
    int rc = 0;
    if (argc > 1)
        for (int i = 1; i < argc && !rc; i++)
            rc = bench(strtoul(argv[i], NULL, 10), kinds, repeat, have_jq);
    else
        rc = bench(1000, kinds, repeat, have_jq) || bench(10000, kinds, repeat, have_jq);
    for (int k = 0; k < 4; k++)
        json_decref(kinds[k]);
    return rc;
}
