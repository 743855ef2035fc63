/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run --nccl-log: the job's NCCL writes its INFO log into a folder of
 * gpudoctor's (NCCL_DEBUG_FILE, one file per process: NCCL replaces %h with
 * the host and %p with the pid), never into the job's own output; at the end
 * the files are read like `check --from` reads them. A job whose environment
 * already says how NCCL logs (NCCL_DEBUG or NCCL_DEBUG_FILE) keeps it: its
 * owner chose where NCCL's lines go, and gpudoctor reads nothing.
 */
#include "run_nccl_log.h"
#include "cli.h"
#include "core/input.h"
#include "formats/capture/import.h"
#include "gpudoctor/nccl_log.h"
#include "gpudoctor/net.h"

#include <dirent.h>
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int gd_run_nccl_log_option(gd_run_nccl_log *nl, int c, const char *arg)
{
    nl->on = true;
    if (c == 'L') {
        if (!arg[0])
            return gd_cli_error("--nccl-log-dir wants a folder");
        nl->keep_dir = arg;
    }
    return 0;
}

void gd_run_nccl_log_poll(gd_run_nccl_log *nl, double t_s)
{
    if (!nl->on || nl->left_alone || !isnan(nl->first_seen_s) || !nl->dir[0])
        return;
    DIR *d = opendir(nl->dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            nl->first_seen_s = t_s;
            break;
        }
    closedir(d);
}

int gd_run_nccl_log_prepare(gd_run_nccl_log *nl)
{
    nl->first_seen_s = NAN;
    if (!nl->on)
        return 0;
    const char *dbg = getenv("NCCL_DEBUG"), *file = getenv("NCCL_DEBUG_FILE");
    if ((dbg && dbg[0]) || (file && file[0])) {
        nl->left_alone = true;
        fprintf(stderr,
                "gpudoctor: --nccl-log: the environment sets %s=%s: NCCL logs as it says and gpudoctor reads no NCCL "
                "log (unset it, or give its files to 'gpudoctor check --from')\n",
                file && file[0] ? "NCCL_DEBUG_FILE" : "NCCL_DEBUG", file && file[0] ? file : dbg);
        return 0;
    }
    if (nl->keep_dir) {
        if (mkdir(nl->keep_dir, 0777) != 0 && errno != EEXIST)
            return gd_cli_error("--nccl-log-dir %s: %s", nl->keep_dir, strerror(errno));
        if (access(nl->keep_dir, W_OK | X_OK) != 0 || !realpath(nl->keep_dir, nl->dir))
            return gd_cli_error("--nccl-log-dir %s: not a folder gpudoctor may write in", nl->keep_dir);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(nl->dir, sizeof nl->dir, "%s/gpudoctor-nccl-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(nl->dir))
            return gd_cli_error("--nccl-log: cannot make a folder for NCCL's log (%s): %s", nl->dir, strerror(errno));
    }
    char path[4096 + 32];
    snprintf(path, sizeof path, "%s/nccl.%%h.%%p.log", nl->dir);
    setenv("NCCL_DEBUG", "INFO", 1);
    setenv("NCCL_DEBUG_FILE", path, 1);
    const char *subsys = getenv("NCCL_DEBUG_SUBSYS");
    nl->set_subsys = !subsys || !subsys[0];
    if (nl->set_subsys)
        setenv("NCCL_DEBUG_SUBSYS", GD_NCCL_LOG_SUBSYS, 1);
    return 0;
}

void gd_run_nccl_log_started(gd_run_nccl_log *nl)
{
    if (!nl->on || nl->left_alone)
        return;
    unsetenv("NCCL_DEBUG");
    unsetenv("NCCL_DEBUG_FILE");
    if (nl->set_subsys)
        unsetenv("NCCL_DEBUG_SUBSYS");
}

/* Names in the folder, sorted: the same report for the same files. */
static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int gd_run_nccl_log_read(gd_run_nccl_log *nl, gd_facts *f)
{
    if (!nl->on || nl->left_alone)
        return 0;
    DIR *d = opendir(nl->dir);
    if (!d)
        return 0;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **bigger = realloc(names, cap * sizeof *names);
            if (!bigger)
                break;
            names = bigger;
        }
        if (!(names[n] = strdup(e->d_name)))
            break;
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    int read = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4096 + 256], err[512];
        snprintf(path, sizeof path, "%s/%s", nl->dir, names[i]);
        size_t len = 0;
        char *text = gd_input_read(path, GD_INPUT_FILE, GD_NCCL_LOG_MAX_BYTES, &len, err, sizeof err);
        if (!text || gd_import_nccl_log(names[i], text, len, f, err, sizeof err) != 0)
            fprintf(stderr, "gpudoctor: --nccl-log: %s not read: %s\n", names[i], err);
        else
            read++;
        free(text);
        free(names[i]);
    }
    free(names);
    if (read > 0 && f->net && f->net->nccl)
        f->net->nccl->started_s = nl->first_seen_s;
    if (read == 0)
        fprintf(stderr, "gpudoctor: --nccl-log: NCCL wrote no log (the job did not start NCCL, or set its own "
                        "NCCL_DEBUG_FILE after it started)\n");
    return read;
}

void gd_run_nccl_log_end(gd_run_nccl_log *nl)
{
    if (!nl->on || nl->left_alone || nl->keep_dir || !nl->dir[0])
        return;
    DIR *d = opendir(nl->dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char path[4096 + 256];
            snprintf(path, sizeof path, "%s/%s", nl->dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(nl->dir);
}
