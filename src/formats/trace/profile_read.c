/* SPDX-License-Identifier: Apache-2.0 */
/* `run --profile`: the hook's status files and traces, read and analyzed. */
#include "profile_read.h"
#include "trace_read.h"
#include "core/input.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STATUS_MAX (1u << 20)

static double num_or_nan(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static long int_or(json_t *o, const char *key, long dflt)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (long)json_integer_value(v) : dflt;
}

static void str_into(json_t *o, const char *key, char *buf, size_t len)
{
    const char *s = json_string_value(json_object_get(o, key));
    snprintf(buf, len, "%s", s ? s : "");
}

int gd_profile_parse_status(const char *text, size_t len, gd_profile_proc *q)
{
    json_t *o = json_loadb(text, len, 0, NULL);
    if (!json_is_object(o) || !json_is_integer(json_object_get(o, "pid"))) {
        json_decref(o);
        return -1;
    }
    *q = (gd_profile_proc){.result = -1};
    q->pid = int_or(o, "pid", -1);
    q->rank = (int)int_or(o, "rank", -1);
    q->world_size = (int)int_or(o, "world_size", -1);
    str_into(o, "torch", q->torch, sizeof q->torch);
    q->tensorflow = json_is_true(json_object_get(o, "tensorflow"));
    str_into(o, "mode", q->mode, sizeof q->mode);
    str_into(o, "step_asked", q->step_asked, sizeof q->step_asked);
    str_into(o, "optimizer_hook", q->optimizer_hook, sizeof q->optimizer_hook);
    q->steps = int_or(o, "steps", 0);
    str_into(o, "trace", q->trace, sizeof q->trace);
    if (strchr(q->trace, '/') || strcmp(q->trace, "..") == 0)
        q->trace[0] = 0; /* a name in the folder, nothing else */
    str_into(o, "error", q->error, sizeof q->error);
    str_into(o, "stepped_aside", q->stepped_aside, sizeof q->stepped_aside);
    q->step_s_unprofiled = num_or_nan(o, "step_s_unprofiled");
    q->step_s_profiled = num_or_nan(o, "step_s_profiled");
    long u = int_or(o, "unprofiled_steps", 0);
    q->unprofiled_steps = u > 0 ? (size_t)u : 0;
    q->export_s = num_or_nan(o, "export_s");
    json_t *steps = json_object_get(o, "profiled_steps"), *s;
    size_t i;
    json_array_foreach(steps, i, s)
    {
        if (q->nsteps >= GD_PROFILE_MAX_STEPS || json_array_size(s) != 3)
            break;
        json_t *n = json_array_get(s, 0), *t = json_array_get(s, 1), *d = json_array_get(s, 2);
        if (!json_is_integer(n) || !json_is_number(t) || !json_is_number(d))
            continue;
        q->steps_wall[q->nsteps++] =
            (gd_profile_step){(long)json_integer_value(n), json_number_value(t), json_number_value(d)};
    }
    json_decref(o);
    return 0;
}

static int cmp_proc(const void *a, const void *b)
{
    const gd_profile_proc *x = a, *y = b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

static void note_unread(gd_profile *p, const char *what)
{
    if (p->unread[0])
        return;
    size_t n = strlen(what);
    if (n >= sizeof p->unread)
        n = sizeof p->unread - 1; /* a long path: its start says which */
    memcpy(p->unread, what, n);
    p->unread[n] = 0;
}

static int read_statuses(gd_profile *p, char *err, size_t errlen)
{
    DIR *d = opendir(p->dir);
    if (!d) {
        snprintf(err, errlen, "cannot list the profile folder %s: %s", p->dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    while ((e = readdir(d)) && p->nprocs < GD_PROFILE_MAX_PROCS) {
        size_t l = strlen(e->d_name);
        if (strncmp(e->d_name, "hook-", 5) != 0 || l < 12 || strcmp(e->d_name + l - 7, ".status") != 0)
            continue;
        char path[4096 + 256], why[256];
        snprintf(path, sizeof path, "%s/%s", p->dir, e->d_name);
        size_t len;
        char *text = gd_input_read(path, GD_INPUT_FILE, STATUS_MAX, &len, why, sizeof why);
        if (!text || gd_profile_parse_status(text, len, &p->procs[p->nprocs]) != 0) {
            char msg[600];
            snprintf(msg, sizeof msg, "%s: %s", e->d_name, text ? "not the hook's status" : why);
            note_unread(p, msg);
        } else {
            p->nprocs++;
        }
        free(text);
    }
    closedir(d);
    qsort(p->procs, p->nprocs, sizeof *p->procs, cmp_proc);
    return 0;
}

/* Analyzes q's trace into r; its rank is the process's RANK (0 without). */
static int analyze(gd_profile *p, gd_profile_proc *q, gd_trace_result *r)
{
    char path[4096 + 256], why[384] = "";
    snprintf(path, sizeof path, "%s/%s", p->dir, q->trace);
    gd_trace_acc *acc = gd_trace_acc_new();
    gd_trace_meta meta;
    gd_trace_opts o;
    gd_trace_opts_default(&o);
    int rc = -1;
    if (!acc)
        snprintf(why, sizeof why, "out of memory");
    else if (gd_trace_read_file(path, acc, &meta, why, sizeof why) == 0 &&
             gd_trace_analyze(acc, &meta, &o, r, why, sizeof why) == 0)
        rc = 0;
    gd_trace_acc_free(acc);
    if (rc != 0) {
        char msg[768];
        snprintf(msg, sizeof msg, "%s: %s", q->trace, why);
        note_unread(p, msg);
        return -1;
    }
    if (q->rank >= 0)
        r->rank = q->rank;
    r->file = q->trace; /* the file's name in the profile's directory; lives with p */
    return 0;
}

int gd_profile_read(gd_profile *p, char *err, size_t errlen)
{
    p->nprocs = 0;
    p->unread[0] = 0;
    if (read_statuses(p, err, errlen) != 0)
        return -1;
    size_t want = 0;
    for (size_t i = 0; i < p->nprocs; i++)
        want += p->procs[i].trace[0] != 0;
    p->ranks = want ? calloc(want, sizeof *p->ranks) : NULL;
    if (want && !p->ranks) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < p->nprocs; i++) {
        gd_profile_proc *q = &p->procs[i];
        if (!q->trace[0] || analyze(p, q, &p->ranks[p->nranks]) != 0)
            continue;
        q->result = (int)p->nranks++;
    }
    /* By rank, as `trace` orders a directory (a few ranks: insertion sort keeps procs' links). */
    for (size_t i = 1; i < p->nranks; i++) {
        for (size_t k = i; k > 0 && p->ranks[k].rank < p->ranks[k - 1].rank; k--) {
            gd_trace_result t = p->ranks[k];
            p->ranks[k] = p->ranks[k - 1];
            p->ranks[k - 1] = t;
            for (size_t j = 0; j < p->nprocs; j++) {
                if (p->procs[j].result == (int)k)
                    p->procs[j].result = (int)k - 1;
                else if (p->procs[j].result == (int)k - 1)
                    p->procs[j].result = (int)k;
            }
        }
    }
    gd_profile_explain(p);
    return 0;
}
