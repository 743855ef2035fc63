/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The job's /proc source (src/sources/proc/source_proc.c) on a fixture tree
 * whose thread stat the test rewrites between samples: a quiet thread
 * (asleep, no CPU time since the full scan before) is read again at the next
 * full scan only, counted unchanged in between; when it has woken, the
 * sample's rate takes its growth's average over the second, and its sums
 * take all of it, so that a mean over the window stays what reading it at
 * every sample would have given. A busy thread is read at every sample.
 */
#include "gpudoctor/job.h"
#include "sources/source.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

static char root[] = "/tmp/gd-source-proc-XXXXXX";
static char stat_path[128];
static double hz;

/* Rewrites thread 100's stat in place (the same file: the source may keep it open). */
static void write_stat(char state, long utime_ticks)
{
    FILE *f = fopen(stat_path, "r+");
    assert_non_null(f);
    fprintf(f, "100 (job) %c 1 100 100 0 -1 4194560 0 0 0 0 %ld 0 0 0 20 0 1 0 100 0 0      \n", state,
            utime_ticks);
    assert_int_equal(fclose(f), 0);
}

static void put(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static int make_tree(void **state)
{
    (void)state;
    if (!mkdtemp(root))
        return -1;
    char path[256];
    snprintf(path, sizeof path, "%s/100", root);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/100/task", root);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/100/task/100", root);
    mkdir(path, 0755);
    snprintf(stat_path, sizeof stat_path, "%s/100/task/100/stat", root);
    put("100/task/100/stat", "");
    put("100/task/100/status", "Name:\tjob\nvoluntary_ctxt_switches:\t1\n");
    put("100/task/100/children", "");
    put("100/status", "Name:\tjob\nCpus_allowed_list:\t0-1\nvoluntary_ctxt_switches:\t1\n");
    put("100/comm", "job\n");
    put("100/cmdline", "job");
    put("100/io", "read_bytes: 0\n");
    hz = (double)sysconf(_SC_CLK_TCK);
    return hz > 0 ? 0 : -1;
}

static int remove_tree(void **state)
{
    (void)state;
    const char *files[] = {"100/task/100/stat", "100/task/100/status", "100/task/100/children", "100/status",
                           "100/comm",          "100/cmdline",         "100/io"};
    char path[256];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", root, files[i]);
        unlink(path);
    }
    const char *dirs[] = {"100/task/100", "100/task", "100", ""};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
        rmdir(path);
    }
    return 0;
}

static void a_quiet_thread_is_read_at_full_scans_and_counted_whole(void **state)
{
    (void)state;
    write_stat('S', 0);
    gd_facts f;
    memset(&f, 0, sizeof f);
    gd_roots roots = {.proc = "", .sys = ""};
    snprintf(roots.proc, sizeof roots.proc, "%s", root);
    gd_session_opts o = {.pid = 100, .interval_s = 0.1, .duration_s = 10};
    void *self = calloc(1, gd_source_proc.size);
    char err[256];
    assert_int_equal(gd_source_proc.open(self, &o, &f, &roots, err, sizeof err), 0);
    f.job->limit = 100;
    size_t k = 0;
    /* 0 .. 1.0 s asleep: the full scan at 1 s finds it quiet. */
    for (; k <= 10; k++)
        gd_source_proc.sample(self, &f, k, (double)k * 0.1);
    /* It wakes at 1.5 s and has run half a second by 1.9 s: not read before
     * the full scan at 2 s. */
    write_stat('R', (long)(0.5 * hz));
    for (; k < 20; k++) {
        gd_source_proc.sample(self, &f, k, (double)k * 0.1);
        const gd_job_sample *s = gd_job_at(f.job, f.job->n - 1);
        assert_float_equal(s->job_cores, 0, 1e-9);
        assert_int_equal(s->threads, 1);
    }
    gd_source_proc.sample(self, &f, k++, 2.0);
    const gd_job_sample *s = gd_job_at(f.job, f.job->n - 1);
    assert_float_equal(s->job_cores, 0.5, 1e-6); /* the second's average: no spike of 5 cores */
    const gd_job_thread *t = &f.job->threads[0];
    assert_float_equal(t->busy_sum, 5.0, 1e-6); /* 0.5 s of CPU in samples of 0.1 s */
    assert_int_equal(t->measured, 20);
    /* Busy now: read at every sample, the full scan or not. */
    write_stat('R', (long)(0.6 * hz));
    gd_source_proc.sample(self, &f, k++, 2.1);
    s = gd_job_at(f.job, f.job->n - 1);
    assert_float_equal(s->job_cores, 1.0, 1e-6);
    gd_source_proc.close(self);
    free(self);
    gd_job_facts_free(f.job);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_quiet_thread_is_read_at_full_scans_and_counted_whole),
    };
    return cmocka_run_group_tests(tests, make_tree, remove_tree);
}
