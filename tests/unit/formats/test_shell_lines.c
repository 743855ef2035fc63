/* SPDX-License-Identifier: Apache-2.0 */
/* shell_lines (src/formats/capture/shell_lines.c): the prompts, command
 * lines and sudo prompts of a terminal paste are told from every tool's
 * output, and blanked without moving a line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "formats/capture/shell_lines.h"

#include <string.h>

static bool shell(const char *line)
{
    return gd_shell_line(line, strlen(line));
}

static void prompts_and_commands_are_shell_lines(void **state)
{
    (void)state;
    static const char *const yes[] = {
        "root@node1:~# dmesg -T | grep NVRM",
        "root@node4:~# dmesg -T |grep NVRM",
        "jdh4@della-j11g1:~$ nvidia-smi -a",
        "sonata@dev-canyon1:~/stelline$ nvidia-smi topo -m",
        "$ sonata@coyote2:~$ sudo lspci -vvv -s 01:00.0",
        "$ nvidia-smi topo -m",
        "$ sudo lspci -vvv",
        "# nvidia-smi -q",
        "% /usr/bin/lspci -d 10de:* -vv",
        "[user@gpu01 ~]$ nvidia-smi -q -x > smi.xml",
        "(base) user@host:~$ nvidia-smi",
        "user@host ~ % journalctl -k -b",
        "root@node1:~#",
        "PS C:\\Users\\me> nvidia-smi -q",
        "[sudo] password for sonata:",
        "Password:",
        "dmesg -T | grep -i xid",
        "sudo lspci -vvv",
        "nvidia-smi -q",
        "nvidia-smi",
        "    $ nvidia-smi -q",
        "root@node1:~# \r",
        "^C",
        "((sglang-0.5.9) ) [dcbsr_dev@tpgds-aihub0007 ~]$ ip -br -c a",
        "$ ibdev2netdev | column -t",
        "show_gids",
        "ibstatus",
        "# lsmod | grep nv_peer_mem",
        "(pytorch) [root@gpu3 ~]#",
    };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        if (!shell(yes[i]))
            fail_msg("'%s' is a shell line", yes[i]);
}

/* Every tool's output, and what a paste quotes of it, stays. */
static void output_lines_are_not(void **state)
{
    (void)state;
    static const char *const no[] = {
        "# gpu   pwr  gtemp  mtemp     sm    mem",
        "# Idx     W      C      C      %      %",
        "#Date       Time        gpu    pwr",
        "$ 12",
        "> [  5.123] NVRM: Xid (PCI:0000:3b:00): 79, pid=1",
        "GPU0     X      NV18    NV18    0-51    0",
        "01:00.0 VGA compatible controller: NVIDIA Corporation AD102GL",
        "        LnkSta: Speed 2.5GT/s (downgraded), Width x16",
        "[Fri Apr  5 21:29:39 2024] NVRM: GPU 0000:a1:00.0: GPU has fallen off the bus.",
        "Dec  2 11:38:27 worker4 kernel: [  199.234935] NVRM: GPU 0000:0a:00.0: rm_init_adapter failed",
        "user@1000.service: Succeeded.",
        "sudo: unable to resolve host node1",
        "dmesg: read kernel buffer failed: Operation not permitted",
        "nvidia-smi[1234]: failed",
        "cat is not a command here",
        "timestamp, name, pci.bus_id, temperature.gpu",
        "    Product Name                          : NVIDIA H100 80GB HBM3",
        "==============NVSMI LOG==============",
        "<?xml version=\"1.0\" ?>",
        "",
        "   ",
        "^Caret",
        "CA 'mlx5_0'",
        "Infiniband device 'mlx5_0' port 1 status:",
        "mlx5_0 port 1 ==> ibp26s0 (Down)",
        "nvidia_peermem         16384  0",
        "lo               UNKNOWN        127.0.0.1/8",
        "mlx5_0  1       4       0000:0000:0000:0000:0000:ffff:0a0c:0015 10.12.0.21      v1      net1",
        "hca_id:\tmlx5_0",
        "((unbalanced ) user@host:~$ ls",
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        if (shell(no[i]))
            fail_msg("'%s' is output, not a shell line", no[i]);
}

static void blanking_keeps_line_numbers(void **state)
{
    (void)state;
    char text[] = "$ sudo lspci -vvv -s c1:00.0\n[sudo] password for sonata:\r\nc1:00.0 VGA compatible controller\n"
                  "\tLnkSta: Speed 2.5GT/s\nroot@node1:~# exit\n";
    size_t len = strlen(text);
    gd_shell_skip sk;
    gd_shell_lines_blank(text, len, &sk);
    assert_int_equal(strlen(text), len);
    assert_int_equal(sk.count, 3);
    assert_int_equal(sk.first_line, 1);
    assert_string_equal(sk.first, "$ sudo lspci -vvv -s c1:00.0");
    assert_string_equal(text, "                            \n                           \r\nc1:00.0 VGA compatible "
                              "controller\n\tLnkSta: Speed 2.5GT/s\n                  \n");
    char none[] = "[    5.1] NVRM: loading\n";
    gd_shell_lines_blank(none, strlen(none), &sk);
    assert_int_equal(sk.count, 0);
    assert_int_equal(sk.first_line, 0);
    assert_string_equal(none, "[    5.1] NVRM: loading\n");
}

/* The command a shell line ran: what a paste is cut at, and what lsmod's reader reads. */
static void commands_of_shell_lines(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        int kind;
        const char *cmd;
    } cases[] = {
        {"(pytorch) [root@gpu3 ~]# lsmod | grep nvidia_peermem", 2, "lsmod | grep nvidia_peermem"},
        {"((sglang-0.5.9) ) [u@h ~]$ ibdev2netdev ", 2, "ibdev2netdev"},
        {"(pytorch) [root@gpu3 ~]#", 2, ""},
        {"show_gids", 2, "show_gids"},
        {"$ sudo lspci -vvv", 2, "sudo lspci -vvv"},
        {"[sudo] password for sonata:", 1, ""},
        {"^C", 1, ""},
        {"mlx5_0 port 1 ==> ib0 (Up)", 0, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[96];
        int k = gd_shell_command(cases[i].line, strlen(cases[i].line), cmd, sizeof cmd);
        if (k != cases[i].kind || strcmp(cmd, cases[i].cmd) != 0)
            fail_msg("'%s': %d '%s', want %d '%s'", cases[i].line, k, cmd, cases[i].kind, cases[i].cmd);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prompts_and_commands_are_shell_lines),
        cmocka_unit_test(output_lines_are_not),
        cmocka_unit_test(blanking_keeps_line_numbers),
        cmocka_unit_test(commands_of_shell_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
