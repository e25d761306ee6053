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

/* The whole file at path, NUL-terminated (malloc'd; the caller frees it), or NULL if it cannot
 * be read. */
char *sr_test_read_text(const char *path);

/* The same with its size in *n (binary files: NUL bytes included). */
unsigned char *sr_test_read_bytes(const char *path, size_t *n);

/* Fails unless the files at a and b both exist and hold the same bytes. */
void sr_test_assert_same_file(const char *a, const char *b);

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
 * the sphere. Pinhole camera at eye looking at look, up (0,1,0), vertical fov in degrees.
 * *mu: the cosine between the ray and the sphere's normal where the ray enters it (0 when
 * it misses). */
static inline double sphere_margin_mu(d3 eye, d3 look, double fov_deg, uint32_t w, uint32_t h, uint32_t x, uint32_t y,
                                      d3 centre, double radius, double *mu)
{
    d3 wv = d3norm(d3sub(eye, look)), u = d3norm(d3cross(d3v(0, 1, 0), wv)), v = d3cross(wv, u);
    double th = tan(fov_deg * M_PI / 360.0), aspect = (double)w / h;
    double sx = (2.0 * (x + 0.5) / w - 1.0) * aspect * th, sy = (1.0 - 2.0 * (y + 0.5) / h) * th;
    d3 dir = d3norm(d3v(-wv.x + sx * u.x + sy * v.x, -wv.y + sx * u.y + sy * v.y, -wv.z + sx * u.z + sy * v.z));
    d3 oc = d3sub(centre, eye);
    double along = d3dot(oc, dir);
    double dist2 = d3dot(oc, oc) - along * along;
    *mu = dist2 < radius * radius ? sqrt(radius * radius - dist2) / radius : 0.0;
    return (sqrt(dist2 > 0 ? dist2 : 0) - radius) / radius;
}

static inline double sphere_margin(d3 eye, d3 look, double fov_deg, uint32_t w, uint32_t h, uint32_t x, uint32_t y,
                                   d3 centre, double radius)
{
    double mu;
    return sphere_margin_mu(eye, look, fov_deg, w, h, x, y, centre, radius, &mu);
}

/* ---- rendering helpers ---------------------------------------------------------------- */
#include "../../src/render/render.h"

/* Load a shipped scene, e.g. "scenes/cornell.json"; fails the test (with the message) on error. */
void sr_test_load_shipped(const char *rel, sr_scene *out);

/* Four nested glass spheres over a checkered floor at depth 16, a point light, 1 spp, width x
 * height: the Whitted split's deepest trees (every glass hit splits). */
void sr_test_nested_glass(sr_scene *out, uint32_t width, uint32_t height);
/* Write a scene of `count` diffuse spheres on a 100 x 100 grid, layer after layer, to path. */
void sr_test_write_sphere_scene(const char *path, int count);

/* Render `scene` on the CPU and on the GPU (the wave mask, seed 3) and compare: print one
 * line under `label`, fail unless every pixel is bit-identical and the rays entering every
 * bounce are the same number. Returns 0 without a CUDA device (nothing checked), else 1. */
int sr_test_gpu_matches_cpu(const sr_scene *scene, const char *label);
/* The same check on the GPU's wave and compact masks (seed 7, no ray counts): fails unless
 * each GPU image is byte-equal to the CPU's (compact mask); one line per mask under label. */
void sr_test_assert_gpu_matches_cpu(const sr_scene *scene, const char *label);

/* Write a unit UV sphere as OBJ to path: segs around the y axis, rings pole to pole, faces
 * counter-clockwise from outside; with_vn: exact unit vertex normals; with_vt: texture
 * coordinates u = s / segs (a seam column repeated at u = 1), v = 1 - r / rings. */
void sr_test_write_uv_sphere(const char *path, int segs, int rings, int with_vn, int with_vt);

/* Copy file `from` to `to` byte for byte; fails the test when either cannot be opened. */
void sr_test_copy_file(const char *from, const char *to);

/* Two emissive lamps (mesh files f0 and f1, placed apart, one non-uniformly scaled) over a
 * diffuse floor, path traced, 48 x 32 at spp samples: f0 == f1 instances one mesh. */
void sr_test_lamp_pair_scene(char *out, size_t cap, const char *f0, const char *f1, unsigned spp);

/* Parse a scene from JSON text (messages name `name`); fails the test on error. */
void sr_test_parse(const char *name, const char *json, sr_scene *out);

/* Render `scene` on backend `kind` with `mask` and `seed`, counting rays per bounce; returns a
 * malloc'd w*h*3 image of the mean radiance. Returns NULL when kind is CUDA and no device is present. Fails the test
 * on any other error. */
float *sr_test_render(const sr_scene *scene, sr_backend_kind kind, sr_mask mask, float compact_below,
                      uint32_t seed, sr_render_stats *stats);

/* The same with every render option given. */
float *sr_test_render_opts(const sr_scene *scene, sr_backend_kind kind, const sr_render_opts *opts,
                           sr_render_stats *stats);

/* Fails the test unless a render with options o (st) traced the rays of the reference (ref,
 * counted per bounce): as many, and per bounce where o counts them so (sr_mask_counts_bounces),
 * else all in bounce 0's place. */
void sr_test_same_counts(const char *label, const sr_render_opts *o, const sr_render_stats *st,
                         const sr_render_stats *ref);

/* Render `scene` on `kind` with the stencil mask (the reference), then with flags, compact
 * (compacting every bounce and by the default-like 0.5 policy), the megakernel and the wave
 * mask (its ways, counting per bounce or only the total): each image must equal the reference
 * bit for bit and trace the same rays (sr_test_same_counts). The reference's
 * statistics go to ref_stats (may be NULL). Returns the reference image (malloc'd). */
float *sr_test_masks_agree(const sr_scene *scene, sr_backend_kind kind, uint32_t seed, sr_render_stats *ref_stats);

/* Every shipped scene, at w x h and spp, rendered on `kind` with the compact mask and each
 * --sort and --sort-key: the image must be bit-identical to the unsorted one, and a sorted
 * render must compact at every bounce that has a next one. */
void sr_test_sorts_keep_images(sr_backend_kind kind, unsigned w, unsigned h, unsigned spp);

/* ---- scene reader tests ---------------------------------------------------------------- *
 * Scenes are written with ' for " (and ` for a literal '), and '@' marks where an error must
 * point; the helpers remove the mark and work out its line and column. */

/* ' -> ", ` -> ', '@' removed and its line:column returned (0:0 when there is none). Returns
 * the length written to out. */
size_t sr_test_unmark(const char *src, char *out, size_t cap, unsigned long *line, unsigned long *col);

/* Whether n bytes at p are all zero. */
int sr_test_is_zero(const void *p, size_t n);

/* Parse src (as "t.json") and check it fails with SR_ERR_INPUT, a message that starts with
 * "t.json:L:C: JP: " (L:C from the '@' mark; no "JP: " when jp is NULL), and contains every
 * word (the list ends with NULL); *out must be left empty. */
void sr_test_expect_scene_err(const char *src, const char *jp, ...);
#define EXPECT_ERR(src, jp, ...) sr_test_expect_scene_err(src, jp, __VA_ARGS__, (const char *)NULL)

/* Parse src (as "t.json", marks as above) and fail the test unless it succeeds. */
void sr_test_parse_ok(const char *src, sr_scene *s);

/* Parse text (len bytes, named name) and fail the test unless it is refused as SR_ERR_INPUT
 * with the scene left empty; returns the message (valid until the next call). */
const char *sr_test_parse_refused(const char *name, const char *text, size_t len);

/* Exact, and within eps in every component. */
void sr_test_assert_vec(sr_vec3 v, float x, float y, float z);
void sr_test_assert_vec_near(sr_vec3 v, float x, float y, float z, float eps);

/* A valid scene's parts, to build bad ones from. */
#define CAM "'camera': {'position': [0, 1, 5], 'look_at': [0, 1, 0]}"
#define MATS "'materials': {'m': {'type': 'diffuse'}}"
#define OBJS "'objects': [{'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'material': 'm'}]"
#define SCENE_WITH(extra) "{" CAM ", " MATS ", " OBJS ", " extra "}"
#define SCENE_OBJ(obj) "{" CAM ", 'materials': {'m': {'type': 'diffuse'}, 'lamp': {'type': 'emissive', 'radiance': [1, 1, 1]}}, 'objects': [" obj "]}"
#define SCENE_MAT(mat) "{" CAM ", 'materials': {'m': " mat "}, " OBJS "}"
#define SCENE_CAM(cam) "{'camera': " cam ", " MATS ", " OBJS "}"
#define SCENE_LIGHT(l) SCENE_WITH("'lights': [" l "]")

/* ---- path tracer tests: Monte Carlo against expected values ---------------------------- *
 * Results are compared by the self-normalised statistic z = sum(r) / sqrt(sum(r^2)) over the
 * residuals r of independent pixels (each pixel has its own random numbers): under an
 * unbiased estimator it is about N(0, 1), so |z| < 5 fails by chance about once in 10^6 runs,
 * while a bias of a few standard errors of the image mean fails it. A relative bound on the
 * mean residual keeps the test sharp when the noise is large. */

/* Render on the CPU backend (compact mask, the 0.5 policy) with seed; malloc'd w*h*3. */
float *sr_test_render_cpu(const sr_scene *s, uint32_t seed);

typedef struct sr_test_stat { double sum_r, sum_r2, sum_e; uint32_t n; } sr_test_stat;

void sr_test_stat_add(sr_test_stat *a, double value, double expected);

/* Print one line under `what` and fail unless the residuals are consistent with zero mean:
 * |z| < 5 (z of the part of the sum beyond a small systematic tolerance, 3e-4 of the expected
 * sum) and the mean residual within rel_tol of the mean expected value. */
void sr_test_stat_check(const char *what, const sr_test_stat *a, double rel_tol);

/* Every channel of every pixel against one constant colour. */
void sr_test_check_constant(const char *what, const float *img, uint32_t pixels, const double expect[3], double rel_tol);

#endif
