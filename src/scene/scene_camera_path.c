/* scene_camera_path.c: "camera_path", the camera of a sequence of frames: keyframes, each the
 * camera's position, look-at point and field of view at a frame number, interpolated linearly
 * between (render --frames; docs/scene-format.md#camera_path). */
#include "scene_parse.h"

#include <stdlib.h>
#include <string.h>

#define SR_CAMERA_PATH_MAX_KEYS 100000u
#define SR_CAMERA_PATH_MAX_FRAME 9999999u   /* seven digits: any %0Nd pattern up to N=7 holds it */

static const char *const key_keys[] = {"*frame", "*position", "*look_at", "fov", NULL};

sr_status sr_scene_parse_camera_path(sr_json_doc *c, const cJSON *path, sr_scene *s)
{
    if (!path) return SR_OK;
    SR_TRY(sr_json_need_array(c, path, "camera_path"));
    const int n = cJSON_GetArraySize(path);
    if (n < 1 || (uint32_t)n > SR_CAMERA_PATH_MAX_KEYS)
        return sr_json_fail_val(c, path, "camera_path", "has %d keyframes; expected 1 to %u objects such as "
                                "{ \"frame\": 0, \"position\": [0, 1, 5], \"look_at\": [0, 1, 0], \"fov\": 40 }",
                                n, SR_CAMERA_PATH_MAX_KEYS);
    s->camera_path = (sr_camera_key *)calloc((size_t)n, sizeof *s->camera_path);
    if (!s->camera_path) return sr_json_oom(c);
    s->camera_path_count = (uint32_t)n;
    int i = 0;
    for (const cJSON *k = path->child; k; k = k->next, i++) {
        char jp[64];
        sr_json_path_index(jp, sizeof jp, "camera_path", (size_t)i);
        SR_TRY(sr_json_need_object(c, k, jp));
        SR_TRY(sr_json_check_keys(c, k, jp, "a camera keyframe", key_keys));
        sr_camera_key *key = &s->camera_path[i];
        SR_TRY(sr_json_opt_uint(c, k, jp, "frame", 0, SR_CAMERA_PATH_MAX_FRAME, 0, &key->frame));
        SR_TRY(sr_json_opt_vec3(c, k, jp, "position", SR_JSON_VEC_ANY, sr_v3s(0), &key->position));
        SR_TRY(sr_json_opt_vec3(c, k, jp, "look_at", SR_JSON_VEC_ANY, sr_v3s(0), &key->look_at));
        SR_TRY(sr_json_opt_fov(c, k, jp, s->camera.vfov_deg, &key->vfov_deg));
        if (i > 0 && key->frame <= s->camera_path[i - 1].frame) {
            char at[80];
            sr_json_path_key(at, sizeof at, jp, "frame");
            return sr_json_fail_val(c, sr_json_field(k, "frame"), at, "is %u, after a keyframe at frame %u; expected "
                                    "the keyframes in increasing frame order, each frame once",
                                    key->frame, s->camera_path[i - 1].frame);
        }
        sr_camera_desc d = s->camera;
        d.position = key->position;
        d.look_at = key->look_at;
        const double dist = sr_camera_distance(&d);
        if (!(dist > 0.0) || !(dist <= (double)SR_CAMERA_DIST_MAX) || !sr_camera_up_ok(&d)) {
            char at[80];
            sr_json_path_key(at, sizeof at, jp, "look_at");
            return sr_json_fail_val(c, sr_json_field(k, "look_at"), at,
                                    "%s; expected a look-at point other than the position, at most %g from it, and "
                                    "not straight along camera.up [%g, %g, %g]",
                                    !(dist > 0.0) ? "equals the keyframe's position"
                                    : !(dist <= (double)SR_CAMERA_DIST_MAX) ? "is too far from the keyframe's position"
                                    : "looks straight along camera.up", (double)SR_CAMERA_DIST_MAX,
                                    s->camera.up.x, s->camera.up.y, s->camera.up.z);
        }
    }
    return SR_OK;
}

static float sr_lerpf(float a, float b, float u) { return a + (b - a) * u; }

sr_camera_desc sr_camera_at_frame(const sr_scene *s, uint32_t frame)
{
    sr_camera_desc d = s->camera;
    const uint32_t n = s->camera_path_count;
    if (!n) return d;
    const sr_camera_key *k = s->camera_path;
    uint32_t i = 0;
    while (i + 1u < n && k[i + 1u].frame <= frame) i++;
    if (frame <= k[0].frame || i + 1u >= n) {   /* held before the first and after the last */
        const sr_camera_key *e = frame <= k[0].frame ? &k[0] : &k[i];
        d.position = e->position;
        d.look_at = e->look_at;
        d.vfov_deg = e->vfov_deg;
        return d;
    }
    const float u = (float)((double)(frame - k[i].frame) / (double)(k[i + 1u].frame - k[i].frame));
    d.position = sr_v3(sr_lerpf(k[i].position.x, k[i + 1u].position.x, u), sr_lerpf(k[i].position.y, k[i + 1u].position.y, u),
                       sr_lerpf(k[i].position.z, k[i + 1u].position.z, u));
    d.look_at = sr_v3(sr_lerpf(k[i].look_at.x, k[i + 1u].look_at.x, u), sr_lerpf(k[i].look_at.y, k[i + 1u].look_at.y, u),
                      sr_lerpf(k[i].look_at.z, k[i + 1u].look_at.z, u));
    d.vfov_deg = sr_lerpf(k[i].vfov_deg, k[i + 1u].vfov_deg, u);
    return d;
}
