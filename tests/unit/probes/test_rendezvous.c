/* SPDX-License-Identifier: Apache-2.0 */
/* The ranks' meeting on loopback, each rank a process: all arrive, one
 * late, one dead, a wrong address, a port taken. Every wait is bounded
 * (a second at most), so a fault ends the test, never hangs it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "probes/rendezvous.h"

#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A port nothing listens on now. */
static int free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(s, (struct sockaddr *)&a, &len), 0);
    close(s);
    return ntohs(a.sin_port);
}

static gd_launch at(int rank, int world, const char *addr, int port)
{
    gd_launch l = {.rank = rank, .world = world, .local_rank = -1, .master_port = port};
    snprintf(l.master_addr, sizeof l.master_addr, "%s", addr);
    return l;
}

/* Rank `rank` in a child after delay_ms: exits 0 when it received blob 0x5a..., 1 otherwise. */
static pid_t child_rank(int rank, int world, int port, int delay_ms, double timeout_s)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    struct timespec d = {delay_ms / 1000, (delay_ms % 1000) * 1000000L};
    nanosleep(&d, NULL);
    gd_launch l = at(rank, world, "127.0.0.1", port);
    unsigned char blob[GD_RDV_BLOB] = {0};
    gd_rdv_result res;
    char err[256], host[32];
    snprintf(host, sizeof host, "node%d", rank);
    int rc = gd_rendezvous(&l, host, timeout_s, blob, &res, err, sizeof err);
    _exit(rc == 0 && blob[0] == 0x5a && blob[GD_RDV_BLOB - 1] == 0x5a ? 0 : 1);
}

static int exit_of(pid_t pid)
{
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void all_arrive_one_late(void **state)
{
    (void)state;
    int port = free_port();
    pid_t kids[3];
    for (int r = 1; r < 4; r++)
        kids[r - 1] = child_rank(r, 4, port, r == 3 ? 300 : 0, 5); /* rank 3 comes 0.3 s late; the others early */
    gd_launch l = at(0, 4, "127.0.0.1", port);
    unsigned char blob[GD_RDV_BLOB];
    memset(blob, 0x5a, sizeof blob);
    gd_rdv_result res;
    char err[256] = "";
    int rc = gd_rendezvous(&l, "node0", 5, blob, &res, err, sizeof err);
    if (rc != 0)
        fail_msg("%s", err);
    assert_int_equal(res.missing, 0);
    assert_string_equal(res.ranks[3].host, "node3");
    assert_true(res.ranks[3].at_s >= 0.2);
    gd_rdv_result_free(&res);
    for (int k = 0; k < 3; k++)
        assert_int_equal(exit_of(kids[k]), 0);
}

static void a_dead_rank_is_named(void **state)
{
    (void)state;
    int port = free_port();
    pid_t one = child_rank(1, 3, port, 0, 2); /* rank 2 never comes */
    gd_launch l = at(0, 3, "127.0.0.1", port);
    unsigned char blob[GD_RDV_BLOB];
    memset(blob, 0x5a, sizeof blob);
    gd_rdv_result res;
    char err[256] = "";
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(gd_rendezvous(&l, "node0", 0.5, blob, &res, err, sizeof err), -1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_true((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9 < 1.5); /* its own timeout, no more */
    assert_non_null(strstr(err, "rank 2 of 3 did not arrive"));
    assert_int_equal(res.missing, 1);
    assert_true(res.ranks[1].arrived && !res.ranks[2].arrived);
    gd_rdv_result_free(&res);
    assert_int_equal(exit_of(one), 1); /* rank 1 heard no blob: the run does not go on */
}

static void a_wrong_master_is_said(void **state)
{
    (void)state;
    int port = free_port();
    gd_launch l = at(1, 2, "127.0.0.1", port); /* nobody listens there */
    unsigned char blob[GD_RDV_BLOB];
    gd_rdv_result res;
    char err[256] = "";
    assert_int_equal(gd_rendezvous(&l, "node1", 0.4, blob, &res, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot reach rank 0 at 127.0.0.1"));
    assert_non_null(strstr(err, "refused"));
    l = at(1, 2, "no-such-host.invalid", port);
    assert_int_equal(gd_rendezvous(&l, "node1", 5, blob, &res, err, sizeof err), -1); /* at once: a name */
    assert_non_null(strstr(err, "no-such-host.invalid"));
}

static void a_taken_port_is_said(void **state)
{
    (void)state;
    int port = free_port();
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(s, 1), 0);
    gd_launch l = at(0, 2, "127.0.0.1", port);
    unsigned char blob[GD_RDV_BLOB] = {0};
    gd_rdv_result res;
    char err[256] = "";
    assert_int_equal(gd_rendezvous(&l, "node0", 0.3, blob, &res, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot listen on port"));
    assert_non_null(strstr(err, "MASTER_PORT"));
    gd_rdv_result_free(&res);
    close(s);
}

/* After the meeting, the connections carry the run's messages both ways; a
 * message of another type or size, or a peer gone, is -1 within its bound. */
static void messages_after_the_meeting(void **state)
{
    (void)state;
    int port = free_port();
    pid_t kid = fork();
    if (kid == 0) {
        gd_launch l = at(1, 2, "127.0.0.1", port);
        unsigned char blob[GD_RDV_BLOB];
        gd_rdv_result res;
        char err[256], got[16] = "";
        int ok = gd_rendezvous(&l, "node1", 5, blob, &res, err, sizeof err) == 0 &&
                 gd_rdv_recv(res.fds[0], 7, got, sizeof got, 5) == 0 && strcmp(got, "measure") == 0 &&
                 gd_rdv_send(res.fds[0], 8, "node1 done", 11, 5) == 0;
        gd_rdv_result_free(&res);
        _exit(ok ? 0 : 1);
    }
    gd_launch l = at(0, 2, "127.0.0.1", port);
    unsigned char blob[GD_RDV_BLOB] = {0};
    gd_rdv_result res;
    char err[256] = "", msg[16] = "measure", reply[11] = "";
    assert_int_equal(gd_rendezvous(&l, "node0", 5, blob, &res, err, sizeof err), 0);
    assert_int_equal(gd_rdv_send(res.fds[1], 7, msg, sizeof msg, 5), 0);
    assert_int_equal(gd_rdv_recv(res.fds[1], 8, reply, sizeof reply, 5), 0);
    assert_string_equal(reply, "node1 done");
    assert_int_equal(exit_of(kid), 0);
    /* The peer has gone: no wait past the bound, and no message. */
    assert_int_equal(gd_rdv_recv(res.fds[1], 8, reply, sizeof reply, 0.5), -1);
    assert_int_equal(gd_rdv_recv(-1, 8, reply, sizeof reply, 0.5), -1);
    gd_rdv_result_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(all_arrive_one_late), cmocka_unit_test(a_dead_rank_is_named),
                                       cmocka_unit_test(a_wrong_master_is_said), cmocka_unit_test(a_taken_port_is_said),
                                       cmocka_unit_test(messages_after_the_meeting)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
