/* The bounded series: a ring of the newest samples, flat in memory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "gpudoctor/model.h"

static void unbounded_series_keeps_everything(void **state)
{
    (void)state;
    gd_series s;
    assert_int_equal(gd_series_init(&s, 2), 0);
    for (int i = 0; i < 1000; i++) {
        long k = gd_series_push(&s, i * 0.5);
        assert_int_equal(k, i);
        gd_series_slot(&s, (size_t)k, 1)[GD_M_TEMP_C] = gd_val(i);
    }
    assert_int_equal(s.n, 1000);
    assert_int_equal(s.dropped, 0);
    assert_true(gd_series_t(&s, 999) == 499.5);
    assert_true(gd_series_at(&s, 3, 1, GD_M_TEMP_C).v == 3);
    gd_series_free(&s);
}

static void a_limited_series_keeps_the_newest(void **state)
{
    (void)state;
    gd_series s;
    assert_int_equal(gd_series_init(&s, 3), 0);
    gd_series_set_limit(&s, 100);
    for (int i = 0; i < 1000; i++) {
        long k = gd_series_push(&s, (double)i);
        assert_true(k >= 0 && k < 100);
        gd_value *row = gd_series_slot(&s, (size_t)k, 2);
        assert_int_equal(row[GD_M_POWER_W].status, GD_ST_UNREAD); /* a reused row starts unread */
        row[GD_M_POWER_W] = gd_val(i * 10.0);
    }
    assert_int_equal(s.n, 100);
    assert_int_equal(s.cap, 100); /* never more storage than the limit */
    assert_int_equal(s.dropped, 900);
    /* Sample 0 is the oldest kept, in order to the newest. */
    for (size_t i = 0; i < s.n; i++) {
        assert_true(gd_series_t(&s, i) == 900.0 + (double)i);
        assert_true(gd_series_at(&s, i, 2, GD_M_POWER_W).v == (900.0 + (double)i) * 10.0);
    }
    *gd_series_t_slot(&s, 0) = -1;
    assert_true(gd_series_t(&s, 0) == -1);
    gd_series_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unbounded_series_keeps_everything),
        cmocka_unit_test(a_limited_series_keeps_the_newest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
