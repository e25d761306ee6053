/* test_scene_json.c: the scene reader's JSON layer. Malformed JSON, an empty file or a top
 * level that is not an object, and text that is not what it should be (invalid UTF-8, CRLF,
 * a byte order mark) are refused with path:line:column and what is wrong; damaged files never
 * crash. Scenes are written as testutil.h says (' for ", '@' where the error must point). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "../../src/scene/scene.h"

#define TEXT_CAP 8192

/* ---- malformed JSON ---------------------------------------------------------------------- */

static void test_malformed_missing_comma(void **state)
{
    (void)state;
    EXPECT_ERR("{\n  'camera': {'position': [0, 1, 5] @'look_at': [0, 1, 0]}\n}", NULL,
               "malformed JSON", "expected ',' or '}'", "found '\"look_at\"'", "missing ','");
}

static void test_malformed_trailing_comma(void **state)
{
    (void)state;
    EXPECT_ERR("{\n  'objects': [1, 2@,\n  ]\n}", NULL, "malformed JSON", "trailing comma before ']'");
}

static void test_malformed_truncated(void **state)
{
    (void)state;
    EXPECT_ERR("{'camera': {'fov': 40}@", NULL, "malformed JSON", "the end of the file");
}

static void test_malformed_unterminated_string(void **state)
{
    (void)state;
    EXPECT_ERR("{'camera': {@'fov: 40}}", NULL, "malformed JSON", "unterminated string");
}

static void test_malformed_unquoted_key(void **state)
{
    (void)state;
    EXPECT_ERR("{\n  @camera: {}\n}", NULL, "malformed JSON", "found 'camera'", "keys need double quotes");
}

static void test_malformed_comment(void **state)
{
    (void)state;
    EXPECT_ERR("{\n  @// the camera\n  'camera': {}\n}", NULL, "malformed JSON", "comments");
}

static void test_malformed_nan(void **state)
{
    (void)state;
    EXPECT_ERR("{'camera': {'fov': @NaN}}", NULL, "malformed JSON", "'NaN'", "finite");
    EXPECT_ERR("{'camera': {'fov': -@Infinity}}", NULL, "malformed JSON", "'Infinity'", "finite");
}

static void test_malformed_single_quotes(void **state)
{
    (void)state;
    EXPECT_ERR("{'camera': {'up': @`y`}}", NULL, "malformed JSON", "found a single quote", "double quotes");
}

static void test_malformed_bad_escape(void **state)
{
    (void)state;
    EXPECT_ERR("{'materials': {'a@\\q': {}}}", NULL, "malformed JSON", "invalid escape '\\q'");
    EXPECT_ERR("{'materials': {'a@\\ud800': {}}}", NULL, "malformed JSON", "surrogate");
}

static void test_malformed_trailing_garbage(void **state)
{
    (void)state;
    EXPECT_ERR("{'camera': {}}\n@}", NULL, "malformed JSON", "unexpected '}'", "after the end");
}

static void test_malformed_nul_byte(void **state)
{
    (void)state;
    const char text[] = "{\"camera\":\0 {}}";
    const char *msg = sr_test_parse_refused("t.json", text, sizeof text - 1);
    assert_non_null(strstr(msg, "t.json:1:11: malformed JSON"));
    assert_non_null(strstr(msg, "NUL"));
}

static void test_malformed_too_deep(void **state)
{
    (void)state;
    static char text[4000];
    size_t n = 0;
    text[n++] = '{';
    memcpy(text + n, "\"a\":", 4);
    n += 4;
    for (int i = 0; i < 1001; i++) text[n++] = '[';
    for (int i = 0; i < 1001; i++) text[n++] = ']';
    text[n++] = '}';
    const char *msg = sr_test_parse_refused("t.json", text, n);
    assert_non_null(strstr(msg, "nested too deeply"));
    assert_non_null(strstr(msg, "t.json:1:1005:"));
}

static void test_empty_file(void **state)
{
    (void)state;
    EXPECT_ERR("@", NULL, "malformed JSON", "the file is empty");
    EXPECT_ERR("@  \n\t \n", NULL, "malformed JSON", "the file is empty");
    assert_non_null(strstr(sr_test_parse_refused("t.json", NULL, 0), "t.json:1:1: malformed JSON: the file is empty"));
}

static void test_top_level_not_object(void **state)
{
    (void)state;
    EXPECT_ERR("\n  @[1, 2, 3]", NULL, "top level must be an object", "got an array of 3 elements");
    EXPECT_ERR("@\"scene\"", NULL, "top level must be an object", "got a string");
}

/* ---- text encoding and positions --------------------------------------------------------- */

static void test_utf8_and_crlf_positions(void **state)
{
    (void)state;
    /* columns count characters (é is two bytes, one column); CRLF counts as one line break */
    const char *text = "{\"camera\": {\"position\": [0, 1, 5], \"look_at\": [0, 1, 0]},\r\n"
                       "\"materials\": {\"m\": {\"type\": \"diffuse\"}},\r\n"
                       "\"objects\": [{\"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 1, \"material\": \"m\"}],\r\n"
                       "\"background\": [0, 0, 0], \"\xC3\xA9t\xC3\xA9\": 1}";
    const char *msg = sr_test_parse_refused("t.json", text, strlen(text));
    if (!strstr(msg, "t.json:4:26: [\"\xC3\xA9t\xC3\xA9\"]: unknown key")) fail_msg("%s", msg);
}

/* Invalid UTF-8 anywhere (a material name of 0xFF 0xFE, an overlong '/', a surrogate, a
 * truncated sequence) is refused with the line and column of the first bad byte; valid
 * multi-byte text (é, 𝄞) passes that check. */
static void test_invalid_utf8_refused(void **state)
{
    (void)state;
    static const struct { const char *bytes, *where; } bad[] = {
        { "m\xff\xfe", "t.json:2:17: invalid UTF-8 (byte 0xFF)" },
        { "m\xc0\xaf", "t.json:2:17: invalid UTF-8 (byte 0xC0)" },
        { "m\xed\xa0\x80", "t.json:2:17: invalid UTF-8 (byte 0xED)" },
        { "m\xe2\x82", "t.json:2:17: invalid UTF-8 (byte 0xE2)" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char text[512];
        snprintf(text, sizeof text, "{\"camera\": {\"position\": [0, 1, 5], \"look_at\": [0, 1, 0]},\n"
                 "\"materials\": {\"%s\": {\"type\": \"diffuse\"}},\n"
                 "\"objects\": [{\"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 1, \"material\": \"m\"}]}",
                 bad[k].bytes);
        const char *msg = sr_test_parse_refused("t.json", text, strlen(text));
        if (!strstr(msg, bad[k].where)) fail_msg("case %zu: %s", k, msg);
    }
    const char *good = "{\"camera\": {\"position\": [0, 1, 5], \"look_at\": [0, 1, 0]},\n"
                       "\"materials\": {\"\xc3\xa9\xf0\x9d\x84\x9e\": {\"type\": \"diffuse\"}},\n"
                       "\"objects\": [{\"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 1, "
                       "\"material\": \"\xc3\xa9\xf0\x9d\x84\x9e\"}]}";
    sr_scene s;
    sr_test_parse("t.json", good, &s);
    sr_scene_free(&s);
}

static void test_bom_accepted(void **state)
{
    (void)state;
    char text[TEXT_CAP];
    unsigned long l, c;
    strcpy(text, "\xEF\xBB\xBF");
    sr_test_unmark("{" CAM ", " MATS ", " OBJS "}", text + 3, sizeof text - 3, &l, &c);
    sr_scene s;
    sr_test_parse("t.json", text, &s);
    sr_scene_free(&s);
    /* and columns do not count it */
    sr_test_unmark("{@'x': 1}", text + 3, sizeof text - 3, &l, &c);
    assert_non_null(strstr(sr_test_parse_refused("t.json", text, strlen(text)), "t.json:1:2: x: unknown key"));
}

/* ---- damage ------------------------------------------------------------------------------ */

/* Every prefix and many one-byte edits of a good scene: no crash, no leak (under a sanitizer),
 * and every failure is an input error whose message starts with the path. */
static void test_robust_to_damage(void **state)
{
    (void)state;
    static char base[TEXT_CAP], text[TEXT_CAP];
    unsigned long l, c;
    size_t len = sr_test_unmark("{\n 'camera': {'position': [0, 1, 5], 'look_at': [0, 1, 0], 'up': [0, 1, 0], 'fov': 40},\n"
                         " 'image': {'width': 64, 'height': 36, 'spp': 1, 'max_depth': 4},\n"
                         " 'background': [0.5, 0.7, 1], 'ambient': [0.1, 0.1, 0.1],\n"
                         " 'materials': {'a': {'type': 'diffuse', 'checker': {'color': [0, 0, 0], 'scale': 1}},"
                         " 'b': {'type': 'glass', 'ior': 1.5}},\n"
                         " 'objects': [{'type': 'sphere', 'center': [0, 1, 0], 'radius': 1, 'material': 'b'},\n"
                         "   {'type': 'plane', 'point': [0, 0, 0], 'normal': [0, 1, 0], 'material': 'a'},\n"
                         "   {'type': 'quad', 'corner': [0, 2, 0], 'edge_u': [1, 0, 0], 'edge_v': [0, 0, 1], 'material': 'a'}],\n"
                         " 'lights': [{'type': 'point', 'position': [0, 5, 0], 'intensity': 50}]\n}",
                         base, sizeof base, &l, &c);
    const char subst[] = {'\0', '"', '{', '}', '[', ']', ',', ':', '-', '0', 'x', ' ', '\\', '\n', (char)0xC3};
    size_t failures = 0;
    for (size_t cut = 0; cut <= len; cut++) {
        for (size_t k = 0; k <= sizeof subst; k++) {
            memcpy(text, base, len);
            size_t n = len;
            if (k == sizeof subst) n = cut;              /* a prefix */
            else if (cut < len) text[cut] = subst[k];    /* one byte changed */
            else continue;
            sr_scene s;
            sr_error e;
            memset(&e, 0, sizeof e);
            sr_status st = sr_scene_parse("d.json", text, n, &s, &e);
            if (st == SR_OK) {
                sr_scene_free(&s);
                continue;
            }
            failures++;
            assert_int_equal(st, SR_ERR_INPUT);
            if (strncmp(e.msg, "d.json:", 7) != 0) fail_msg("%s", e.msg);
            assert_true(sr_test_is_zero(&s, sizeof s));
        }
    }
    assert_true(failures > len);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_malformed_missing_comma),
        cmocka_unit_test(test_malformed_trailing_comma),
        cmocka_unit_test(test_malformed_truncated),
        cmocka_unit_test(test_malformed_unterminated_string),
        cmocka_unit_test(test_malformed_unquoted_key),
        cmocka_unit_test(test_malformed_comment),
        cmocka_unit_test(test_malformed_nan),
        cmocka_unit_test(test_malformed_single_quotes),
        cmocka_unit_test(test_malformed_bad_escape),
        cmocka_unit_test(test_malformed_trailing_garbage),
        cmocka_unit_test(test_malformed_nul_byte),
        cmocka_unit_test(test_malformed_too_deep),
        cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_top_level_not_object),
        cmocka_unit_test(test_utf8_and_crlf_positions),
        cmocka_unit_test(test_invalid_utf8_refused),
        cmocka_unit_test(test_bom_accepted),
        cmocka_unit_test(test_robust_to_damage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
