/* Files that are not regular files are refused before they are opened for reading: a scene
 * that is a FIFO (which used to block forever, deaf to SIGTERM) or a device, with exit 2 and a
 * message that names the file. */
#include "testutil.h"
#include "hardutil.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_fifo_scene_is_refused(void **state)
{
    (void)state;
    char dir[1024], fifo[1100], out[1100];
    sr_hard_fresh_dir(dir, sizeof dir, "inputs_fifo");
    snprintf(fifo, sizeof fifo, "%s/scene.json", dir);
    snprintf(out, sizeof out, "%s/out.png", dir);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    const char *argv[] = { "render", fifo, "--backend", "cpu", "-q", "-o", out, NULL };
    sr_child c;
    const int code = sr_hard_run(&c, argv, NULL, 20.0);   /* -2: it hung */
    if (code != 2 || !strstr(c.err, "not a regular file") || !strstr(c.err, fifo))
        fail_msg("exit %d, expected 2 and \"not a regular file\"; it printed:\n%s", code, c.err);
    assert_false(sr_test_file_exists(out));
}

static void test_device_scene_is_refused(void **state)
{
    (void)state;
    const char *argv[] = { "render", "/dev/zero", "--backend", "cpu", "-q", "-o", "/tmp/never-written.png", NULL };
    sr_child c;
    const int code = sr_hard_run(&c, argv, NULL, 20.0);
    if (code != 2 || !strstr(c.err, "not a regular file"))
        fail_msg("exit %d, expected 2 and \"not a regular file\"; it printed:\n%s", code, c.err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_scene_is_refused),
        cmocka_unit_test(test_device_scene_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
