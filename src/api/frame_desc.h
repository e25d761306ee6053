/* frame_desc.h: the one place a frame is built from what was asked (include/stencilray.h's
 * sr_frame_desc) over a scene: the scene file's values where the desc gives none, a glTF
 * camera picked, the camera moved, one side of the image keeping the aspect ratio. The API
 * (api.c) and the command line (src/app) both build their frames here. */
#ifndef SR_FRAME_DESC_H
#define SR_FRAME_DESC_H

#include "../../include/stencilray.h"
#include "../base/status.h"
#include "../render/frame.h"
#include "../scene/scene.h"

/* How messages name the desc's fields (stencilray.h's sr_field_names, every member set). A
 * message reads "<camera> <camera_text>: why", "<gltf_camera> N: why", "<size>: WxH is ..."
 * ("" or NULL: "WxH is ..."), "<path_frame> <path_text>: at frame N ...". */
/* names with the struct's field names where it has none (NULL: all of them). */
sr_field_names sr_frame_names_or_default(const sr_field_names *names);

/* The frame d asks for over scene into *f (exposure 1, clamp tonemap; progress, keep_partial
 * and bounce counts off: the caller's to set). d is assumed in its ranges (sr_frame_desc_check);
 * the camera, the glTF camera and the pixel count are checked here, SR_ERR_INPUT naming them
 * as nm says (NULL: the struct's fields). */
sr_status sr_frame_build(const sr_scene *scene, const sr_frame_desc *d, const sr_field_names *names, sr_frame *f,
                         sr_error *err);
/* The desc's values in their ranges; err says which is not (names the field as sr_frame_desc.X). */
sr_status sr_frame_desc_check(const sr_frame_desc *d, sr_error *err);
/* The internal mask, backend kind, wave order, sort and sort key of the public ones. */
sr_mask sr_frame_mask(sr_mask_kind m);
/* Its inverse: the public kind of a mask. */
sr_mask_kind sr_frame_mask_kind(sr_mask m);
sr_backend_kind sr_frame_backend(sr_device_kind d);
/* The workers d asks for: its device list (checked against the CUDA devices present), else
 * its one device. SR_ERR_INPUT names the list as `name` ("--device", "sr_frame_desc.devices"). */
struct sr_worker_device;
sr_status sr_frame_workers(const sr_frame_desc *d, const char *name, struct sr_worker_device *specs, uint32_t *n,
                           sr_error *err);
/* Whether the whitted integrator would light the frame's surfaces with nothing: no point, spot
 * or directional light and no "ambient" (emitters and the sky are seen, never sampled). */
int sr_frame_whitted_unlit(const sr_scene *scene, const sr_frame *f);

#endif
