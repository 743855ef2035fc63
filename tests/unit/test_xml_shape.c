/* SPDX-License-Identifier: Apache-2.0 */
/* The XML shape pre-scan and the entity guard of the nvidia-smi XML reader. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "formats/capture/import.h"
#include "formats/capture/xml_shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char dump[] = "<?xml version=\"1.0\" ?>\n"
                           "<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n"
                           "<nvidia_smi_log><!-- a <comment> --><driver_version>550.54.15</driver_version>"
                           "<gpu id=\"00000000:18:00.0\"><product_name><![CDATA[<x>]]></product_name></gpu>"
                           "<empty/></nvidia_smi_log>\n";

static void a_dump_passes(void **state)
{
    (void)state;
    char why[160];
    assert_null(gd_xml_shape_refusal(dump, strlen(dump), why, sizeof why));
}

/* Built by repeating `unit` n times between head and tail. */
static char *repeated(const char *head, const char *unit, size_t n, const char *tail, size_t *len)
{
    size_t u = strlen(unit), h = strlen(head), t = strlen(tail);
    char *s = malloc(h + u * n + t + 1);
    memcpy(s, head, h);
    for (size_t i = 0; i < n; i++)
        memcpy(s + h + i * u, unit, u);
    memcpy(s + h + u * n, tail, t + 1);
    *len = h + u * n + t;
    return s;
}

/* 60 000 attributes on one element (libxml2: tens of seconds) are refused in one pass. */
static void too_many_attributes(void **state)
{
    (void)state;
    size_t len;
    char *doc = repeated("<nvidia_smi_log><gpu", " a0000000=\"\"", 60000, "/></nvidia_smi_log>", &len);
    char why[160];
    assert_non_null(gd_xml_shape_refusal(doc, len, why, sizeof why));
    assert_non_null(strstr(why, "attributes on one element"));
    gd_facts f;
    memset(&f, 0, sizeof f);
    char err[512];
    assert_int_equal(gd_import_smi_xml("many.xml", doc, len, &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "refused before parsing"));
    gd_facts_free(&f);
    free(doc);
    /* Quotes hide '=': values are not attributes. */
    doc = repeated("<nvidia_smi_log><gpu id=\"", "a=b", 1000, "\"/></nvidia_smi_log>", &len);
    assert_null(gd_xml_shape_refusal(doc, len, why, sizeof why));
    free(doc);
}

static void too_deep_and_too_many_elements(void **state)
{
    (void)state;
    size_t len;
    char *doc = repeated("", "<a>", GD_XML_MAX_DEPTH + 1, "", &len);
    char why[160];
    assert_non_null(gd_xml_shape_refusal(doc, len, why, sizeof why));
    assert_non_null(strstr(why, "nested"));
    free(doc);
    doc = repeated("", "<a>", GD_XML_MAX_DEPTH, "", &len);
    assert_null(gd_xml_shape_refusal(doc, len, why, sizeof why));
    free(doc);
    doc = repeated("<r>", "<a/>", GD_XML_MAX_ELEMENTS, "</r>", &len);
    assert_non_null(gd_xml_shape_refusal(doc, len, why, sizeof why));
    assert_non_null(strstr(why, "elements"));
    free(doc);
}

static void internal_subsets_are_refused(void **state)
{
    (void)state;
    static const char laughs[] = "<?xml version=\"1.0\"?>\n<!DOCTYPE nvidia_smi_log [<!ENTITY a \"lol\">"
                                 "<!ENTITY b \"&a;&a;&a;&a;\">]>\n<nvidia_smi_log>&b;</nvidia_smi_log>\n";
    char why[160];
    assert_non_null(gd_xml_shape_refusal(laughs, strlen(laughs), why, sizeof why));
    assert_non_null(strstr(why, "internal subset"));
}

/* A UTF-7 document hides "<!ENTITY" from a byte search; parsed as UTF-8 it
 * has no markup at all, so it is refused as not XML, never expanded. */
static void utf7_cannot_hide_entities(void **state)
{
    (void)state;
    static const char utf7[] = "<?xml version=\"1.0\" encoding=\"UTF-7\"?>\n"
                               "+ADw-!DOCTYPE nvidia+AF8-smi+AF8-log +AFs-+ADw-!ENTITY a +ACI-lol+ACI-+AD4-+AF0-+AD4-\n"
                               "+ADw-nvidia+AF8-smi+AF8-log+AD4-+ACY-a+ADs-+ADw-/nvidia+AF8-smi+AF8-log+AD4-\n";
    gd_facts f;
    memset(&f, 0, sizeof f);
    char err[512];
    assert_int_equal(gd_import_smi_xml("utf7.xml", utf7, strlen(utf7), &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "malformed"));
    assert_int_equal(f.gpu_count, 0);
    gd_facts_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_dump_passes),
        cmocka_unit_test(too_many_attributes),
        cmocka_unit_test(too_deep_and_too_many_elements),
        cmocka_unit_test(internal_subsets_are_refused),
        cmocka_unit_test(utf7_cannot_hide_entities),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
