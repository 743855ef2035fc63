/* SPDX-License-Identifier: Apache-2.0 */
/* The PCI id database through libpci (src/loaders/pci_ids.c): names where
 * libpci and pci.ids are installed (scripts/install-deps.sh run installs both),
 * nothing for ids it does not list; skipped without them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "loaders/pci_ids.h"

#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

static void names_from_the_database(void **state)
{
    (void)state;
    void *h = dlopen("libpci.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!h || access("/usr/share/misc/pci.ids", R_OK) != 0) {
        if (h)
            dlclose(h);
        /* libpci3 and pci.ids are recommended, not required */
        print_message("libpci.so.3 or /usr/share/misc/pci.ids is missing: skipped (sudo bash scripts/install-deps.sh "
                      "run installs libpci-dev and pci.ids)\n");
        skip();
    }
    dlclose(h);
    char name[128];
    assert_true(gd_pci_ids_device_name(0x10de, 0x2330, name, sizeof name));
    assert_non_null(strstr(name, "H100"));
    assert_true(gd_pci_ids_device_name(0x10de, 0x1e07, name, sizeof name));
    assert_non_null(strstr(name, "2080 Ti"));
    /* Not in the database: nothing, never a number made up as a name. */
    assert_false(gd_pci_ids_device_name(0x10de, 0xfffe, name, sizeof name));
    assert_string_equal(name, "");
    assert_false(gd_pci_ids_device_name(0x10de, 0x2330, name, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_from_the_database),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
