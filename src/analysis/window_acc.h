/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The window's running statistics: what the checks read over a window
 * (each metric's count, mean, extremes and median, the load, the clock
 * event episodes and runs, the loaded medians), kept as samples arrive and
 * leave, so that judging the window costs the same at sample 10 and at
 * sample 10 million (issue 40). A live session keeps one beside its series
 * (sample in at each step, out when it leaves the window or the ring); a
 * capture or a window built afterwards gets one by adding its samples in
 * order: the same code either way, so `check` (judged once at the end) and
 * `watch` / `export` (judged at every tick) follow one set of rules.
 *
 * Samples are named by their number since the series began (the ring's
 * dropped + i), so the accumulator follows a ring that drops its oldest.
 * A sample's values must be complete when it is added: the session adds it
 * after every source has sampled it.
 */
#ifndef GD_WINDOW_ACC_H
#define GD_WINDOW_ACC_H

#include "episodes.h"
#include "vram_trend.h"
#include "gpudoctor/model.h"
#include "window.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct gd_window_acc gd_window_acc;

/* Samples the checks count by a rule of their own, kept as streams: the
 * rule is decided once per sample, when it comes (window_acc.c, pick). */
typedef enum gd_window_stream {
    GD_WS_UTIL_LOW, /* utilisation read and below GD_LOADED_UTIL_PCT; value: the utilisation */
    GD_WS_CLOCK_LOW, /* loaded, no clock event reason, SM clock below GD_WINDOW_CLOCK_LOW_FRACTION of its maximum */
    GD_WS_MEM_LOADED, /* loaded with its memory read; value: MiB used (gd_window_acc_mem_at_least counts them) */
    GD_WS_ANSWERED, /* any of utilisation, temperature, power, SM clock read */
} gd_window_stream;
#define GD_WINDOW_STREAMS 4

/* A loaded GPU without a clock event reason runs its SM clock below this
 * share of its maximum: clocks.low (checks/thresholds.h names it). */
#define GD_WINDOW_CLOCK_LOW_FRACTION 0.80

typedef struct gd_window_picks {
    size_t n;
    double sum, max; /* of the values (max NAN when none) */
    double first_s; /* window time of the first pick, NAN when none */
} gd_window_picks;

/* The link's samples against a (gen_max, width_max): those considered (all,
 * or the loaded ones), those with a generation or width read, those below
 * (with the medians of their generation and width, an unread one counted at
 * its maximum, and the first's time); and of every sample, widths below
 * width_max: how many and the widest. */
typedef struct gd_window_link {
    size_t samples, judged, low;
    double gen, width, first_s;
    size_t width_low;
    double widest_low;
} gd_window_link;

/* Keeps the samples of the last span_s seconds (as gd_series_last does);
 * span_s <= 0: every sample added until it is forgotten. NULL: no memory. */
gd_window_acc *gd_window_acc_new(size_t gpus, double span_s);
void gd_window_acc_free(gd_window_acc *a);

/* Sample i of f->series enters (samples must enter in order, each once);
 * samples older than the span leave. -1 when out of memory (the accumulator
 * is then marked broken and gd_window_acc_of refuses it). */
int gd_window_acc_add(gd_window_acc *a, const gd_facts *f, size_t i);

/* Samples numbered below `no` leave (the ring is about to drop them). They
 * must still be in f->series. */
void gd_window_acc_forget(gd_window_acc *a, const gd_facts *f, uint64_t no);

/* The accumulator over every sample of f's series, in order. */
gd_window_acc *gd_window_acc_build(const gd_facts *f);

/* f with its series narrowed to the accumulator's samples and the
 * accumulator attached: what the checks judge (a shallow copy, as
 * gd_facts_window). */
gd_facts gd_window_acc_facts(const gd_facts *f, const gd_window_acc *a);

/* The last span_s seconds up to sample i, as the checks judge them at a
 * tick: f's accumulator's window when it keeps that span and ends at i (the
 * live session's), else that window of the series (the checks then build
 * its statistics). */
gd_facts gd_window_acc_upto(const gd_facts *f, size_t i, double span_s);

/* The accumulator attached to f when it covers exactly f's series, else
 * NULL. */
const gd_window_acc *gd_window_acc_of(const gd_facts *f);

/* f's own accumulator, or one built for the caller (*tmp, which it frees
 * with gd_window_acc_free; NULL when f has its own). NULL: out of memory. */
const gd_window_acc *gd_window_acc_get(const gd_facts *f, gd_window_acc **tmp);

/* Builds f's accumulator over its whole series when it has none that fits
 * (captures, replays, windows cut afterwards); f then owns it. -1: no memory. */
int gd_window_acc_attach(gd_facts *f);

/* The clock event reason masks whose episodes the accumulator keeps (the
 * checks' masks), and the (mask, exclude) pairs whose runs it keeps. */
extern const unsigned long long gd_window_episode_masks[];
extern const size_t gd_window_episode_mask_count;

/* Queries (a, GPU g of the window). Each answers what the batch function of
 * the same name computed over the same samples. */
size_t gd_window_acc_stats(const gd_window_acc *a, const gd_facts *f, size_t g, gd_metric m, gd_stats *out);
size_t gd_window_acc_loaded(const gd_window_acc *a, size_t g);
/* Sample number no's load flag and signal; false when it is not in the window. */
bool gd_window_acc_load_at(const gd_window_acc *a, uint64_t no, size_t g, bool *loaded, gd_load_signal *why);
/* NAN when the metric's loaded median is not kept or has no value. */
double gd_window_acc_loaded_median(const gd_window_acc *a, size_t g, gd_metric m);
/* -1 when the mask is not kept. */
int gd_window_acc_episode(const gd_window_acc *a, const gd_facts *f, size_t g, unsigned long long mask,
                          gd_episode *out);
int gd_window_acc_runs(const gd_window_acc *a, const gd_facts *f, size_t g, unsigned long long mask,
                       unsigned long long exclude, gd_runs *out);
/* The first and last sample numbers with a valid value of m; false: none. */
bool gd_window_acc_valid_span(const gd_window_acc *a, size_t g, gd_metric m, uint64_t *first, uint64_t *last);

/* A metric that answered, then failed (errors, not "not supported") to the
 * window's end: the time of its first failure since its newest answer, and
 * the share of the window's samples it answered. */
bool gd_window_acc_stopped(const gd_window_acc *a, const gd_facts *f, size_t g, gd_metric m, double *from_s,
                           double *answered);

/* GPU memory's trend over the window: the robust fit (vram_trend.h) to the
 * means of at most 64 buckets of consecutive samples, refitted only when a
 * bucket is completed or leaves. -1: fewer than 4 buckets. */
int gd_window_acc_memory_trend(const gd_window_acc *a, size_t g, gd_vram_trend *out);

/* The median of the SM clock or the performance state over every sample
 * with a reason of `mask`, loaded or not; NAN when none. */
double gd_window_acc_hit_median(const gd_window_acc *a, size_t g, unsigned long long mask, gd_metric m);

/* What metric m's call answered in the window: its first valid value, else
 * the newest answer that was not "not read" (a status), else unread. */
gd_value gd_window_acc_tried(const gd_window_acc *a, const gd_facts *f, size_t g, gd_metric m);

/* Samples of GPU g whose metric m reads at least v (a metric whose median
 * the window keeps; another is a miss). */
size_t gd_window_acc_at_least(const gd_window_acc *a, size_t g, gd_metric m, double v);
/* Loaded samples of GPU g using at least `mib` of its memory. */
size_t gd_window_acc_mem_at_least(const gd_window_acc *a, size_t g, double mib);
size_t gd_window_acc_by_signal(const gd_window_acc *a, size_t g, gd_load_signal why);
void gd_window_acc_stream(const gd_window_acc *a, const gd_facts *f, size_t g, gd_window_stream k,
                          gd_window_picks *out);
void gd_window_acc_link(const gd_window_acc *a, const gd_facts *f, size_t g, double gen_max, double width_max,
                        bool loaded_only, gd_window_link *out);

/* Queries that asked for what the accumulator does not keep (a mask or a
 * median outside its tables): a test holds every check to 0. */
size_t gd_window_acc_misses(const gd_window_acc *a);

#endif
