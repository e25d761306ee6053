/* gltf_corpus.h: small glTF files written by the tests (no downloaded assets): one square,
 * [-1, 1]^2 in the XY plane facing +z, with normals, UVs (glTF's: (0, 0) at its top left) and
 * the material the test gives, stored as a .gltf with an external image, a .gltf with data:
 * URIs only, or a .glb with the image in a buffer view. */
#ifndef SR_TEST_GLTF_CORPUS_H
#define SR_TEST_GLTF_CORPUS_H

#include <stddef.h>

enum { SR_GLTF_EXTERNAL_IMAGE, SR_GLTF_DATA_URI, SR_GLTF_GLB };

/* Write the square to `path` (the folder must exist). material: one glTF material object
 * (JSON text; texture 0 is the image, when png is given); png, png_len: the image's bytes or
 * NULL; extensions_used: a JSON array's inside ("\"KHR_...\", ...") or NULL. With
 * SR_GLTF_EXTERNAL_IMAGE the image goes to `image_name` beside the file. */
void sr_gltf_write_square(const char *path, int storage, const char *material, const unsigned char *png, size_t png_len,
                          const char *image_name, const char *extensions_used);

/* Write a mesh of nv vertices to `path` as a .gltf whose buffer is a data: URI: positions,
 * normals and UVs (glTF's, v down) of nv vertices, tangents (VEC4: x, y, z, w) of tan_count
 * elements when tan is not NULL, ni uint16 indices, one material (JSON text; texture 0 is
 * the png, when given, as a data: URI). */
void sr_gltf_write_mesh(const char *path, const float *pos, const float *nrm, const float *uv, const float *tan,
                        unsigned tan_count, unsigned nv, const unsigned short *ix, unsigned ni, const char *material,
                        const unsigned char *png, size_t png_len);

/* The square of sr_gltf_normal_map_scene with TANGENT (tx, ty, tz, w) at every vertex
 * (tangent NULL: none), normal-mapped by one texel (rgb), Whitted, lit from to_light. */
void sr_gltf_tangent_scene(char *json, size_t cap, const char *tag, const float *tangent, const unsigned char *rgb,
                           const float to_light[3]);

/* The file of sr_gltf_tangent_scene placed twice by two objects (so read once and placed by
 * instances): at x = -1.5 as it is, at x = +1.5 mirrored in x; 32x16 pixels. */
void sr_gltf_tangent_instances_scene(char *json, size_t cap, const char *tag, const float *tangent,
                                     const unsigned char *rgb, const float to_light[3]);

/* A PNG of w x h pixels of comp channels (3: RGB, 4: RGBA) in memory (malloc'd, *len bytes). */
unsigned char *sr_gltf_png(const unsigned char *px, int w, int h, int comp, size_t *len);

/* ---- the scenes the CPU tests (test_gltf_materials.c) and the GPU test (test_gpu_gltf.c)
 * render: each writes its glTF files to the test folder (names starting with `tag`) and the
 * scene's JSON to json. */

/* A 4x4 texture of many colours on the square, under a directional light (Whitted), or the
 * sky (path): the image stored as `storage`; textured = 0 leaves the texture out. */
void sr_gltf_textured_scene(char *json, size_t cap, const char *tag, int storage, int textured, const char *integrator);

/* A texture of two texels (black, white) across the square, KHR_texture_transform scale
 * (scale, 1) on it, seen whole against a black background under a light from the camera. */
void sr_gltf_transform_scene(char *json, size_t cap, const char *tag, float scale);

/* The square glowing through an emissive texture of two texels (black, white) with
 * KHR_texture_transform scale (scale, 1) on it, the same image as its base colour without a
 * transform; no light, path traced: what shows is the emission. */
void sr_gltf_emissive_xf_scene(char *json, size_t cap, const char *tag, float scale);

/* The square with a normal map of one texel (rgb, linear), white, lit by a directional light
 * whose light arrives from to_light (unit), Whitted, no ambient, black background. rgb NULL:
 * no normal map. */
void sr_gltf_normal_map_scene(char *json, size_t cap, const char *tag, const unsigned char *rgb, const float to_light[3],
                              const char *integrator);

/* A lamp facing down over a diffuse floor, path traced: the square from a glTF file with
 * emissive strength 8 (gltf = 1), or a JSON quad of radiance 8 (gltf = 0). */
void sr_gltf_lamp_scene(char *json, size_t cap, const char *tag, int gltf, unsigned spp);

/* A green diffuse quad behind the square, lit from the front (Whitted): the square is alpha
 * MASK (mode 1: its left half opaque red by the texture's alpha, its right half cut away) or
 * BLEND (mode 2: alpha 0.25 everywhere, from the base colour factor); with_square = 0 leaves
 * it out. */
void sr_gltf_alpha_scene(char *json, size_t cap, const char *tag, int mode, int with_square, unsigned spp);

/* The square of sr_gltf_alpha_scene alone: its file written, its path into path. */
void sr_gltf_alpha_file(char *path, size_t cap, const char *tag, int mode);

#endif
