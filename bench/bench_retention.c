/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Memory of long sessions: a 24-hour `check --sim` (played on the fast
 * scenario clock) against a 1-hour one, peak RSS of each child process
 * measured in the same run, for a scenario of GPUs alone and one with a host
 * /proc (the host's series beside the GPUs'). Every series is a ring of the
 * newest hour, so the ratios should stay within 1.10; the wall time shows
 * what a day of 8 simulated GPUs costs to sample.
 *
 * `bench_retention export [SECONDS]`: `gpudoctor export --interval 100` of
 * the 8-GPU HGX scenario (NVLink counters included) for a simulated day (or
 * SECONDS) against the same for its first minute, each scraped over HTTP
 * every half second of wall time while it runs (/proc/PID/status VmRSS read
 * at each scrape). Scenario time runs as fast as the exporter samples
 * (GPUDOCTOR_SIM_TIMESCALE=1e9: the same sampling, judging and publishing
 * code, 10 samples a scenario second: 864 000 samples per GPU for a day,
 * counted from the exporter's last line). Its series keep its --window
 * (60 s), so the day's peak RSS must stay within 1.10 of the minute's.
 *
 * `bench_retention replay [MB]`: `check --from` of a recording of 8 GPUs at
 * 10 Hz of MB megabytes (default 200: about 3.3 hours) against one of an
 * hour (about 60 MB), both built from a minute's recording of the training
 * scenario repeated (the header's window made a day: the replay keeps the
 * newest hour, as the live run would). A replay is a stream: its peak RSS
 * must stay within 1.10 of the hour's, whatever the file's size.
 * Usage: bench_retention [INTERVAL_MS]   (default 1000)
 *        bench_retention export [SECONDS] (default 86400)
 *        bench_retention replay [MB]      (default 200)
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Peak RSS in KiB of argv (its output discarded), and its wall time; -1 on failure. */
static long run_peak_kib(const char *const *argv, double *wall)
{
    double t0 = now();
    fflush(stdout); /* the child's freopen would write what is buffered again */
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(126);
        unsetenv("GPUDOCTOR_SIM_TIMESCALE"); /* the fast clock */
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) > 2)
        return -1;
    *wall = now() - t0;
    return ru.ru_maxrss;
}

/* Peak RSS in KiB of `check --sim SCENARIO --duration SECONDS`, and its wall
 * time; -1 on failure. */
static long peak_kib(const char *scenario, const char *seconds, const char *interval, double *wall)
{
    const char *const argv[] = {GD_BINARY,    "check",  "--json", "--duration", seconds,
                                "--interval", interval, "--sim",  scenario,     NULL};
    return run_peak_kib(argv, wall);
}

/* One exporter run, watched from outside. */
typedef struct export_run {
    long peak_kib; /* the child's ru_maxrss */
    long rss_first, rss_max, rss_last; /* VmRSS at the scrapes, KiB */
    unsigned long samples; /* from its "stopped after N samples" line */
    unsigned scrapes, scrape_failures;
    double wall_s;
} export_run;

static long vm_rss_kib(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *fp = fopen(path, "r");
    long kib = -1;
    while (fp && fgets(line, sizeof line, fp))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    if (fp)
        fclose(fp);
    return kib;
}

/* GET /metrics from the exporter: true when it answers 200 with GPU series. */
static bool scrape(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return false;
    struct timeval tv = {.tv_sec = 10};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    static const char req[] = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    static char body[1 << 20]; /* the exposition of 8 GPUs is about 100 KB */
    size_t n = 0;
    bool ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0 && write(fd, req, sizeof req - 1) == sizeof req - 1;
    for (ssize_t r; ok && n + 1 < sizeof body && (r = read(fd, body + n, sizeof body - 1 - n)) > 0;)
        n += (size_t)r;
    close(fd);
    body[n] = '\0';
    return ok && strncmp(body, "HTTP/1.", 7) == 0 && strstr(body, " 200 ") && strstr(body, "\nDCGM_FI_DEV_GPU_TEMP{");
}

/* `export --duration SECONDS --interval 100` of scenario, scraped every half
 * second of wall time; 0, or -1 when it failed. */
static int run_exporter(const char *scenario, const char *seconds, export_run *out)
{
    *out = (export_run){.rss_first = -1};
    char log[] = "/tmp/bench_retention_XXXXXX";
    int logfd = mkstemp(log);
    if (logfd < 0)
        return -1;
    double t0 = now();
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || dup2(logfd, 2) < 0)
            _exit(126);
        setenv("GPUDOCTOR_SIM_TIMESCALE", "1e9", 1); /* the exporter paces itself unless told */
        execl(GD_BINARY, GD_BINARY, "export", "--listen", "127.0.0.1:0", "--duration", seconds, "--interval", "100",
              "--sim", scenario, (char *)NULL);
        _exit(127);
    }
    unsigned port = 0;
    double next_scrape = 0;
    int status = 0;
    struct rusage ru;
    pid_t done = 0;
    while (pid > 0 && (done = wait4(pid, &status, WNOHANG, &ru)) == 0) {
        char text[4096];
        ssize_t k = pread(logfd, text, sizeof text - 1, 0);
        text[k > 0 ? k : 0] = '\0';
        const char *at = strstr(text, "serving http://127.0.0.1:");
        if (!port && at)
            port = (unsigned)strtoul(at + strlen("serving http://127.0.0.1:"), NULL, 10);
        long rss = vm_rss_kib(pid);
        if (port && rss > 0 && now() >= next_scrape) {
            next_scrape = now() + 0.5;
            bool ok = scrape(port);
            if (waitpid(pid, NULL, WNOHANG | WNOWAIT) != 0 && !ok)
                break; /* it ended while we asked */
            out->scrapes += ok;
            out->scrape_failures += !ok;
            out->rss_first = out->rss_first < 0 ? rss : out->rss_first;
            out->rss_max = rss > out->rss_max ? rss : out->rss_max;
            out->rss_last = rss;
        }
        usleep(20000); /* the end is seen within 20 ms: the wall time is the exporter's */
    }
    if (pid > 0 && done == 0)
        done = wait4(pid, &status, 0, &ru);
    out->wall_s = now() - t0;
    char text[8192];
    ssize_t k = pread(logfd, text, sizeof text - 1, 0);
    text[k > 0 ? k : 0] = '\0';
    close(logfd);
    unlink(log);
    const char *at = strstr(text, "stopped after ");
    if (at)
        out->samples = strtoul(at + strlen("stopped after "), NULL, 10);
    if (pid < 0 || done != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench_retention: the exporter failed: %s\n", text);
        return -1;
    }
    out->peak_kib = ru.ru_maxrss;
    return 0;
}

static int exporter_day(const char *seconds)
{
    const char *scenario = GD_EXAMPLES_DIR "/h100x8-nvlink-errors.json";
    export_run minute, day;
    if (run_exporter(scenario, "60", &minute) != 0 || run_exporter(scenario, seconds, &day) != 0)
        return 1;
    double ratio = (double)day.peak_kib / (double)minute.peak_kib;
    unsigned long want = (unsigned long)(atof(seconds) * 10 + 0.5) + 1; /* a sample at 0 s and every 100 ms */
    printf("retention (export at 10 Hz, 8 GPUs): 1 min: %lu samples, peak RSS %ld KiB (%.2f s, %u scrapes); %s s: "
           "%lu samples, peak RSS %ld KiB (%.1f s, %.0f samples/s, %u scrapes, VmRSS first %ld, max %ld, last %ld "
           "KiB); ratio %.3f (want <= 1.10)\n",
           minute.samples, minute.peak_kib, minute.wall_s, minute.scrapes, seconds, day.samples, day.peak_kib,
           day.wall_s, (double)day.samples / day.wall_s, day.scrapes, day.rss_first, day.rss_max, day.rss_last, ratio);
    if (day.samples != want || day.scrapes == 0) {
        fprintf(stderr, "bench_retention: the day took %lu samples (want %lu) and %u scrapes (%u failed)\n",
                day.samples, want, day.scrapes, day.scrape_failures);
        return 1;
    }
    return ratio <= 1.10 ? 0 : 1;
}

/* A recording of `copies` minutes built from a minute's (`minute`, `len`
 * bytes): its header with a day's window, the samples repeated with their
 * times moved on, its end record. The bytes written; 0 on failure. */
static size_t build_recording(const char *minute, size_t len, int copies, const char *path)
{
    const char *first = memchr(minute, '\n', len), *end = strstr(minute, "\n{\"end\":");
    const char *window = strstr(minute, "\"window_s\":60,");
    FILE *out = fopen(path, "wb");
    if (!first || !end || !window || window > first || !out) {
        if (out)
            fclose(out);
        return 0;
    }
    first++;
    fwrite(minute, 1, (size_t)(window - minute), out);
    fputs("\"window_s\":86400,", out);
    fwrite(window + strlen("\"window_s\":60,"), 1, (size_t)(first - (window + strlen("\"window_s\":60,"))), out);
    for (int copy = 0; copy < copies; copy++)
        for (const char *l = first; l <= end;) {
            const char *nl = memchr(l, '\n', (size_t)(minute + len - l));
            double t;
            int at;
            if (sscanf(l, "{\"t\":%lf,%n", &t, &at) == 1 && strncmp(l + at, "\"gpus\"", 6) == 0) {
                fprintf(out, "{\"t\":%.1f,", t + 60.1 * copy);
                fwrite(l + at, 1, (size_t)(nl + 1 - (l + at)), out);
            }
            l = nl + 1;
        }
    fputs(end + 1, out);
    long size = ftell(out);
    return fclose(out) == 0 && size > 0 ? (size_t)size : 0;
}

static int replay_big(const char *mb)
{
    char dir[] = "/tmp/bench_retention_XXXXXX", minute[256], hour[256], big[256];
    if (!mkdtemp(dir))
        return 1;
    snprintf(minute, sizeof minute, "%s/minute.jsonl", dir);
    snprintf(hour, sizeof hour, "%s/hour.jsonl", dir);
    snprintf(big, sizeof big, "%s/big.jsonl", dir);
    double wall;
    const char *const rec[] = {GD_BINARY,    "check", "--json",
                               "--duration", "60",    "--interval",
                               "100",        "--sim", GD_EXAMPLES_DIR "/h100x8-training.json",
                               "--record",   minute,  NULL};
    FILE *in = run_peak_kib(rec, &wall) >= 0 ? fopen(minute, "rb") : NULL;
    char *text = in ? malloc(64u << 20) : NULL;
    size_t len = text ? fread(text, 1, (64u << 20) - 1, in) : 0;
    if (in)
        fclose(in);
    int rc = 1;
    if (len) {
        text[len] = '\0';
        size_t per_minute = len;
        int copies = (int)(atof(mb) * 1e6 / (double)per_minute + 0.5);
        size_t hour_bytes = build_recording(text, len, 60, hour), big_bytes = build_recording(text, len, copies, big);
        double hour_s, big_s;
        const char *const hour_argv[] = {GD_BINARY, "check", "--json", "--from", hour, NULL};
        const char *const big_argv[] = {GD_BINARY, "check", "--json", "--from", big, NULL};
        long hour_kib = hour_bytes ? run_peak_kib(hour_argv, &hour_s) : -1;
        long big_kib = big_bytes ? run_peak_kib(big_argv, &big_s) : -1;
        if (hour_kib > 0 && big_kib > 0) {
            double ratio = (double)big_kib / (double)hour_kib;
            printf("retention (replay of a recording, 8 GPUs at 10 Hz): 1 h, %.1f MB: peak RSS %ld KiB (%.2f s, %.0f "
                   "MB/s); %d min, %.1f MB: peak RSS %ld KiB (%.2f s, %.0f MB/s); ratio %.3f (want <= 1.10)\n",
                   hour_bytes / 1e6, hour_kib, hour_s, hour_bytes / 1e6 / hour_s, copies, big_bytes / 1e6, big_kib,
                   big_s, big_bytes / 1e6 / big_s, ratio);
            rc = ratio <= 1.10 ? 0 : 1;
        } else {
            fprintf(stderr, "bench_retention: a replay failed\n");
        }
    }
    free(text);
    unlink(minute);
    unlink(hour);
    unlink(big);
    rmdir(dir);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "export") == 0)
        return exporter_day(argc > 2 ? argv[2] : "86400");
    if (argc > 1 && strcmp(argv[1], "replay") == 0)
        return replay_big(argc > 2 ? argv[2] : "200");
    const char *interval = argc > 1 ? argv[1] : "1000";
    static const char *const scenarios[] = {GD_EXAMPLES_DIR "/h100x8-training.json",
                                            GD_EXAMPLES_DIR "/h100x8-input-io-wait.json"};
    int rc = 0;
    for (size_t k = 0; k < sizeof scenarios / sizeof scenarios[0]; k++) {
        double hour_s, day_s;
        long hour = peak_kib(scenarios[k], "3600", interval, &hour_s);
        long day = peak_kib(scenarios[k], "86400", interval, &day_s);
        if (hour < 0 || day < 0) {
            fprintf(stderr, "bench_retention: a check of %s failed\n", scenarios[k]);
            return 1;
        }
        double ratio = (double)day / (double)hour;
        printf("retention (%s): 1 h peak RSS %ld KiB (%.2f s), 24 h peak RSS %ld KiB (%.2f s), ratio %.3f (want <= "
               "1.10) at --interval %s\n",
               k == 0 ? "GPUs" : "GPUs and host", hour, hour_s, day, day_s, ratio, interval);
        rc |= ratio <= 1.10 ? 0 : 1;
    }
    return rc;
}
