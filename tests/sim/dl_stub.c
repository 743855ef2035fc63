/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A small library for dl_table's tests (test_dl_table.c): a function
 * exported under a newer and an older name (answering 2 and 1, so a test
 * can tell which one the loader took) and one under an old name only.
 */
#define EXPORT __attribute__((visibility("default")))

EXPORT int dl_stub_answer_v2(void)
{
    return 2;
}

EXPORT int dl_stub_answer(void)
{
    return 1;
}

EXPORT int dl_stub_old(void)
{
    return 10;
}
