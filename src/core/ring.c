/* SPDX-License-Identifier: Apache-2.0 */
/* The bounded ring of samples (include/gpudoctor/ring.h). */
#include "gpudoctor/ring.h"

long gd_ring_push(gd_ring *r, int (*grow)(void *ud, size_t cap), void *ud)
{
    if (r->limit && r->n == r->limit) {
        /* Full ring: the oldest sample's storage takes the new one. */
        size_t row = r->head;
        r->head = r->head + 1 < r->cap ? r->head + 1 : 0;
        r->dropped++;
        return (long)row;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        if (r->limit && cap > r->limit)
            cap = r->limit;
        if (grow(ud, cap) != 0)
            return -1;
        r->cap = cap;
    }
    return (long)r->n++; /* not full yet: storage row i is sample i (head 0) */
}

gd_ring gd_ring_window(const gd_ring *r, size_t from, size_t n)
{
    gd_ring w = *r;
    if (from > r->n)
        from = r->n;
    if (n > r->n - from)
        n = r->n - from;
    w.head = r->n ? gd_ring_row(r, from) : 0;
    w.n = n;
    w.limit = n; /* a view: pushing to it would overwrite the owner's rows */
    w.dropped = r->dropped + from;
    return w;
}
