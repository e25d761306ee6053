/* minimal.c: render a scene small on the CPU and save it as a PNG through libstencilray.
 * Usage: minimal SCENE.json OUT.png */
#include <stdio.h>
#include <stencilray.h>

static void log_line(void *user, sr_log_level level, const char *message)
{
    (void)user;
    fprintf(stderr, "%s%s\n", level == SR_LOG_WARNING ? "warning: " : "", message);
}

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: %s SCENE.json OUT.png\n", argv[0]); return 2; }
    sr_context *ctx = sr_create(&(sr_context_desc){ .log = log_line });
    if (!ctx) return 1;
    sr_result r = sr_load_file(ctx, argv[1]);
    if (r == SR_RESULT_OK)
        r = sr_set_frame(ctx, &(sr_frame_desc){ .width = 160, .height = 90, .spp = 4,
                                                .device = SR_DEVICE_KIND_CPU });
    if (r == SR_RESULT_OK) r = sr_render(ctx);
    if (r == SR_RESULT_OK) r = sr_save(ctx, argv[2], NULL);
    if (r != SR_RESULT_OK) fprintf(stderr, "minimal: %s\n", sr_last_error(ctx));
    sr_destroy(ctx);
    return (int)r;
}
