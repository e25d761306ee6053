/* testutil.h: what several tests need: temporary files, running the real CLI and reading
 * what it printed, and cmocka's headers in the order they want. */
#ifndef SR_TESTUTIL_H
#define SR_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

/* A path under the test build's tmp/ folder (static buffer per call site is not needed:
 * writes into buf). */
const char *sr_test_tmp_path(char *buf, size_t cap, const char *name);

/* Write text to tmp/name and return its path in buf. */
const char *sr_test_write_file(char *buf, size_t cap, const char *name, const char *text);

/* Run the stencilray CLI with argv (NULL-terminated, without the program name). Returns its
 * exit status (or -1 if it died on a signal); its stderr, NUL-terminated, goes to err_out. */
int sr_test_run_cli(const char *const *argv, char *err_out, size_t cap);

int sr_test_file_exists(const char *path);

/* A shipped file, e.g. "scenes/default.json", as an absolute path in buf. */
const char *sr_test_source_path(char *buf, size_t cap, const char *rel);

/* The start of every GPU test's main: 0 to go on, or 77 (CTest's "skipped") after printing why
 * when no CUDA device is usable. An optional first argument picks tests by cmocka name
 * pattern (`test_gpu_sort test_stage`), so a slow tool such as compute-sanitizer's racecheck
 * can take one part at a time. */
int sr_test_gpu_start(int argc, char **argv);


/* ---- an independent pinhole camera and sphere test, in double precision ---------------- *
 * Image tests classify pixels with this instead of the code under test. */
#include <math.h>
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
typedef struct { double x, y, z; } d3;
static inline d3 d3v(double x, double y, double z) { d3 r = { x, y, z }; return r; }
static inline d3 d3sub(d3 a, d3 b) { return d3v(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline double d3dot(d3 a, d3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline d3 d3norm(d3 a) { double l = sqrt(d3dot(a, a)); return d3v(a.x / l, a.y / l, a.z / l); }
static inline d3 d3cross(d3 a, d3 b) { return d3v(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }

/* Signed distance (in radii) of the pixel centre's ray from the sphere's silhouette: < 0 on
 * the sphere. Pinhole camera at eye looking at look, up (0,1,0), vertical fov in degrees. */
static inline double sphere_margin(d3 eye, d3 look, double fov_deg, uint32_t w, uint32_t h, uint32_t x, uint32_t y,
                                   d3 centre, double radius)
{
    d3 wv = d3norm(d3sub(eye, look)), u = d3norm(d3cross(d3v(0, 1, 0), wv)), v = d3cross(wv, u);
    double th = tan(fov_deg * M_PI / 360.0), aspect = (double)w / h;
    double sx = (2.0 * (x + 0.5) / w - 1.0) * aspect * th, sy = (1.0 - 2.0 * (y + 0.5) / h) * th;
    d3 dir = d3norm(d3v(-wv.x + sx * u.x + sy * v.x, -wv.y + sx * u.y + sy * v.y, -wv.z + sx * u.z + sy * v.z));
    d3 oc = d3sub(centre, eye);
    double along = d3dot(oc, dir);
    double dist2 = d3dot(oc, oc) - along * along;
    return (sqrt(dist2 > 0 ? dist2 : 0) - radius) / radius;
}

#endif

/* ---- rendering helpers ---------------------------------------------------------------- */
#include "render.h"

/* Load a shipped scene, e.g. "scenes/cornell.json"; fails the test (with the message) on error. */
void sr_test_load_shipped(const char *rel, sr_scene *out);
/* Write a scene of `count` diffuse spheres on a 100 x 100 grid, layer after layer, to path. */
void sr_test_write_sphere_scene(const char *path, int count);

/* Render `scene` on the CPU and on the GPU (the wave mask, seed 3) and compare: print one
 * line under `label`, fail unless every pixel is bit-identical and the rays entering every
 * bounce are the same number. Returns 0 without a CUDA device (nothing checked), else 1. */
int sr_test_gpu_matches_cpu(const sr_scene *scene, const char *label);

/* Write a unit UV sphere as OBJ to path: segs around the y axis, rings pole to pole, faces
 * counter-clockwise from outside; with_vn: exact unit vertex normals; with_vt: texture
 * coordinates u = s / segs (a seam column repeated at u = 1), v = 1 - r / rings. */
void sr_test_write_uv_sphere(const char *path, int segs, int rings, int with_vn, int with_vt);

/* Parse a scene from JSON text (messages name `name`); fails the test on error. */
void sr_test_parse(const char *name, const char *json, sr_scene *out);

/* Render `scene` on backend `kind` with `mask` and `seed`; returns a malloc'd w*h*3 image of
 * the mean radiance. Returns NULL when kind is CUDA and no device is present. Fails the test
 * on any other error. */
float *sr_test_render(const sr_scene *scene, sr_backend_kind kind, sr_mask mask, float compact_below,
                      uint32_t seed, sr_render_stats *stats);

/* The same with every render option given. */
float *sr_test_render_opts(const sr_scene *scene, sr_backend_kind kind, const sr_render_opts *opts,
                           sr_render_stats *stats);

/* Render `scene` on `kind` with the stencil mask (the reference), then with flags, compact
 * (compacting every bounce and by the default-like 0.5 policy) and the megakernel: each image
 * must equal the reference bit for bit and trace the same number of rays. The reference's
 * statistics go to ref_stats (may be NULL). Returns the reference image (malloc'd). */
float *sr_test_masks_agree(const sr_scene *scene, sr_backend_kind kind, uint32_t seed, sr_render_stats *ref_stats);

/* Every shipped scene, at w x h and spp, rendered on `kind` with the compact mask and each
 * --sort and --sort-key: the image must be bit-identical to the unsorted one, and a sorted
 * render must compact at every bounce that has a next one. */
void sr_test_sorts_keep_images(sr_backend_kind kind, unsigned w, unsigned h, unsigned spp);
