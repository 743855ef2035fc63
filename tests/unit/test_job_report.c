/* SPDX-License-Identifier: Apache-2.0 */
/* The job's text in run's and check --pid's report: what it says of a job
 * that ended before it was sampled, and of CPUs allowed beside CPUs online. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"
#include "gpudoctor/job.h"
#include "gpudoctor/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The job's text for a job of pid 7 with one process slot (comm given). */
static char *job_text(size_t procs_max, const char *comm, int allowed, int online)
{
    gd_facts f;
    fx_facts(&f, 1, 3);
    gd_job_facts *j = calloc(1, sizeof *j);
    j->read = true;
    j->pid = 7;
    snprintf(j->comm, sizeof j->comm, "%s", comm);
    j->procs_max = procs_max;
    j->procs_seen = 1;
    j->ended = true;
    j->procs = calloc(1, sizeof *j->procs);
    j->proc_count = 1;
    j->procs[0].pid = 7;
    j->procs[0].rank = -1;
    snprintf(j->procs[0].comm, sizeof j->procs[0].comm, "%s", comm);
    snprintf(j->affinity, sizeof j->affinity, "0-%d", allowed - 1);
    j->affinity_cpus = allowed;
    j->host_cpus = online;
    f.job = j;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    gd_text_style st = {.width = 200};
    gd_report_job_text(out, &f, &st);
    fclose(out);
    gd_facts_free(&f);
    return text;
}

static void a_job_gone_before_its_first_sample(void **state)
{
    (void)state;
    char *t = job_text(0, "", 2, 2);
    assert_non_null(strstr(t, "pid 7: ended before its first sample"));
    assert_null(strstr(t, "0 processes")); /* was "0 processes at most, 1 seen" */
    assert_null(strstr(t, "()")); /* was "trainer: pid 7 ()" */
    free(t);
    t = job_text(3, "python", 2, 2);
    assert_non_null(strstr(t, "pid 7 (python): 3 processes at most, 1 seen"));
    free(t);
}

static void cpus_allowed_beside_cpus_online(void **state)
{
    (void)state;
    char *t = job_text(1, "python", 64, 2);
    assert_non_null(strstr(t, "CPUs 0-63 (64 allowed, 2 online)"));
    assert_null(strstr(t, "(64 of 2)"));
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_job_gone_before_its_first_sample),
        cmocka_unit_test(cpus_allowed_beside_cpus_online),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
