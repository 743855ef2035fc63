/* SPDX-License-Identifier: Apache-2.0 */
/* The order-statistic multiset (ostat.h): a treap of distinct values. */
#include "ostat.h"

#include <math.h>
#include <stdlib.h>

struct gd_ostat_node {
    double v;
    uint32_t count; /* repeats of v */
    uint32_t size; /* values in the subtree, repeats counted */
    uint32_t left, right;
    uint32_t prio;
};

void gd_ostat_init(gd_ostat *o)
{
    *o = (gd_ostat){.seed = 0x9e3779b97f4a7c15ull};
}

void gd_ostat_free(gd_ostat *o)
{
    free(o->nodes);
    gd_ostat_init(o);
}

void gd_ostat_clear(gd_ostat *o)
{
    o->used = 1; /* keeps the array */
    o->free_list = o->root = 0;
    o->n = 0;
}

static uint32_t next_prio(gd_ostat *o)
{
    /* xorshift64*: cheap, and a per-set stream keeps the treap balanced
     * whatever order the values come in. */
    o->seed ^= o->seed >> 12;
    o->seed ^= o->seed << 25;
    o->seed ^= o->seed >> 27;
    return (uint32_t)((o->seed * 0x2545f4914f6cdd1dull) >> 32);
}

static uint32_t size_of(const gd_ostat *o, uint32_t x)
{
    return x ? o->nodes[x].size : 0;
}

static void update(gd_ostat *o, uint32_t x)
{
    gd_ostat_node *n = &o->nodes[x];
    n->size = n->count + size_of(o, n->left) + size_of(o, n->right);
}

static uint32_t rotate_right(gd_ostat *o, uint32_t x)
{
    uint32_t l = o->nodes[x].left;
    o->nodes[x].left = o->nodes[l].right;
    o->nodes[l].right = x;
    update(o, x);
    update(o, l);
    return l;
}

static uint32_t rotate_left(gd_ostat *o, uint32_t x)
{
    uint32_t r = o->nodes[x].right;
    o->nodes[x].right = o->nodes[r].left;
    o->nodes[r].left = x;
    update(o, x);
    update(o, r);
    return r;
}

static uint32_t new_node(gd_ostat *o, double v)
{
    uint32_t x = o->free_list;
    if (x) {
        o->free_list = o->nodes[x].left;
    } else {
        if (o->used == 0)
            o->used = 1;
        if (o->used >= o->cap) {
            uint32_t cap = o->cap ? o->cap * 2 : 16;
            gd_ostat_node *p = realloc(o->nodes, (size_t)cap * sizeof *p);
            if (!p)
                return 0;
            o->nodes = p;
            o->cap = cap;
        }
        x = o->used++;
    }
    o->nodes[x] = (gd_ostat_node){.v = v, .count = 1, .size = 1, .prio = next_prio(o)};
    return x;
}

/* Inserts v under x; *fail when no node could be made. Recursion depth is
 * the treap's height, O(log n) with high probability. */
static uint32_t insert(gd_ostat *o, uint32_t x, double v, bool *fail)
{
    if (!x) {
        uint32_t made = new_node(o, v);
        *fail = made == 0;
        return made;
    }
    gd_ostat_node *n = &o->nodes[x];
    if (v == n->v) {
        n->count++;
        n->size++;
        return x;
    }
    if (v < n->v) {
        uint32_t l = insert(o, n->left, v, fail);
        o->nodes[x].left = l;
        update(o, x);
        if (l && o->nodes[l].prio > o->nodes[x].prio)
            x = rotate_right(o, x);
    } else {
        uint32_t r = insert(o, n->right, v, fail);
        o->nodes[x].right = r;
        update(o, x);
        if (r && o->nodes[r].prio > o->nodes[x].prio)
            x = rotate_left(o, x);
    }
    return x;
}

int gd_ostat_insert(gd_ostat *o, double v)
{
    bool fail = false;
    o->root = insert(o, o->root, v, &fail);
    if (fail)
        return -1;
    o->n++;
    return 0;
}

/* Removes node x from the tree rooted at x: rotates it down to a leaf. */
static uint32_t drop(gd_ostat *o, uint32_t x)
{
    gd_ostat_node *n = &o->nodes[x];
    if (!n->left || !n->right) {
        uint32_t child = n->left ? n->left : n->right;
        n->left = o->free_list; /* the free list runs through left */
        o->free_list = x;
        return child;
    }
    if (o->nodes[n->left].prio > o->nodes[n->right].prio) {
        uint32_t top = rotate_right(o, x);
        o->nodes[top].right = drop(o, x);
        update(o, top);
        return top;
    }
    uint32_t top = rotate_left(o, x);
    o->nodes[top].left = drop(o, x);
    update(o, top);
    return top;
}

static uint32_t remove_value(gd_ostat *o, uint32_t x, double v, bool *found)
{
    if (!x)
        return 0;
    gd_ostat_node *n = &o->nodes[x];
    if (v == n->v) {
        *found = true;
        if (n->count > 1) {
            n->count--;
            n->size--;
            return x;
        }
        return drop(o, x);
    }
    if (v < n->v)
        o->nodes[x].left = remove_value(o, n->left, v, found);
    else
        o->nodes[x].right = remove_value(o, n->right, v, found);
    update(o, x);
    return x;
}

bool gd_ostat_remove(gd_ostat *o, double v)
{
    bool found = false;
    if (isnan(v))
        return false;
    o->root = remove_value(o, o->root, v, &found);
    if (found)
        o->n--;
    return found;
}

double gd_ostat_kth(const gd_ostat *o, size_t k)
{
    if (k >= o->n)
        return NAN;
    uint32_t x = o->root;
    while (x) {
        const gd_ostat_node *n = &o->nodes[x];
        size_t left = size_of(o, n->left);
        if (k < left) {
            x = n->left;
        } else if (k < left + n->count) {
            return n->v;
        } else {
            k -= left + n->count;
            x = n->right;
        }
    }
    return NAN;
}

size_t gd_ostat_count_below(const gd_ostat *o, double v)
{
    size_t below = 0;
    uint32_t x = o->root;
    while (x) {
        const gd_ostat_node *n = &o->nodes[x];
        if (v <= n->v) {
            x = n->left;
        } else {
            below += size_of(o, n->left) + n->count;
            x = n->right;
        }
    }
    return below;
}

double gd_ostat_median(const gd_ostat *o)
{
    if (o->n == 0)
        return NAN;
    size_t k = (o->n - 1) / 2;
    double m = gd_ostat_kth(o, k);
    return o->n % 2 ? m : (m + gd_ostat_kth(o, k + 1)) / 2;
}
