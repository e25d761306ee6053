/* frame_desc.c: a frame from a public desc over a scene (frame_desc.h). */
#include "frame_desc.h"
#include "../farm/farm.h"
#include "../settings/camera_arg.h"
#include "../../kernels/frames/sortkey.h"

#include <stdbool.h>
#include <string.h>

_Static_assert((int)SR_WAVE_ORDER_KIND_LAUNCH == (int)SR_WAVE_ORDER_LAUNCH &&
               (int)SR_WAVE_ORDER_KIND_SLOWEST == (int)SR_WAVE_ORDER_SLOWEST, "sr_wave_order_kind is sr_wave_order");
_Static_assert((int)SR_SORT_KIND_MERGE == (int)SR_SORT_MERGE && (int)SR_SORT_KIND_RADIX == (int)SR_SORT_RADIX,
               "sr_sort_kind is sr_sort_algo");
_Static_assert((int)SR_SORT_KEY_KIND_MATERIAL == (int)SR_SORT_KEY_MATERIAL, "sr_sort_key_kind is sr_sort_key");

sr_mask sr_frame_mask(sr_mask_kind m)
{
    static const sr_mask masks[] = { SR_MASK_WAVE, SR_MASK_WAVE, SR_MASK_COMPACT, SR_MASK_STENCIL, SR_MASK_FLAGS,
                                     SR_MASK_MEGAKERNEL };
    return (unsigned)m <= SR_MASK_KIND_MEGAKERNEL ? masks[m] : SR_MASK_WAVE;
}

sr_mask_kind sr_frame_mask_kind(sr_mask m)
{
    static const sr_mask_kind kinds[SR_MASK_COUNT] = {
        [SR_MASK_FLAGS] = SR_MASK_KIND_FLAGS, [SR_MASK_STENCIL] = SR_MASK_KIND_STENCIL,
        [SR_MASK_COMPACT] = SR_MASK_KIND_COMPACT, [SR_MASK_WAVE] = SR_MASK_KIND_WAVE,
        [SR_MASK_MEGAKERNEL] = SR_MASK_KIND_MEGAKERNEL,
    };
    return (unsigned)m < SR_MASK_COUNT ? kinds[m] : SR_MASK_KIND_WAVE;
}

sr_backend_kind sr_frame_backend(sr_device_kind d)
{
    return d == SR_DEVICE_KIND_CPU ? SR_BACKEND_CPU : d == SR_DEVICE_KIND_GPU ? SR_BACKEND_CUDA : SR_BACKEND_AUTO;
}

static bool sr_v3_zero(const float v[3]) { return v[0] == 0.0f && v[1] == 0.0f && v[2] == 0.0f; }

sr_status sr_frame_desc_check(const sr_frame_desc *d, sr_error *err)
{
    if (d->width > SR_MAX_RESOLUTION || d->height > SR_MAX_RESOLUTION)
        return sr_fail(err, SR_ERR_INPUT, "sr_frame_desc: %ux%u; expected a width and height of 1..%u (0: the scene's)",
                       d->width, d->height, SR_MAX_RESOLUTION);
    if (d->spp > SR_MAX_SPP)
        return sr_fail(err, SR_ERR_INPUT, "sr_frame_desc.spp %u; expected 1..%u (0: the scene's)", d->spp, SR_MAX_SPP);
    if (d->depth > SR_MAX_DEPTH)
        return sr_fail(err, SR_ERR_INPUT, "sr_frame_desc.depth %u; expected 1..%u (0: the scene's)", d->depth,
                       (unsigned)SR_MAX_DEPTH);
    if ((unsigned)d->integrator > SR_INTEGRATOR_KIND_PATH)
        return sr_fail(err, SR_ERR_INPUT, "sr_frame_desc.integrator %d; expected an sr_integrator_kind", (int)d->integrator);
    if ((unsigned)d->mask > SR_MASK_KIND_MEGAKERNEL)
        return sr_fail(err, SR_ERR_INPUT, "sr_frame_desc.mask %d; expected an sr_mask_kind", (int)d->mask);
    if ((unsigned)d->device > SR_DEVICE_KIND_GPU)
        return sr_fail(err, SR_ERR_INPUT, "sr_frame_desc.device %d; expected an sr_device_kind", (int)d->device);
    if (d->gpu > 1024)
        return sr_fail(err, SR_ERR_INPUT, "sr_frame_desc.gpu %u; expected a CUDA device number", d->gpu);
    if (d->wave_dense > 32)
        return sr_fail(err, SR_ERR_INPUT, "sr_frame_desc.wave_dense %u; expected 1..32 (0: measured)", d->wave_dense);
    if ((unsigned)d->wave_order > SR_WAVE_ORDER_KIND_SLOWEST || (unsigned)d->sort > SR_SORT_KIND_RADIX ||
        (unsigned)d->sort_key > SR_SORT_KEY_KIND_MATERIAL)
        return sr_fail(err, SR_ERR_INPUT, "sr_frame_desc: wave_order %d, sort %d, sort_key %d; expected an "
                       "sr_wave_order_kind, an sr_sort_kind and an sr_sort_key_kind", (int)d->wave_order, (int)d->sort,
                       (int)d->sort_key);
    if (!(d->compact_below >= 0.0f && d->compact_below <= 1.0f))
        return sr_fail(err, SR_ERR_INPUT, "sr_frame_desc.compact_below %g; expected 0..1", (double)d->compact_below);
    const sr_camera_view *c = &d->camera;
    if (c->fov != 0.0f && !sr_camera_fov_ok(c->fov))
        return sr_fail(err, SR_ERR_INPUT, "sr_frame_desc.camera.fov %s, got %g", SR_CAMERA_FOV_RULE, (double)c->fov);
    if (!(c->aperture >= 0.0f && c->focus_distance >= 0.0f))
        return sr_fail(err, SR_ERR_INPUT, "sr_frame_desc.camera: aperture %g, focus_distance %g; expected 0 or more",
                       (double)c->aperture, (double)c->focus_distance);
    return SR_OK;
}

/* A glTF file's camera (1 + its index in d->gltf_camera) onto the frame, and its aspect ratio
 * (when it has one) into *aspect. */
static sr_status sr_frame_pick_camera(const sr_scene *scene, uint32_t n, const sr_field_names *nm, sr_frame *f,
                                      double *aspect, sr_error *err)
{
    const uint32_t count = scene->file_camera_count;
    if (n >= count) {
        if (count) return sr_fail(err, SR_ERR_INPUT, "%s %u: %s has %u camera%s; expected 0 to %u", nm->gltf_camera, n,
                                  scene->path, count, count == 1 ? "" : "s", count - 1u);
        return sr_fail(err, SR_ERR_INPUT, "%s %u: %s has no cameras (only a glTF file's cameras can be picked); leave "
                       "%s out, or use %s", nm->gltf_camera, n, scene->path, nm->gltf_camera, nm->camera);
    }
    const sr_scene_camera *cam = &scene->file_cameras[n];
    if (cam->kind != 0)
        return sr_fail(err, SR_ERR_INPUT, "%s %u: camera %u of %s is %s; expected a perspective camera that a node "
                       "places", nm->gltf_camera, n, n, scene->path,
                       cam->kind == 1 ? "orthographic (not supported)"
                                      : "placed by no node of the scene (or squashed flat, or too far out for a float camera)");
    f->camera = cam->desc;
    if (cam->aspect > 0.0f) *aspect = cam->aspect;
    return SR_OK;
}

/* The camera of frame n of the scene's camera_path onto the frame. */
static sr_status sr_frame_path_camera(const sr_scene *scene, uint32_t n, const sr_field_names *nm, sr_frame *f,
                                      sr_error *err)
{
    if (!scene->camera_path_count)
        return sr_fail(err, SR_ERR_INPUT, "%s has no \"camera_path\"; %s renders the frames of one "
                       "(docs/scene-format.md#camera_path)", scene->path, nm->path_frame);
    const sr_camera_desc d = sr_camera_at_frame(scene, n);
    if (!(sr_camera_distance(&d) > 0.0) || !sr_camera_up_ok(&d))
        return sr_fail(err, SR_ERR_INPUT, "%s%s%s: at frame %u the camera_path puts look_at on the position or straight "
                       "along camera.up; expected keyframes that keep them apart", nm->path_frame,
                       nm->path_text ? " " : "", nm->path_text ? nm->path_text : "", n);
    f->camera = d;
    return SR_OK;
}

/* A side rounded to the nearest pixel, 1..SR_MAX_RESOLUTION. */
static uint32_t sr_frame_side(double v)
{
    return v < 1.0 ? 1u : v > SR_MAX_RESOLUTION ? SR_MAX_RESOLUTION : (uint32_t)(v + 0.5);
}

/* The image's other side when only one of width and height was given (or none, and the
 * camera changed the aspect ratio): the shape width / height = aspect is kept. */
static void sr_frame_keep_aspect(const sr_frame_desc *d, sr_frame *f, double aspect, bool camera_aspect)
{
    if (!(aspect > 0.0) || (d->width && d->height)) return;
    if (d->height) f->width = sr_frame_side((double)f->height * aspect);
    else if (d->width || camera_aspect) f->height = sr_frame_side((double)f->width / aspect);
}

/* The desc's camera onto f->camera, as the --camera forms of 6, 7 and 12 numbers do. */
static sr_status sr_frame_move_camera(const sr_camera_view *c, const sr_field_names *nm, sr_frame *f, sr_error *err)
{
    const bool moved = memcmp(c->position, c->look_at, sizeof c->position) != 0, up = !sr_v3_zero(c->up);
    if (!moved && c->fov == 0.0f && !up) return SR_OK;
    const sr_camera_desc *now = &f->camera;
    sr_camera_arg a = { { c->position[0], c->position[1], c->position[2], c->look_at[0], c->look_at[1], c->look_at[2],
                          c->fov != 0.0f ? c->fov : now->vfov_deg, c->up[0], c->up[1], c->up[2], c->aperture,
                          c->focus_distance }, up ? 12 : 7 };
    if (!moved) {   /* the scene camera's place, its field of view or lens changed */
        const float at[6] = { now->position.x, now->position.y, now->position.z, now->look_at.x, now->look_at.y,
                              now->look_at.z };
        memcpy(a.v, at, sizeof at);
    }
    const float focus = now->focus_distance;
    char why[256];
    if (!sr_camera_arg_apply(&a, &f->camera, why, sizeof why)) {
        if (nm->camera_text) return sr_fail(err, SR_ERR_INPUT, "%s %s: %s", nm->camera, nm->camera_text, why);
        return sr_fail(err, SR_ERR_INPUT, "%s: %s", nm->camera, why);
    }
    if (!moved && !up) f->camera.focus_distance = focus;   /* the same look-at point stays sharp */
    if (moved && !(sr_camera_distance(&f->camera) <= (double)SR_CAMERA_DIST_MAX))
        return sr_fail(err, SR_ERR_INPUT, "%s: the look-at point is %g from the position; expected at most %g apart",
                       nm->camera, sr_camera_distance(&f->camera), (double)SR_CAMERA_DIST_MAX);
    return SR_OK;
}

sr_field_names sr_frame_names_or_default(const sr_field_names *names)
{
    sr_field_names n = names ? *names : (sr_field_names){ 0 };
    if (!n.camera) n.camera = "sr_frame_desc.camera";
    if (!n.gltf_camera) n.gltf_camera = "sr_frame_desc.gltf_camera index";
    if (!n.size) n.size = "sr_frame_desc";
    if (!n.path_frame) n.path_frame = "sr_frame_desc.path_frame";
    if (!n.devices) n.devices = "sr_frame_desc.devices";
    return n;
}

sr_status sr_frame_build(const sr_scene *scene, const sr_frame_desc *d, const sr_field_names *nm, sr_frame *f,
                         sr_error *err)
{
    const sr_field_names names = sr_frame_names_or_default(nm);
    nm = &names;
    sr_frame_from_scene(f, scene);
    double aspect = scene->aspect > 0.0f ? scene->aspect : (double)f->width / f->height;
    if (d->width) f->width = d->width;
    if (d->height) f->height = d->height;
    if (d->spp) f->spp = d->spp;
    if (d->depth) f->depth = d->depth;
    if (d->integrator) f->integrator = d->integrator == SR_INTEGRATOR_KIND_PATH ? SR_INTEGRATOR_PATH : SR_INTEGRATOR_WHITTED;
    sr_render_opts *o = &f->render;
    o->mask = sr_frame_mask(d->mask);
    if (d->seed || (d->zeros & SR_FRAME_ZERO_SEED)) o->seed = d->seed;
    if (d->compact_below > 0.0f || (d->zeros & SR_FRAME_ZERO_COMPACT_BELOW)) o->compact_below = d->compact_below;
    o->wave_dense = d->wave_dense;
    o->wave_order = (int)d->wave_order;
    o->sort = (int)d->sort;
    o->sort_key = (int)d->sort_key;
    const double scene_aspect = aspect;
    if (d->gltf_camera) SR_TRY(sr_frame_pick_camera(scene, d->gltf_camera - 1u, nm, f, &aspect, err));
    sr_frame_keep_aspect(d, f, aspect, aspect != scene_aspect);
    if (d->path_frame) SR_TRY(sr_frame_path_camera(scene, d->path_frame - 1u, nm, f, err));
    SR_TRY(sr_frame_move_camera(&d->camera, nm, f, err));
    if ((uint64_t)f->width * f->height > (1u << 28))
        return sr_fail(err, SR_ERR_INPUT, "%s%s%ux%u is %llu pixels; at most %u are supported", nm->size,
                       nm->size[0] ? ": " : "", f->width, f->height, (unsigned long long)f->width * f->height, 1u << 28);
    return SR_OK;
}

sr_status sr_frame_workers(const sr_frame_desc *d, const char *name, sr_worker_spec *specs, uint32_t *n, sr_error *err)
{
    const sr_backend_kind backend = sr_frame_backend(d->device);
    if (!d->devices) {
        specs[0] = (sr_worker_spec){ backend, (int)d->gpu };
        *n = 1;
        return SR_OK;
    }
    char why[256] = "", msg[768];
    const int count = backend == SR_BACKEND_CPU ? -1 : sr_cuda_device_count(why, sizeof why);
    if (sr_farm_parse_devices(d->devices, backend, count, why, specs, n, msg, sizeof msg))
        return sr_fail(err, SR_ERR_INPUT, "%s %s", name, msg);
    return SR_OK;
}

int sr_frame_whitted_unlit(const sr_scene *scene, const sr_frame *f)
{
    return f->integrator == SR_INTEGRATOR_WHITTED && !scene->light_count && !(scene->ambient.x > 0.0f) &&
           !(scene->ambient.y > 0.0f) && !(scene->ambient.z > 0.0f);
}
