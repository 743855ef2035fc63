/* SPDX-License-Identifier: Apache-2.0 */
/* Software stack facts: where to look, the job's environment, and the parts. */
#include "stack_internal.h"
#include "gpudoctor/job.h"
#include "core/input.h"
#include "stack_collect.h"
#include "sources/kernel_log/klog_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

static int env_push(gd_stack_facts *s, const char *entry, size_t *cap)
{
    if (!strchr(entry, '='))
        return 0;
    if (s->env_count == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        char **ne = realloc(s->env, nc * sizeof *ne);
        if (!ne)
            return -1;
        s->env = ne;
        *cap = nc;
    }
    if (!(s->env[s->env_count] = strdup(entry)))
        return -1;
    s->env_count++;
    return 0;
}

/* The job's environment: /proc/PID/environ with --pid (NUL-separated; only
 * its owner and root may read it), else gpudoctor's own, which a job
 * script that runs `gpudoctor check` before training shares. */
static int read_env(gd_stack_facts *s, const gd_facts *f, const char *proc_root)
{
    size_t cap = 0;
    if (f->pid > 0 && !proc_root[0]) {
        gd_strf(s->env_error, sizeof s->env_error, "the simulated machine has no host.proc to read the job from");
        return 0;
    }
    if (f->pid > 0) {
        char path[600];
        gd_strf(path, sizeof path, "%s/%ld/environ", proc_root, f->pid);
        size_t len = 0;
        errno = 0;
        char *buf = gd_stack_read_file(path, 4u << 20, &len);
        const gd_job_facts *j = f->job;
        if ((!buf || len == 0) && j && j->environ) { /* the job has ended (a zombie's environ reads empty) */
            free(buf);
            buf = malloc(j->environ_len + 1);
        }
        if (buf && len == 0 && j && j->environ) {
            memcpy(buf, j->environ, j->environ_len);
            buf[j->environ_len] = '\0';
            len = j->environ_len;
            gd_strf(path + strlen(path), sizeof path - strlen(path), " (read while the job ran)");
        }
        if (!buf) {
            gd_strf(s->env_error, sizeof s->env_error, "cannot read %s: %s (run gpudoctor as the job's user or root)",
                    path, strerror(errno ? errno : EIO));
            return 0;
        }
        for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
            if (env_push(s, buf + i, &cap) != 0) {
                free(buf);
                return -1;
            }
        free(buf);
        gd_strf(s->env_source, sizeof s->env_source, "%s", path);
    } else {
        for (char **e = environ; e && *e; e++)
            if (env_push(s, *e, &cap) != 0)
                return -1;
        gd_strf(s->env_source, sizeof s->env_source, "gpudoctor's own environment (--pid reads the job's)");
    }
    s->env_read = true;
    return 0;
}

int gd_stack_root_check(const char *root, char *err, size_t errlen)
{
    struct stat st;
    if (!root || !*root)
        return 0;
    if (stat(root, &st) != 0)
        snprintf(err, errlen, "GPUDOCTOR_ROOT=%s: %s (a directory laid out like / is needed)", root, strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        snprintf(err, errlen, "GPUDOCTOR_ROOT=%s: not a directory (a directory laid out like / is needed)", root);
    else
        return 0;
    return -1;
}

int gd_stack_collect(gd_facts *f, const gd_stack_opts *o)
{
    gd_stack_facts *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    f->stack = s;
    if (read_env(s, f, o->proc_root ? o->proc_root : "") != 0)
        return -1;
    const char *root = o->root;
    if (root && *root) {
        gd_strf(s->root, sizeof s->root, "%s", root);
        size_t n = strlen(s->root);
        while (n > 0 && s->root[n - 1] == '/') /* "/" is this machine: "" */
            s->root[--n] = '\0';
        s->system_scanned = true;
    } else if (f->simulated || f->captured) {
        /* The simulated or captured machine's software is not this machine's. */
        gd_strf(s->system_skip, sizeof s->system_skip,
                "%s: set GPUDOCTOR_ROOT to a directory laid out like / to scan a software stack",
                f->simulated ? "simulated machine" : "captured evidence");
    } else {
        s->system_scanned = true;
    }
    if (s->system_scanned) {
        gd_stack_scan_toolkits(s);
        gd_stack_scan_ldcache(s);
    }
    gd_stack_scan_pythons(s, o, s->system_scanned);
    gd_stack_read_kernel_log(s, f, o->kernel_log ? o->kernel_log : "");
    return 0;
}
