/* SPDX-License-Identifier: Apache-2.0 */
/* paste_parts (src/formats/capture/paste_parts.c): a paste of several
 * commands' outputs is cut at its prompt lines only when the outputs are
 * of different formats; each part keeps the file's line numbers, lsmod's
 * part keeps its prompt (its reader reads the grep pattern there). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "formats/capture/paste_parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The line number of the first non-blank line of text. */
static long first_text_line(const char *text)
{
    long line = 1;
    for (const char *p = text; *p; p++) {
        if (*p == '\n')
            line++;
        else if (*p != ' ' && *p != '\r' && *p != '\t')
            return line;
    }
    return 0;
}

static void different_formats_are_cut(void **state)
{
    (void)state;
    static const char text[] = "[u@n ~]$ ip -br -c a\n"
                               "lo UNKNOWN 127.0.0.1/8\n"
                               "eth0 UP 10.0.0.2/24\n"
                               "[u@n ~]$ ibdev2netdev\n"
                               "mlx5_0 port 1 ==> eth0 (Up)\n"
                               "[u@n ~]$ lsmod | grep nvidia_peermem\n"
                               "[u@n ~]$ ls\n"
                               "a b c\n";
    gd_paste p;
    assert_int_equal(gd_paste_cut(text, strlen(text), &p), 0);
    assert_int_equal(p.count, 3);
    assert_int_equal(p.part[0].kind, GD_IMPORT_IP_BRIEF);
    assert_int_equal(p.part[0].line, 2);
    assert_string_equal(p.part[0].command, "ip -br -c a");
    assert_int_equal(first_text_line(p.part[0].text), 2);
    assert_null(strstr(p.part[0].text, "ibdev2netdev")); /* the other parts are not in it */
    assert_int_equal(p.part[1].kind, GD_IMPORT_IBDEV2NETDEV);
    assert_int_equal(first_text_line(p.part[1].text), 5);
    assert_int_equal(p.part[2].kind, GD_IMPORT_LSMOD);
    assert_int_equal(first_text_line(p.part[2].text), 6); /* its prompt kept */
    assert_non_null(strstr(p.part[2].text, "lsmod | grep nvidia_peermem"));
    assert_int_equal(p.unread, 1); /* ls's output */
    assert_int_equal(p.unread_line, 8);
    assert_string_equal(p.unread_command, "ls");
    assert_int_equal(p.shell.count, 4);
    gd_paste_free(&p);
}

static void one_format_in_pieces_stays_whole(void **state)
{
    (void)state;
    static const char text[] = "root@n:~# dmesg -T | grep NVRM\n"
                               "[Tue Mar  5 10:00:00 2024] NVRM: Xid (PCI:0000:3b:00): 79, pid=1\n"
                               "root@n:~# dmesg -T | grep -i aer\n"
                               "[Tue Mar  5 10:00:01 2024] NVRM: Xid (PCI:0000:3b:00): 79, pid=2\n";
    gd_paste p;
    assert_int_equal(gd_paste_cut(text, strlen(text), &p), 0);
    assert_int_equal(p.count, 1);
    assert_int_equal(p.part[0].kind, GD_IMPORT_KERNEL_LOG);
    assert_int_equal(p.part[0].len, strlen(text));
    assert_int_equal(first_text_line(p.part[0].text), 2); /* prompts blanked, nothing moved */
    assert_int_equal(p.unread, 0);
    gd_paste_free(&p);

    /* No prompt at all: the file as it is; an unknown one stays unknown (its reader says why). */
    assert_int_equal(gd_paste_cut("hello\n", 6, &p), 0);
    assert_int_equal(p.count, 1);
    assert_int_equal(p.part[0].kind, GD_IMPORT_UNKNOWN);
    gd_paste_free(&p);

    /* lsmod's greps that printed nothing: the whole file, prompts kept. */
    static const char greps[] = "# lsmod | grep nvidia_peermem\n# lsmod | grep nv_peer_mem\n";
    assert_int_equal(gd_paste_cut(greps, strlen(greps), &p), 0);
    assert_int_equal(p.count, 1);
    assert_int_equal(p.part[0].kind, GD_IMPORT_LSMOD);
    assert_string_equal(p.part[0].text, greps);
    gd_paste_free(&p);
}

/* Past GD_PASTE_MAX_PARTS - 1 prompts, the rest is one with the part before it. */
static void prompts_past_the_limit(void **state)
{
    (void)state;
    size_t cap = 64 * 1024, used = 0;
    char *text = malloc(cap);
    for (int i = 0; i < 40; i++)
        used += (size_t)snprintf(text + used, cap - used, "$ %s\n%s\n", i % 2 ? "ibdev2netdev" : "ip -br a",
                                 i % 2 ? "mlx5_0 port 1 ==> eth0 (Up)" : "lo UNKNOWN 127.0.0.1/8");
    gd_paste p;
    assert_int_equal(gd_paste_cut(text, used, &p), 0);
    /* The text before the first prompt, then 31 prompts: 30 parts and the
     * last, which holds the other 10 outputs mixed, read or passed over as a whole. */
    if (p.count + p.unread != GD_PASTE_MAX_PARTS - 1)
        fail_msg("%zu parts, %zu passed over", p.count, p.unread);
    gd_paste_free(&p);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(different_formats_are_cut),
        cmocka_unit_test(one_format_in_pieces_stays_whole),
        cmocka_unit_test(prompts_past_the_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
