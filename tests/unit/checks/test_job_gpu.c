/* SPDX-License-Identifier: Apache-2.0 */
/* job.no_gpu (src/checks/job_gpu.c): a job that `gpudoctor run` started and
 * that opened no GPU, with the causes its processes show; never a job that
 * holds a GPU, one too short to tell, one gpudoctor did not start, or one
 * beside GPUs whose processes may be its own. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "facts_fixture.h"

#include <string.h>

/* A job run started, two processes (sh, then python), that ran 19 s and
 * ended, beside 2 GPUs at 20 % that list no process. */
static gd_job_facts *run_job(gd_facts *f)
{
    gd_job_facts *j = fx_container_job(f, 2, 2);
    j->started_in_window = true;
    j->ended = true;
    j->ended_at_s = 19;
    fx_set_proc(&j->procs[0], "sh", "sh", false, false);
    fx_set_proc(&j->procs[1], "python3", "train.py", true, true);
    f->driver_loaded = true;
    return j;
}

/* The one job.no_gpu finding's causes, joined; fails unless there is one. */
static void want_cause(const gd_facts *f, const char *cause, const char *fix)
{
    gd_findings fs = fx_run_one(f, "job.no_gpu");
    const gd_finding *x = fx_only(&fs, "job.no_gpu");
    assert_int_equal(x->severity, GD_SEV_WARNING);
    assert_int_equal(x->gpu, GD_NO_GPU);
    assert_non_null(strstr(x->title, "The job used no GPU: in the 19 s it ran"));
    char *causes = json_dumps(json_object_get(x->evidence, "causes"), 0);
    if (!strstr(causes, cause) || !strstr(x->fix, fix))
        fail_msg("causes %s, fix '%s': want '%s' and '%s'", causes, x->fix, cause, fix);
    free(causes);
    gd_findings_free(&fs);
}

static void a_job_that_opened_no_gpu_is_named_with_its_cause(void **state)
{
    (void)state;
    gd_facts f;
    gd_job_facts *j = run_job(&f);
    /* torch without its CUDA half: a CPU-only build. */
    want_cause(&f, "CPU-only build", "Install a CUDA build of PyTorch");
    /* A CUDA build that never loaded the driver: the script stays on the CPU. */
    j->procs[1].torch_cuda = j->procs[1].cudart = true;
    want_cause(&f, "never the CUDA driver", "model.to(device)");
    /* The driver loaded, no device opened: CUDA saw none, or the code chose the CPU. */
    j->procs[1].cuda = true;
    want_cause(&f, "opened no GPU", "torch.cuda.is_available()");
    /* No CUDA library at all. */
    j->procs[1] = (gd_job_proc){.pid = 101, .ppid = 100, .rank = -1};
    fx_set_proc(&j->procs[1], "python3", "train.py", true, false);
    want_cause(&f, "loaded no CUDA library", "CUDA build of its framework");
    /* CUDA_VISIBLE_DEVICES that names no GPU here hides them all: said first. */
    j->procs[1].has_cuda_visible = true;
    snprintf(j->procs[1].cuda_visible, sizeof j->procs[1].cuda_visible, "%s", "");
    want_cause(&f, "names no GPU here", "Unset CUDA_VISIBLE_DEVICES");
    snprintf(j->procs[1].cuda_visible, sizeof j->procs[1].cuda_visible, "%s", "1");
    gd_findings fs = fx_run_one(&f, "job.no_gpu");
    char *causes = json_dumps(json_object_get(fx_only(&fs, "job.no_gpu")->evidence, "causes"), 0);
    assert_null(strstr(causes, "CUDA_VISIBLE_DEVICES")); /* "1" names GPU 1: not the cause */
    free(causes);
    gd_findings_free(&fs);
    gd_facts_free(&f);
}

/* No finding: "not checked", saying why. */
static void want_not_checked(const gd_facts *f, const char *why)
{
    gd_findings fs = fx_run_one(f, "job.no_gpu");
    assert_int_equal(fs.n, 0);
    if (!fx_skipped(&fs, "job.no_gpu", GD_NO_GPU, why))
        fail_msg("job.no_gpu: not \"not checked\" because %s", why);
    gd_findings_free(&fs);
}

static void a_job_on_a_gpu_or_unknown_is_never_named(void **state)
{
    (void)state;
    gd_facts f;
    gd_job_facts *j = run_job(&f);
    /* It holds /dev/nvidia1 open: it uses a GPU. */
    j->procs[1].dev_minors = 1u << 1;
    fx_assert_silent(&f, "job.no_gpu");
    j->procs[1].dev_minors = 0;
    /* Too short a life to tell, or still running after less than a minute. */
    j->ended_at_s = 3;
    want_not_checked(&f, "too short to tell");
    j->ended = false;
    want_not_checked(&f, "was watched 19 s");
    j->ended = true;
    j->ended_at_s = 19;
    /* A process gpudoctor did not start (--pid): its earlier life is unknown. */
    j->started_in_window = false;
    want_not_checked(&f, "gpudoctor run -- COMMAND");
    j->started_in_window = true;
    /* NVML lists a process that is not the job's: in a container, its host pid. */
    f.gpus[1].process_count = 1;
    f.gpus[1].processes = calloc(1, sizeof *f.gpus[1].processes);
    f.gpus[1].processes[0] = (gd_process){.pid = 777, .used_mib = gd_val(3000)};
    want_not_checked(&f, "none of the job's pids");
    f.gpus[1].process_count = 0;
    /* No driver, or no GPU: driver.missing and gpu.none speak. */
    f.driver_loaded = false;
    fx_assert_silent(&f, "job.no_gpu");
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_job_that_opened_no_gpu_is_named_with_its_cause),
        cmocka_unit_test(a_job_on_a_gpu_or_unknown_is_never_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
