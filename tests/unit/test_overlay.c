/* The viewer's overlay text as triangles (src/viewer/overlay.c, the part without GL): the key
 * list that H shows is the help's "Controls:" part and lays out into glyphs; each glyph sits
 * in its character's cell, inside the box; the box follows the longest line and the line
 * count; bytes the font lacks show as '?'; scale scales all of it. The drawing itself is
 * tested under Xvfb (view_xvfb.c). Exits 77 (skipped) in a build without the viewer. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SR_HAVE_VIEWER
#include "../../src/viewer/overlay.h"
#include "../../src/viewer/view_opts.h"

static sr_overlay_mesh layout(const char *text, float scale, float x, float y)
{
    sr_overlay_mesh m;
    sr_error err = { SR_OK, "" };
    assert_int_equal(sr_overlay_layout(text, strlen(text), scale, x, y, &m, &err), SR_OK);
    assert_true(m.vertex_count >= SR_OVERLAY_BOX_VERTICES);
    assert_int_equal((m.vertex_count - SR_OVERLAY_BOX_VERTICES) % 6u, 0);   /* whole quads of two triangles */
    return m;
}

/* Every vertex inside the box from (x, y), the box's own six on its corners. */
static void assert_inside_box(const sr_overlay_mesh *m, float x, float y)
{
    for (uint32_t i = 0; i < m->vertex_count; i++) {
        const float px = m->xy[2 * i], py = m->xy[2 * i + 1];
        assert_true(px >= x && px <= x + m->width);
        assert_true(py >= y && py <= y + m->height);
    }
    for (uint32_t i = 0; i < SR_OVERLAY_BOX_VERTICES; i++) {
        const float px = m->xy[2 * i], py = m->xy[2 * i + 1];
        assert_true(px == x || px == x + m->width);
        assert_true(py == y || py == y + m->height);
    }
}

static void test_key_list_is_the_help_s(void **state)
{
    (void)state;
    size_t len = 0;
    const char *keys = sr_view_keys(&len);
    assert_true(len > 200);
    assert_ptr_equal(keys, strstr(sr_view_help, "Controls:"));   /* one text: --help, stdout and the overlay */
    char *copy = strndup(keys, len);
    assert_non_null(copy);
    assert_non_null(strstr(copy, "\n  H "));
    assert_non_null(strstr(copy, "\n  Esc "));
    assert_null(strstr(copy, "The window title"));
    sr_overlay_mesh m = layout(copy, 1.0f, 8.0f, 8.0f);
    /* hundreds of glyphs, each of a few quads */
    assert_true(m.vertex_count > SR_OVERLAY_BOX_VERTICES + 6u * 500u);
    assert_inside_box(&m, 8.0f, 8.0f);
    sr_overlay_mesh_free(&m);
    free(copy);
}

static void test_box_follows_lines_and_columns(void **state)
{
    (void)state;
    sr_overlay_mesh empty = layout("", 1.0f, 0.0f, 0.0f);
    sr_overlay_mesh one = layout("ab", 1.0f, 0.0f, 0.0f);
    sr_overlay_mesh two = layout("abab", 1.0f, 0.0f, 0.0f);
    sr_overlay_mesh lines = layout("ab\nabab\n", 1.0f, 0.0f, 0.0f);
    sr_overlay_mesh spaces = layout("    ", 1.0f, 0.0f, 0.0f);
    assert_int_equal(empty.vertex_count, SR_OVERLAY_BOX_VERTICES);
    assert_true(one.vertex_count > SR_OVERLAY_BOX_VERTICES);
    assert_int_equal(two.vertex_count - SR_OVERLAY_BOX_VERTICES, 2u * (one.vertex_count - SR_OVERLAY_BOX_VERTICES));
    const float cell = (two.width - one.width) / 2.0f;   /* what one more character adds */
    assert_true(cell >= 5.0f);
    assert_true(one.width - empty.width == 2.0f * cell);
    assert_true(two.height == one.height);
    assert_true(lines.width == two.width);                 /* the longest line */
    assert_true(lines.height - empty.height == 2.0f * (one.height - empty.height));
    assert_int_equal(spaces.vertex_count, SR_OVERLAY_BOX_VERTICES);   /* no glyph, yet four cells */
    assert_true(spaces.width == two.width);
    assert_inside_box(&lines, 0.0f, 0.0f);
    sr_overlay_mesh *all[5] = { &empty, &one, &two, &lines, &spaces };
    for (int i = 0; i < 5; i++) sr_overlay_mesh_free(all[i]);
}

/* Columns as on a terminal: a glyph starts in its cell whatever the glyphs before it. */
static void test_columns_line_up(void **state)
{
    (void)state;
    sr_overlay_mesh narrow = layout("iiiiR", 1.0f, 0.0f, 0.0f);
    sr_overlay_mesh wide = layout("WWWWR", 1.0f, 0.0f, 0.0f);
    sr_overlay_mesh r = layout("R", 1.0f, 0.0f, 0.0f);
    const uint32_t r_floats = 2u * (r.vertex_count - SR_OVERLAY_BOX_VERTICES);
    /* the R's triangles are the last ones of each, at the same place */
    assert_memory_equal(narrow.xy + 2u * narrow.vertex_count - r_floats, wide.xy + 2u * wide.vertex_count - r_floats,
                        r_floats * sizeof(float));
    sr_overlay_mesh_free(&narrow);
    sr_overlay_mesh_free(&wide);
    sr_overlay_mesh_free(&r);
}

static void test_unprintable_shows_as_question_mark(void **state)
{
    (void)state;
    sr_overlay_mesh q = layout("a?b", 1.0f, 0.0f, 0.0f);
    sr_overlay_mesh ctrl = layout("a\tb", 1.0f, 0.0f, 0.0f);
    sr_overlay_mesh high = layout("a\xc3" "b", 1.0f, 0.0f, 0.0f);   /* a byte past ASCII */
    assert_int_equal(ctrl.vertex_count, q.vertex_count);
    assert_int_equal(high.vertex_count, q.vertex_count);
    assert_memory_equal(ctrl.xy, q.xy, 2u * q.vertex_count * sizeof(float));
    assert_memory_equal(high.xy, q.xy, 2u * q.vertex_count * sizeof(float));
    sr_overlay_mesh_free(&q);
    sr_overlay_mesh_free(&ctrl);
    sr_overlay_mesh_free(&high);
}

static void test_scale_and_place(void **state)
{
    (void)state;
    sr_overlay_mesh a = layout("Esc quit\nH keys", 1.0f, 0.0f, 0.0f);
    sr_overlay_mesh b = layout("Esc quit\nH keys", 2.0f, 16.0f, 10.0f);
    assert_int_equal(a.vertex_count, b.vertex_count);
    assert_true(b.width == 2.0f * a.width);
    assert_true(b.height == 2.0f * a.height);
    for (uint32_t i = 0; i < a.vertex_count; i++) {
        assert_true(b.xy[2 * i] == 16.0f + 2.0f * a.xy[2 * i]);
        assert_true(b.xy[2 * i + 1] == 10.0f + 2.0f * a.xy[2 * i + 1]);
    }
    assert_inside_box(&b, 16.0f, 10.0f);
    sr_overlay_mesh_free(&a);
    sr_overlay_mesh_free(&b);
}
#endif

int main(void)
{
#ifndef SR_HAVE_VIEWER
    printf("skipped: built without the viewer (Debian: apt-get install libglfw3-dev libglew-dev)\n");
    return 77;
#else
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_list_is_the_help_s),
        cmocka_unit_test(test_box_follows_lines_and_columns),
        cmocka_unit_test(test_columns_line_up),
        cmocka_unit_test(test_unprintable_shows_as_question_mark),
        cmocka_unit_test(test_scale_and_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}
