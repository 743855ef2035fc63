/* SPDX-License-Identifier: Apache-2.0 */
/* GPU names of lspci captures (src/formats/capture/lspci_name.c): the PCI id
 * database's model where the device id is known, lspci's words without the
 * vendor's "Corporation" where it is not, the id kept. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "formats/capture/lspci_name.h"

#include <string.h>

static void device_ids_from_what_lspci_prints(void **state)
{
    (void)state;
    assert_int_equal(gd_lspci_device_id("NVIDIA Corporation Device 2330"), 0x2330);
    assert_int_equal(gd_lspci_device_id("nVidia Corporation Device 1db6"), 0x1db6);
    assert_int_equal(gd_lspci_device_id("NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330]"), 0x2330);
    assert_int_equal(gd_lspci_device_id("NVIDIA Corporation GV102"), -1);
    assert_int_equal(gd_lspci_device_id("NVIDIA Corporation Device 23"), -1);
    assert_int_equal(gd_lspci_device_id("NVIDIA Corporation Device 2330x"), -1);
    assert_int_equal(gd_lspci_device_id(""), -1);
    /* lspci -x: the configuration space starts with the vendor and device ids, little-endian. */
    assert_int_equal(gd_lspci_dump_device_id("00: de 10 07 1e 07 05 10 00 a1 00 00 03 00 00 80 00"), 0x1e07);
    assert_int_equal(gd_lspci_dump_device_id("00: 86 80 30 23 07 05 10 00"), -1);
    assert_int_equal(gd_lspci_dump_device_id("10: de 10 07 1e"), -1);
    assert_int_equal(gd_lspci_dump_device_id("00: de 10"), -1);
}

static void name_is(const char *desc, long id, const char *db, const char *want)
{
    char got[96];
    gd_lspci_gpu_name(desc, id, db, got, sizeof got);
    if (strcmp(got, want) != 0)
        fail_msg("'%s' (%ld, db '%s'): '%s', want '%s'", desc, id, db ? db : "(none)", got, want);
    assert_null(strstr(got, "Corporation"));
}

static void names_from_the_database_or_lspci(void **state)
{
    (void)state;
    /* The database knows the id: its model leads, the chip and the id stay. */
    name_is("NVIDIA Corporation Device 2330", 0x2330, "GH100[H100 SXM5 80GB]",
            "NVIDIA H100 SXM5 80GB (GH100, 10de:2330)");
    name_is("NVIDIA Corporation GV102", 0x1e07, "TU102 [GeForce RTX 2080 Ti Rev. A]",
            "NVIDIA GeForce RTX 2080 Ti Rev. A (TU102, 10de:1e07)");
    name_is("NVIDIA Corporation Device 2b85", 0x2b85, "GB202", "NVIDIA GB202 (10de:2b85)");
    /* No database: lspci's own words, cleaned, with the id where known. */
    name_is("NVIDIA Corporation Device 2330", 0x2330, NULL, "NVIDIA GPU (10de:2330)");
    name_is("NVIDIA Corporation GV102", 0x1e07, "", "NVIDIA GV102 (10de:1e07)");
    name_is("NVIDIA Corporation GK104GL [GRID K520]", -1, NULL, "NVIDIA GRID K520 (GK104GL)");
    name_is("NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330]", 0x2330, NULL,
            "NVIDIA H100 SXM5 80GB (GH100, 10de:2330)");
    name_is("nVidia Corporation GF100 [GeForce GTX 480]", -1, NULL, "NVIDIA GeForce GTX 480 (GF100)");
    name_is("", -1, NULL, "NVIDIA GPU");
    /* A database entry that is only "Device ...", or empty, does not replace lspci's words. */
    name_is("NVIDIA Corporation GV102", 0x1e07, "Device 1e07", "NVIDIA GV102 (10de:1e07)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(device_ids_from_what_lspci_prints),
        cmocka_unit_test(names_from_the_database_or_lspci),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
