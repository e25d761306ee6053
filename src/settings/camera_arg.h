/* camera_arg.h: a camera as one command-line argument (`--camera`) and as a scene's JSON
 * "camera" object, so that a view found in the viewer (its C key) can be rendered offline.
 * What sr_camera_arg_format writes, sr_camera_arg_parse + sr_camera_arg_apply read back bit
 * for bit; what sr_camera_json_format writes, the scene parser reads back bit for bit. */
#ifndef SR_CAMERA_ARG_H
#define SR_CAMERA_ARG_H

#include <stddef.h>
#include "../scene/scene.h"

#define SR_CAMERA_ARG_SYNTAX "PX,PY,PZ,LX,LY,LZ[,FOV[,UX,UY,UZ,APERTURE,FOCUS]]"
#define SR_CAMERA_ARG_MAX 12

/* The numbers of a --camera argument, in the order of SR_CAMERA_ARG_SYNTAX: 6 (position,
 * look-at), 7 (and the vertical field of view) or 12 (and up, aperture, focus distance). */
typedef struct sr_camera_arg {
    float v[SR_CAMERA_ARG_MAX];
    int count;
} sr_camera_arg;

/* Parse comma-separated numbers. Returns 1 on success; 0 with `why` saying what is wrong and
 * what is expected (without the argument itself). */
int sr_camera_arg_parse(const char *text, sr_camera_arg *out, char *why, size_t cap);

/* Put the argument's numbers into cam. The 6 and 7 number forms keep cam's up and aperture
 * and focus on the new look-at point (focus_distance 0); the 12 number form sets everything.
 * The result is checked as a scene's camera is (up not parallel to the view direction).
 * Returns 1, or 0 with `why` and cam unchanged. */
int sr_camera_arg_apply(const sr_camera_arg *a, sr_camera_desc *cam, char *why, size_t cap);

/* The whole camera as the 12 number --camera form / as a JSON object ({"position": ...}),
 * each number written with the fewest digits that read back as the same float. Returns the
 * length, or -1 when cap is too small (256 bytes is always enough for the argument, 384 for
 * the object). */
int sr_camera_arg_format(const sr_camera_desc *cam, char *buf, size_t cap);
int sr_camera_json_format(const sr_camera_desc *cam, char *buf, size_t cap);

#endif
