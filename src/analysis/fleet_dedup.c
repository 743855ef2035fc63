/* SPDX-License-Identifier: Apache-2.0 */
/* Reports given twice, by sorting (fleet_dedup.h). */
#include "analysis/fleet_dedup.h"

#include <stdlib.h>
#include <string.h>

typedef struct file_ref {
    gd_fleet_file_key key;
    size_t at;
} file_ref;

static int by_file_then_at(const void *a, const void *b)
{
    const file_ref *x = a, *y = b;
    if (x->key.dev != y->key.dev)
        return x->key.dev < y->key.dev ? -1 : 1;
    if (x->key.ino != y->key.ino)
        return x->key.ino < y->key.ino ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

int gd_fleet_first_same_file(const gd_fleet_file_key *keys, size_t n, size_t *first)
{
    file_ref *v = malloc((n + 1) * sizeof *v);
    if (!v)
        return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        first[i] = GD_FLEET_FIRST;
        if (keys[i].known)
            v[m++] = (file_ref){keys[i], i};
    }
    qsort(v, m, sizeof *v, by_file_then_at);
    /* In each run of one key the first in order comes first: the others are it again. */
    for (size_t i = 1, head = 0; i < m; i++) {
        if (v[i].key.dev != v[head].key.dev || v[i].key.ino != v[head].key.ino)
            head = i;
        else
            first[v[i].at] = v[head].at;
    }
    free(v);
    return 0;
}

typedef struct name_ref {
    const char *name;
    size_t at;
} name_ref;

static int by_name_then_at(const void *a, const void *b)
{
    const name_ref *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

int gd_fleet_first_same_node(const gd_fleet *fl, size_t *first)
{
    name_ref *v = malloc((fl->n + 1) * sizeof *v);
    if (!v)
        return -1;
    for (size_t k = 0; k < fl->n; k++) {
        first[k] = GD_FLEET_FIRST;
        v[k] = (name_ref){fl->nodes[k].name, k};
    }
    qsort(v, fl->n, sizeof *v, by_name_then_at);
    for (size_t i = 1, head = 0; i < fl->n; i++) {
        if (strcmp(v[i].name, v[head].name) != 0)
            head = i;
        else
            first[v[i].at] = v[head].at;
    }
    free(v);
    return 0;
}
