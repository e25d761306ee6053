/* view_opts.c: `stencilray view`'s help text, whose key list the window shows (H) as the
 * command prints it (--help); the options are parsed by the command line (src/app/cmd_view.c). */
#include "view_opts.h"
#include "../app/options.h"   /* the shared options' help */

#include <string.h>

const char sr_view_help[] =
"Usage: stencilray view [SCENE.json] [options]\n"
"\n"
"Open a window and render a scene (default " SR_DEFAULT_SCENE ") live. Every frame adds one\n"
"sample per pixel to the image, so a still view converges to what 'stencilray render' writes;\n"
"moving the camera or changing depth, mask or window size starts it again. On a CUDA device\n"
"the frames go straight into OpenGL memory (CUDA-OpenGL interop); without one the CPU backend\n"
"renders and frames go through host memory. Needs a display; see 'stencilray render' for files.\n"
"\n"
"Controls:\n"
"  left drag        orbit around the look-at point\n"
"  W A S D          fly forward, left, back, right      Q E   fly down, up\n"
"  scroll           zoom (field of view)\n"
"  [ ]              halve / double the fly speed; hold Shift to fly 4x faster\n"
"  R                reset the camera\n"
"  C                print the camera to standard output, as a --camera argument (for\n"
"                   render, bench and view) and as the scene file's \"camera\" object\n"
"  1 .. 9           trace depth (1 = no reflections)\n"
"  M                next masking strategy: flags, stencil, compact, wave, megakernel\n"
"  + -              exposure up / down by half a stop\n"
"  V                vsync on / off\n"
"  P                save a screenshot (stencilray-NNNN.png in the current folder)\n"
"  H                show / hide this key list over the image (and print it)\n"
"  Esc              quit\n"
"The window title shows FPS and ms per frame; the render's ms (the GPU's time for the frame's\n"
"samples, or the CPU's) and the display's ms (getting the film into the texture, and the\n"
"draw's GPU time); samples so far, depth, backend and display path, mask, exposure and the\n"
"rays that entered each bounce (per sample).\n"
"\n"
"View options:\n"
"  --size WxH              window size (the same as --width W --height H; default: the scene's)\n"
SR_HELP_CAMERA
"  --spp N                 samples per pixel added each frame (default 1)\n"
"  --frames N              render N frames, then quit\n"
"  --screenshot FILE.png   save the last frame as the window showed it, then quit\n"
"                          (after --frames N frames, default 1)\n"
"  --script STEPS          scripted changes between frames, ';'-separated: frames=N depth=N\n"
"                          mask=M size=WxH exposure=X tonemap=T camera=C (as --camera)\n"
"                          shot=FILE.png print=camera (what the C key prints)\n"
"                          key=K (press K: one of the keys above that act on a press)\n"
"  --vsync on|off          wait for the display refresh (default on; off in scripted runs)\n"
"  --shader-dir DIR        where display.vert and display.frag are (default: next to the\n"
"                          binary, then ../share/stencilray/shaders, then the source tree)\n"
SR_HELP_SIZE SR_HELP_DEPTH SR_HELP_INTEGRATOR SR_HELP_WHERE SR_HELP_MASK SR_HELP_TUNING SR_HELP_SORT \
SR_HELP_SORT_KEY SR_HELP_OUTPUT
"\n"
"Environment:\n"
"  SR_DISPLAY_PATH=P       how a CUDA backend's frames reach the window (for measuring them):\n"
"                          extmem-rows (default: memory CUDA and OpenGL share, no per-frame\n"
"                          map, drawn straight from it), extmem (the same, copied to a\n"
"                          texture and blitted), blit or draw (the GL texture mapped for CUDA\n"
"                          each frame, blitted or drawn by a shader), extmem-draw, pbo, host\n"
"\n"
"Examples:\n"
"  stencilray view                                          # the default scene\n"
"  stencilray view scenes/mirror_hall.json --size 1280x720 --depth 4\n"
"  xvfb-run -a stencilray view --backend cpu --frames 16 --screenshot shot.png\n"
SR_HELP_FOOTER;


const char *sr_view_keys(size_t *len)
{
    const char *keys = strstr(sr_view_help, "Controls:");
    *len = (size_t)(strstr(keys, "The window title") - keys);
    return keys;
}

