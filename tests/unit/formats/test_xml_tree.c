/* SPDX-License-Identifier: Apache-2.0 */
/* The element tree of the nvidia-smi XML importer (src/formats/capture/
 * xml_tree.c, Expat): text as libxml2's content gave it (entities and
 * character references decoded, CDATA as text, the text of the elements
 * below in document order), start-tag lines, attributes, UTF-8 whatever
 * the declaration says, entity declarations refused, where a cut document
 * stops. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "formats/capture/xml_tree.h"

#include <stdlib.h>
#include <string.h>

static gd_xml_node *parse_ok(const char *doc)
{
    gd_xml_node *root = NULL;
    char why[256];
    long line = -1;
    assert_int_equal(gd_xml_parse(doc, strlen(doc), &root, why, sizeof why, &line), GD_XML_OK);
    assert_non_null(root);
    return root;
}

/* A document that does not read: its status, why and where; no tree. */
static gd_xml_status refused(const char *doc, size_t len, char *why, long *line)
{
    gd_xml_node *root = NULL;
    gd_xml_status st = gd_xml_parse(doc, len, &root, why, 256, line);
    assert_int_not_equal(st, GD_XML_OK);
    assert_null(root);
    return st;
}

static const gd_xml_node *element(const gd_xml_node *n, const char *name)
{
    for (const gd_xml_node *c = n->first; c; c = c->next)
        if (gd_xml_is_element(c) && strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

static void assert_content(const gd_xml_node *n, const char *want)
{
    assert_non_null(n);
    char *got = gd_xml_content(n);
    assert_string_equal(got, want);
    free(got);
}

static void text_as_the_document_means_it(void **state)
{
    (void)state;
    gd_xml_node *root = parse_ok("<?xml version=\"1.0\"?>\n<nvidia_smi_log>\n"
                                 "<product_name>A&amp;B &#x41;&lt;<![CDATA[<x>]]></product_name>\n"
                                 "<driver_version>5<b>50</b>.1</driver_version>\n"
                                 "<gpu id=\" 0000:01:00.0\t\" other='x'><fb_memory_usage>\n"
                                 "  <total>80 MiB</total></fb_memory_usage></gpu>\n"
                                 "</nvidia_smi_log>\n");
    assert_string_equal(root->name, "nvidia_smi_log");
    assert_int_equal(root->line, 2);
    assert_content(element(root, "product_name"), "A&B A<<x>");
    /* Mixed content: the text below, in document order. */
    assert_content(element(root, "driver_version"), "550.1");
    const gd_xml_node *gpu = element(root, "gpu");
    assert_int_equal(gpu->line, 5);
    /* Attribute values normalized as XML says (a tab is a space). */
    assert_string_equal(gd_xml_attr(gpu, "id"), " 0000:01:00.0 ");
    assert_string_equal(gd_xml_attr(gpu, "other"), "x");
    assert_null(gd_xml_attr(gpu, "missing"));
    const gd_xml_node *total = element(element(gpu, "fb_memory_usage"), "total");
    assert_int_equal(total->line, 6);
    assert_content(total, "80 MiB");
    /* A parent's content holds its children's and the blanks between. */
    assert_content(element(gpu, "fb_memory_usage"), "\n  80 MiB");
    gd_xml_free(root);
}

static void read_as_utf8_whatever_it_declares(void **state)
{
    (void)state;
    /* A UTF-7 declaration would turn "+ADw-" into '<': it is read as UTF-8. */
    gd_xml_node *root = parse_ok("\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"UTF-7\"?>\r\n"
                                 "<nvidia_smi_log><x>+ADw-y+AD4-</x><y>caf\xc3\xa9</y></nvidia_smi_log>");
    assert_content(element(root, "x"), "+ADw-y+AD4-");
    assert_content(element(root, "y"), "caf\xc3\xa9");
    gd_xml_free(root);
    /* Latin-1 bytes are not UTF-8: refused, not guessed. */
    char why[256];
    long line = 0;
    static const char latin1[] = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>caf\xe9</a>";
    assert_int_equal(refused(latin1, strlen(latin1), why, &line), GD_XML_MALFORMED);
}

static void entities_refused(void **state)
{
    (void)state;
    char why[256];
    long line = 0;
    static const char laughs[] = "<!DOCTYPE a [<!ENTITY x \"xxxx\"><!ENTITY y \"&x;&x;&x;\">]><a>&y;</a>";
    assert_int_equal(refused(laughs, strlen(laughs), why, &line), GD_XML_ENTITY);
    /* An external DTD is named, never loaded: the document reads. */
    gd_xml_node *root = parse_ok("<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\"><nvidia_smi_log/>");
    assert_null(root->first);
    gd_xml_free(root);
}

static void where_a_cut_document_stops(void **state)
{
    (void)state;
    char why[256];
    long line = 0;
    static const char cut[] = "<nvidia_smi_log>\n<gpu id=\"0000:01:00.0\">\n<product_name>X</product";
    assert_int_equal(refused(cut, strlen(cut), why, &line), GD_XML_MALFORMED);
    assert_int_equal(line, 3);
    assert_non_null(strstr(why, "in <product_name>"));
    assert_int_equal(refused("<a/><b/>", 8, why, &line), GD_XML_MALFORMED);
    assert_int_equal(refused("", 0, why, &line), GD_XML_MALFORMED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_as_the_document_means_it),
        cmocka_unit_test(read_as_utf8_whatever_it_declares),
        cmocka_unit_test(entities_refused),
        cmocka_unit_test(where_a_cut_document_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
