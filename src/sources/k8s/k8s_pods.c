/* SPDX-License-Identifier: Apache-2.0 */
/* The pods' GPUs, kept fresh on a thread (k8s_pods.h). */
#include "k8s_pods.h"
#include "podres_client.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct gd_k8s_pods {
    gd_k8s_pods_opts o;
    char socket[512];
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stopping;
    gd_k8s_assigns now; /* the newest answer (under lock) */
    unsigned long answers;
};

static void say(gd_k8s_pods *k, const char *msg)
{
    if (k->o.log)
        k->o.log(k->o.log_ud, msg);
}

static void *run(void *arg)
{
    gd_k8s_pods *k = arg;
    bool failing = false, ever = false, capped = false;
    for (;;) {
        gd_k8s_assigns got = {0};
        char err[600], msg[1200];
        int rc = gd_k8s_podres_list(k->socket, GD_K8S_DEADLINE_S, GD_K8S_MAX_ANSWER, &got, err, sizeof err);
        pthread_mutex_lock(&k->lock);
        gd_k8s_assigns old = k->now;
        k->now = rc == 0 ? got : (gd_k8s_assigns){0};
        if (rc == 0)
            k->answers++;
        pthread_mutex_unlock(&k->lock);
        gd_k8s_assigns_free(&old);
        if (rc != 0)
            gd_k8s_assigns_free(&got);
        if (rc != 0 && !failing) {
            snprintf(msg, sizeof msg, "no pod labels: the kubelet's pod-resources at %s: %s", k->socket, err);
            say(k, msg);
        } else if (rc == 0 && (failing || !ever)) {
            snprintf(msg, sizeof msg, "pod labels from the kubelet's pod-resources at %s", k->socket);
            say(k, msg);
        }
        /* An answer past the cap: said once (again after one within it). */
        size_t over = rc == 0 ? got.over_cap : 0;
        if (over && !capped) {
            snprintf(msg, sizeof msg,
                     "the kubelet listed %zu GPU devices past gpudoctor's cap of %d: the first %d keep their pod "
                     "labels, the rest have none",
                     over, GD_K8S_MAX_DEVICES, GD_K8S_MAX_DEVICES);
            say(k, msg);
        }
        if (rc == 0)
            capped = over > 0;
        failing = rc != 0;
        ever = ever || rc == 0;
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        double r = k->o.refresh_s > 0 ? k->o.refresh_s : GD_K8S_REFRESH_S;
        until.tv_sec += (time_t)r;
        until.tv_nsec += (long)((r - (double)(time_t)r) * 1e9);
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&k->lock);
        while (!k->stopping && pthread_cond_timedwait(&k->wake, &k->lock, &until) != ETIMEDOUT)
            ;
        bool stop = k->stopping;
        pthread_mutex_unlock(&k->lock);
        if (stop)
            return NULL;
    }
}

gd_k8s_pods *gd_k8s_pods_start(const gd_k8s_pods_opts *o, char *err, size_t errlen)
{
    gd_k8s_pods *k = calloc(1, sizeof *k);
    if (!k) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    k->o = *o;
    snprintf(k->socket, sizeof k->socket, "%s", o->socket ? o->socket : GD_K8S_DEFAULT_SOCKET);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&k->wake, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&k->lock, NULL);
    if (pthread_create(&k->thread, NULL, run, k) != 0) {
        snprintf(err, errlen, "cannot start the pod-resources thread");
        pthread_cond_destroy(&k->wake);
        pthread_mutex_destroy(&k->lock);
        free(k);
        return NULL;
    }
    return k;
}

bool gd_k8s_pods_lookup(gd_k8s_pods *k, const char *uuid, int index, gd_k8s_assign *out)
{
    if (!k)
        return false;
    pthread_mutex_lock(&k->lock);
    const gd_k8s_assign *a = gd_k8s_assigns_find(&k->now, uuid, index);
    if (a)
        *out = *a;
    pthread_mutex_unlock(&k->lock);
    return a != NULL;
}

unsigned long gd_k8s_pods_answers(gd_k8s_pods *k)
{
    pthread_mutex_lock(&k->lock);
    unsigned long n = k->answers;
    pthread_mutex_unlock(&k->lock);
    return n;
}

void gd_k8s_pods_stop(gd_k8s_pods *k)
{
    if (!k)
        return;
    pthread_mutex_lock(&k->lock);
    k->stopping = true;
    pthread_cond_signal(&k->wake);
    pthread_mutex_unlock(&k->lock);
    pthread_join(k->thread, NULL);
    gd_k8s_assigns_free(&k->now);
    pthread_cond_destroy(&k->wake);
    pthread_mutex_destroy(&k->lock);
    free(k);
}
