/* SPDX-License-Identifier: Apache-2.0 */
/* The fleet's outliers by median and MAD, and its shared findings (fleet.h). */
#include "analysis/fleet.h"
#include "core/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M_CLOCK, M_TEMP, M_POWER, M_COUNT };

static double metric(const gd_fleet_gpu *g, int m)
{
    return m == M_CLOCK ? g->sm_clock_mhz : m == M_TEMP ? g->temp_c : g->power_w;
}

static const struct {
    const char *id, *key, *unit, *what, *fix;
} rules[M_COUNT] = {
    {"fleet.clocks_low", "sm_clock_mhz", "MHz", "SM clock under load",
     "Run 'gpudoctor check' on the node and read its clock event reasons; compare its power limit, application "
     "clocks and cooling with a healthy node of the group ('nvidia-smi -q -d CLOCK,POWER,PERFORMANCE'); a GPU "
     "slower with no reason reported is a hardware case for the vendor. Drain it from jobs that synchronise across "
     "GPUs: the slowest GPU sets every step's pace."},
    {"fleet.hot", "temp_c", "C", "temperature under load",
     "Check the node's airflow against its neighbours: fans ('ipmitool sdr type Fan'), blanking panels, a "
     "failed fan or a blocked inlet, the rack's inlet temperature; reseat or repaste a GPU hotter than the others "
     "of its own node. It throttles first when the room warms."},
    {"fleet.power_low", "power_w", "W", "power under load",
     "Compare the node's power limit and its power supplies with the group ('nvidia-smi -q -d POWER'; "
     "'ipmitool sdr type \"Power Supply\"'): a GPU that draws much less than its peers at the same load is held "
     "back by a limit, a supply or a slowdown that 'gpudoctor check' on the node names."},
};

/* Median and scaled MAD of v[0..n) (reordered). */
static void robust(double *v, size_t n, double *med, double *mad)
{
    *med = gd_median(v, n);
    for (size_t i = 0; i < n; i++)
        v[i] = fabs(v[i] - *med);
    *mad = 1.4826 * gd_median(v, n);
}

/* Is x an outlier of rule m against (med, mad)? dev: its relative deviation (degrees for temperature). */
static bool outlier(int m, double x, double med, double mad, double *dev)
{
    if (isnan(x) || isnan(med))
        return false;
    bool far = fabs(x - med) > GD_FLEET_MAD_Z * mad;
    if (m == M_TEMP) {
        *dev = x - med;
        return far && *dev >= GD_FLEET_HOT_C;
    }
    *dev = med > 0 ? (x - med) / med : 0;
    return far && *dev < -(m == M_CLOCK ? GD_FLEET_CLOCK_DROP : GD_FLEET_POWER_DROP);
}

/* A GPU of the fleet and where it is. */
typedef struct gpu_ref {
    const char *model;
    size_t node, gpu;
} gpu_ref;

/* A group's GPUs: refs[from, to), by node and GPU; place: its first GPU's
 * place in the fleet's order (node, then GPU), the order groups are shown in. */
typedef struct group_span {
    size_t from, to, place;
} group_span;

/* Every GPU by its group, found by sorting by model: a fleet of many models
 * is not a model compared with every GPU. */
typedef struct fleet_index {
    gpu_ref *refs; /* by model, then node and GPU */
    group_span *spans; /* by group */
    size_t *group; /* by GPU in the fleet's order: its group */
    size_t *first; /* by node: its first GPU's place in that order */
} fleet_index;

static int by_model_then_place(const void *a, const void *b)
{
    const gpu_ref *x = a, *y = b;
    int c = strcmp(x->model, y->model);
    if (c)
        return c;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

static int by_place(const void *a, const void *b)
{
    const group_span *x = a, *y = b;
    return (x->place > y->place) - (x->place < y->place);
}

static void index_free(fleet_index *ix)
{
    free(ix->refs);
    free(ix->spans);
    free(ix->group);
    free(ix->first);
}

static int build_groups(const gd_fleet *in, gd_fleet_result *r, fleet_index *ix)
{
    size_t total = 0;
    ix->first = calloc(in->n + 1, sizeof *ix->first);
    for (size_t n = 0; ix->first && n < in->n; n++) {
        ix->first[n] = total;
        total += in->nodes[n].ngpus;
    }
    r->groups = calloc(total + 1, sizeof *r->groups);
    ix->refs = calloc(total + 1, sizeof *ix->refs);
    ix->spans = calloc(total + 1, sizeof *ix->spans);
    ix->group = calloc(total + 1, sizeof *ix->group);
    if (!ix->first || !r->groups || !ix->refs || !ix->spans || !ix->group)
        return -1;
    size_t k = 0;
    for (size_t n = 0; n < in->n; n++)
        for (size_t g = 0; g < in->nodes[n].ngpus; g++)
            ix->refs[k++] = (gpu_ref){in->nodes[n].gpus[g].model, n, g};
    qsort(ix->refs, total, sizeof *ix->refs, by_model_then_place);
    for (size_t i = 0; i < total; i++) {
        const gpu_ref *x = &ix->refs[i];
        if (i == 0 || strcmp(x->model, ix->refs[i - 1].model) != 0)
            ix->spans[r->ngroups++] = (group_span){i, i, ix->first[x->node] + x->gpu};
        ix->spans[r->ngroups - 1].to = i + 1;
    }
    qsort(ix->spans, r->ngroups, sizeof *ix->spans, by_place);
    for (size_t i = 0; i < r->ngroups; i++) {
        gd_fleet_group *grp = &r->groups[i];
        const group_span *s = &ix->spans[i];
        snprintf(grp->model, sizeof grp->model, "%s", ix->refs[s->from].model);
        grp->gpus = s->to - s->from;
        for (size_t j = s->from; j < s->to; j++) {
            grp->nodes += j == s->from || ix->refs[j].node != ix->refs[j - 1].node;
            ix->group[ix->first[ix->refs[j].node] + ix->refs[j].gpu] = i;
        }
    }
    return 0;
}

static void add_outlier(gd_fleet_result *r, const gd_fleet *in, size_t n, size_t k, int m, const gd_fleet_group *grp,
                        double x, double dev)
{
    const gd_fleet_node *node = &in->nodes[n];
    const gd_fleet_gpu *g = &node->gpus[k];
    json_t *ev = json_object();
    json_object_set_new(ev, "node", json_string(node->name));
    json_object_set_new(ev, "file", json_string(node->file));
    json_object_set_new(ev, "gpu_uuid", json_string(g->uuid));
    json_object_set_new(ev, "model", json_string(grp->model));
    json_object_set_new(ev, "metric", json_string(rules[m].key));
    json_object_set_new(ev, "value", json_real(x));
    json_object_set_new(ev, "group_median", json_real(grp->median[m]));
    json_object_set_new(ev, "group_mad_scaled", json_real(round(grp->mad[m] * 100) / 100));
    json_object_set_new(ev, "group_gpus", json_integer((json_int_t)grp->gpus));
    json_object_set_new(ev, "group_nodes", json_integer((json_int_t)grp->nodes));
    json_object_set_new(ev, "source", json_string("the reports' gpus[].window.loaded_median"));
    double impact = m == M_CLOCK ? round(-dev * 1000) / 10 : NAN; /* a slower clock, that much slower steps */
    if (m == M_TEMP)
        json_object_set_new(ev, "hotter_c", json_real(round(dev * 10) / 10));
    else
        json_object_set_new(ev, "below_pct", json_real(round(-dev * 1000) / 10));
    if (m == M_TEMP)
        gd_finding_add(&r->findings, rules[m].id, GD_SEV_WARNING, g->index, ev, impact, rules[m].fix,
                       "%s GPU %d: %s %.0f %s, %.0f %s above the %zu %s GPUs' median (%.0f %s)", node->name, g->index,
                       rules[m].what, x, rules[m].unit, dev, rules[m].unit, grp->gpus, grp->model, grp->median[m],
                       rules[m].unit);
    else
        gd_finding_add(&r->findings, rules[m].id, GD_SEV_WARNING, g->index, ev, impact, rules[m].fix,
                       "%s GPU %d: %s %.0f %s, %.0f %% below the %zu %s GPUs' median (%.0f %s)", node->name, g->index,
                       rules[m].what, x, rules[m].unit, -dev * 100, grp->gpus, grp->model, grp->median[m],
                       rules[m].unit);
}

static int compare_groups(const gd_fleet *in, gd_fleet_result *r, const fleet_index *ix)
{
    size_t total = 0;
    for (size_t n = 0; n < in->n; n++)
        total += in->nodes[n].ngpus;
    double *v = malloc((total + 1) * sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < r->ngroups; i++) {
        gd_fleet_group *grp = &r->groups[i];
        const group_span *s = &ix->spans[i];
        grp->compared = grp->gpus >= GD_FLEET_MIN_GPUS && grp->nodes >= GD_FLEET_MIN_NODES;
        for (int m = 0; m < M_COUNT; m++) {
            size_t nv = 0, nodes = 0, last = SIZE_MAX;
            for (size_t j = s->from; j < s->to; j++) {
                const gpu_ref *x = &ix->refs[j];
                double val = metric(&in->nodes[x->node].gpus[x->gpu], m);
                if (isnan(val))
                    continue;
                v[nv++] = val;
                nodes += x->node != last;
                last = x->node;
            }
            grp->median[m] = grp->mad[m] = NAN;
            /* A median of one node's GPUs holds that node to itself: loaded GPUs on two nodes at least. */
            if (nv >= GD_FLEET_MIN_GPUS && nodes >= GD_FLEET_MIN_NODES)
                robust(v, nv, &grp->median[m], &grp->mad[m]);
        }
        bool medians = false;
        for (int m = 0; m < M_COUNT; m++)
            medians |= !isnan(grp->median[m]);
        if (grp->compared && !medians) { /* enough GPUs, none under load: nothing to hold them to */
            grp->compared = false;
            gd_skip_add(&r->findings, "fleet", GD_NO_GPU,
                        "%s: %zu GPUs on %zu nodes, but fewer than %d on %d nodes were under load in their "
                        "window: no median to compare with (run the reports under the same load)",
                        grp->model, grp->gpus, grp->nodes, GD_FLEET_MIN_GPUS, GD_FLEET_MIN_NODES);
            continue;
        }
        if (!grp->compared) {
            gd_skip_add(&r->findings, "fleet", GD_NO_GPU,
                        "%s: %zu GPU%s on %zu node%s (comparing needs %d GPUs on %d nodes)", grp->model, grp->gpus,
                        grp->gpus == 1 ? "" : "s", grp->nodes, grp->nodes == 1 ? "" : "s", GD_FLEET_MIN_GPUS,
                        GD_FLEET_MIN_NODES);
            continue;
        }
        for (size_t j = s->from; j < s->to; j++) { /* by node and GPU, as the reports were read */
            const gpu_ref *x = &ix->refs[j];
            const gd_fleet_gpu *g = &in->nodes[x->node].gpus[x->gpu];
            bool slow = false;
            for (int m = 0; m < M_COUNT; m++) {
                double dev = 0, val = metric(g, m);
                /* Less power from a GPU already flagged slow is the same cause, said once. */
                if (m == M_POWER && slow)
                    continue;
                if (outlier(m, val, grp->median[m], grp->mad[m], &dev)) {
                    add_outlier(r, in, x->node, x->gpu, m, grp, val, dev);
                    slow |= m == M_CLOCK;
                }
            }
        }
    }
    free(v);
    return 0;
}

/* One node's finding, in the order the reports were read. */
typedef struct seen_finding {
    const char *id;
    size_t node, order;
    gd_severity severity;
} seen_finding;

static int by_id_then_order(const void *a, const void *b)
{
    const seen_finding *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* A run of one id in the sorted findings: [from, to), first seen at `first`. */
typedef struct id_run {
    size_t from, to, first;
} id_run;

static int by_first(const void *a, const void *b)
{
    const id_run *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

/* One fleet.common_finding for the id of run u, if enough nodes share it. */
static void common_finding(const gd_fleet *in, const seen_finding *v, const id_run *u, gd_fleet_result *r)
{
    size_t nodes = 0;
    gd_severity worst = GD_SEV_INFO;
    json_t *names = json_array();
    for (size_t i = u->from; i < u->to; i++) {
        if (i > u->from && v[i].node == v[i - 1].node)
            continue; /* a node counts once, with its first finding of the id */
        nodes++;
        worst = v[i].severity > worst ? v[i].severity : worst;
        json_array_append_new(names, json_string(in->nodes[v[i].node].name));
    }
    const char *id = v[u->from].id;
    if (nodes < GD_FLEET_COMMON_MIN_NODES || 2 * nodes < in->n) {
        json_decref(names);
        return;
    }
    json_t *ev = json_object();
    json_object_set_new(ev, "finding", json_string(id));
    json_object_set_new(ev, "nodes", json_integer((json_int_t)nodes));
    json_object_set_new(ev, "of_nodes", json_integer((json_int_t)in->n));
    json_object_set_new(ev, "node_names", names);
    json_object_set_new(ev, "source", json_string("the reports' findings"));
    char fix[768];
    snprintf(fix, sizeof fix,
             "One cause on %zu nodes is a change they share rather than %zu failures: compare what was rolled "
             "out to them (driver, CUDA, firmware, BIOS, kernel, container image, power or cooling policy) with "
             "the nodes without %s, and fix it once; each node's report has the evidence and its own fix.",
             nodes, nodes, id);
    gd_finding_add(&r->findings, "fleet.common_finding", worst, GD_NO_GPU, ev, NAN, fix,
                   "%s on %zu of %zu nodes: a fleet-wide cause", id, nodes, in->n);
}

/* Findings that many nodes share: one fleet.common_finding per id, in the
 * order the ids were first seen. Sorted by id, not compared pairwise: a
 * report of 300k findings takes a sort, not 300k squared comparisons. */
static int shared_findings(const gd_fleet *in, gd_fleet_result *r)
{
    size_t total = 0;
    for (size_t n = 0; n < in->n; n++)
        total += in->nodes[n].nfindings;
    if (total == 0)
        return 0;
    seen_finding *v = malloc(total * sizeof *v);
    id_run *runs = malloc(total * sizeof *runs);
    if (!v || !runs) {
        free(v);
        free(runs);
        return -1;
    }
    size_t k = 0;
    for (size_t n = 0; n < in->n; n++)
        for (size_t f = 0; f < in->nodes[n].nfindings; f++, k++)
            v[k] = (seen_finding){in->nodes[n].findings[f].id, n, k, in->nodes[n].findings[f].severity};
    qsort(v, total, sizeof *v, by_id_then_order);
    size_t nruns = 0;
    for (size_t i = 0; i < total; i++) {
        if (i == 0 || strcmp(v[i].id, v[i - 1].id) != 0)
            runs[nruns++] = (id_run){i, i, v[i].order};
        runs[nruns - 1].to = i + 1;
    }
    qsort(runs, nruns, sizeof *runs, by_first);
    for (size_t u = 0; u < nruns; u++)
        common_finding(in, v, &runs[u], r);
    free(v);
    free(runs);
    return 0;
}

/* Whether node n was judged: one of its GPUs held to a median of its group. */
static bool node_judged(const gd_fleet *in, size_t n, const gd_fleet_result *r, const fleet_index *ix, bool *loaded)
{
    const gd_fleet_node *node = &in->nodes[n];
    *loaded = false;
    for (size_t k = 0; k < node->ngpus; k++) {
        const gd_fleet_gpu *g = &node->gpus[k];
        const gd_fleet_group *grp = &r->groups[ix->group[ix->first[n] + k]];
        for (int m = 0; m < M_COUNT; m++) {
            if (isnan(metric(g, m)))
                continue;
            *loaded = true;
            if (grp->compared && !isnan(grp->median[m]))
                return true;
        }
    }
    return false;
}

static int judge_nodes(const gd_fleet *in, gd_fleet_result *r, const fleet_index *ix)
{
    r->nnodes = in->n;
    r->nodes = calloc(in->n + 1, sizeof *r->nodes);
    if (!r->nodes)
        return -1;
    for (size_t n = 0; n < in->n; n++) {
        const gd_fleet_node *node = &in->nodes[n];
        gd_fleet_node_verdict *v = &r->nodes[n];
        bool loaded, no_driver = false;
        for (size_t i = 0; i < node->nfindings; i++)
            no_driver |= strcmp(node->findings[i].id, "driver.missing") == 0;
        v->judged = node_judged(in, n, r, ix, &loaded);
        if (v->judged)
            continue;
        snprintf(v->why, sizeof v->why, "%s",
                 node->ngpus == 0 ? (no_driver ? "no driver, no GPU in its report" : "no GPU in its report")
                 : !loaded        ? "no GPU under load in its window"
                                  : "too few GPUs of its model to compare");
    }
    return 0;
}

int gd_fleet_analyze(const gd_fleet *in, gd_fleet_result *out)
{
    memset(out, 0, sizeof *out);
    fleet_index ix = {0};
    int rc = build_groups(in, out, &ix) != 0 || compare_groups(in, out, &ix) != 0 || shared_findings(in, out) != 0 ||
                     judge_nodes(in, out, &ix) != 0
                 ? -1
                 : 0;
    index_free(&ix);
    if (rc == 0)
        gd_findings_sort(&out->findings);
    return rc;
}

int gd_fleet_exit_code(const gd_fleet *in, const gd_fleet_result *r)
{
    gd_severity worst = GD_SEV_INFO;
    for (size_t i = 0; i < r->findings.n; i++)
        if (!r->findings.v[i].ignored && r->findings.v[i].severity > worst)
            worst = r->findings.v[i].severity;
    bool unjudged = false;
    for (size_t n = 0; n < in->n; n++) {
        for (size_t i = 0; i < in->nodes[n].nfindings; i++)
            if (in->nodes[n].findings[i].severity > worst)
                worst = in->nodes[n].findings[i].severity;
        unjudged |= n < r->nnodes && !r->nodes[n].judged;
    }
    return worst >= GD_SEV_CRITICAL ? 2 : worst == GD_SEV_WARNING ? 1 : unjudged ? 3 : 0;
}

void gd_fleet_result_free(gd_fleet_result *r)
{
    free(r->groups);
    free(r->nodes);
    gd_findings_free(&r->findings);
    memset(r, 0, sizeof *r);
}

void gd_fleet_free(gd_fleet *f)
{
    for (size_t n = 0; n < f->n; n++) {
        free(f->nodes[n].gpus);
        free(f->nodes[n].findings);
    }
    free(f->nodes);
    memset(f, 0, sizeof *f);
}
