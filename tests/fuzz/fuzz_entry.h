/* fuzz_entry.h: what the libFuzzer harnesses (fuzz_scene.c, fuzz_mesh.c, fuzz_texture.c) do
 * with one input, shared with the CTest replay of the corpus and of every crash found
 * (tests/unit/test_fuzz_regressions.c), so a regression is replayed through exactly the code
 * that found it.
 *
 * The contract checked: sr_scene_parse never crashes, leaks or hangs (the sanitizers and
 * libFuzzer's timeout check those); it returns SR_OK with a scene whose numbers are in
 * range, whose indices point inside its arrays and whose cameras can be built in float
 * (sr_camera_make), or SR_ERR_INPUT with a message that
 * names the file, is printable text and is NUL-terminated. Anything else is a finding. */
#ifndef SR_FUZZ_ENTRY_H
#define SR_FUZZ_ENTRY_H

#include "../../src/scene/scene.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Scene text and mesh body are split at the first occurrence of this line. */
#define SR_FUZZ_MESH_SEP "\n%%mesh\n"

static int sr_fuzz_violation(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return 1;
}

/* Whether sr_camera_make can build d: a field of view whose float tangent is positive, a
 * look-at point other than the position and within SR_CAMERA_DIST_MAX, up not along the view. */
static int sr_fuzz_camera_ok(const sr_camera_desc *d)
{
    const double dist = sr_camera_distance(d);
    return sr_camera_fov_ok(d->vfov_deg) && dist > 0.0 && dist <= (double)SR_CAMERA_DIST_MAX && sr_camera_up_ok(d);
}

/* 0 when the result honours the contract, else 1 with the reason in why. */
static int sr_fuzz_check_result(const char *path, sr_status st, const sr_error *err, const sr_scene *s, char *why,
                                size_t cap)
{
    if (st == SR_OK) {
        if (s->width < 1 || s->width > SR_MAX_RESOLUTION || s->height < 1 || s->height > SR_MAX_RESOLUTION)
            return sr_fuzz_violation(why, cap, "accepted image size %ux%u", s->width, s->height);
        if (s->spp < 1 || s->spp > SR_MAX_SPP || s->max_depth < 1 || s->max_depth > SR_MAX_DEPTH)
            return sr_fuzz_violation(why, cap, "accepted spp %u / max_depth %u", s->spp, s->max_depth);
        if ((s->prim_count && !s->prims) || (s->plane_count && !s->planes) || (s->material_count && !s->materials) ||
            (s->light_count && !s->lights))
            return sr_fuzz_violation(why, cap, "a count without its array");
        for (uint32_t i = 0; i < s->material_count; i++)
            if (s->materials[i].kind >= SR_MAT_KIND_COUNT)
                return sr_fuzz_violation(why, cap, "material %u has kind %u", i, s->materials[i].kind);
        for (uint32_t i = 0; i < s->prim_count; i++) {
            const sr_prim *p = &s->prims[i];
            if (p->kind == SR_PRIM_PLANE || p->kind >= SR_PRIM_KIND_COUNT || p->material >= s->material_count)
                return sr_fuzz_violation(why, cap, "prim %u: kind %u, material %u of %u", i, p->kind, p->material,
                                         s->material_count);
        }
        /* instances: each places a shared mesh that lies within the shared prims */
        for (uint32_t i = 0; i < s->shared_mesh_count; i++) {
            const sr_shared_mesh *m = &s->shared_meshes[i];
            if (m->count == 0 || m->first > s->shared_prim_count || m->count > s->shared_prim_count - m->first)
                return sr_fuzz_violation(why, cap, "shared mesh %u: prims [%u, +%u) of %u", i, m->first, m->count,
                                         s->shared_prim_count);
        }
        for (uint32_t i = 0; i < s->shared_prim_count; i++) {
            const sr_prim *p = &s->shared_prims[i];
            if (p->kind != SR_PRIM_TRIANGLE || p->material >= s->material_count)
                return sr_fuzz_violation(why, cap, "shared prim %u: kind %u, material %u", i, p->kind, p->material);
        }
        for (uint32_t i = 0; i < s->instance_count; i++)
            if (s->instances[i].mesh >= s->shared_mesh_count)
                return sr_fuzz_violation(why, cap, "instance %u places mesh %u of %u", i, s->instances[i].mesh,
                                         s->shared_mesh_count);
        for (uint32_t i = 0; i < s->plane_count; i++)
            if (s->planes[i].kind != SR_PRIM_PLANE || s->planes[i].material >= s->material_count)
                return sr_fuzz_violation(why, cap, "plane %u: kind %u, material %u", i, s->planes[i].kind,
                                         s->planes[i].material);
        /* every camera it may render with can be built in float: the scene's, a glTF file's
         * perspective cameras (--camera-index) and the camera path's fields of view */
        if (!sr_fuzz_camera_ok(&s->camera))
            return sr_fuzz_violation(why, cap, "accepted a camera that cannot be built (fov %.9g)",
                                     (double)s->camera.vfov_deg);
        for (uint32_t i = 0; i < s->file_camera_count; i++)
            if (s->file_cameras[i].kind == 0 && !sr_fuzz_camera_ok(&s->file_cameras[i].desc))
                return sr_fuzz_violation(why, cap, "accepted file camera %u, which cannot be built (fov %.9g)", i,
                                         (double)s->file_cameras[i].desc.vfov_deg);
        for (uint32_t i = 0; i < s->camera_path_count; i++)
            if (!sr_camera_fov_ok(s->camera_path[i].vfov_deg))
                return sr_fuzz_violation(why, cap, "accepted camera_path[%u] with fov %.9g", i,
                                         (double)s->camera_path[i].vfov_deg);
        return 0;
    }
    if (st != SR_ERR_INPUT || err->status != SR_ERR_INPUT)
        return sr_fuzz_violation(why, cap, "status %d (error status %d), expected SR_ERR_INPUT: %s", (int)st,
                                 (int)err->status, err->msg);
    size_t n = strnlen(err->msg, sizeof err->msg);
    if (n == 0 || n == sizeof err->msg) return sr_fuzz_violation(why, cap, "empty or unterminated message");
    if (strncmp(err->msg, path, strlen(path)) != 0)
        return sr_fuzz_violation(why, cap, "the message does not name the file: %s", err->msg);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)err->msg[i];
        if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)
            return sr_fuzz_violation(why, cap, "control byte 0x%02x at %zu in the message: %s", ch, i, err->msg);
    }
    return 0;
}

/* fuzz_scene: the bytes are a scene file. Mesh paths resolve next to a scene in a folder
 * that does not exist, so only absolute paths reach the file system. */
static int sr_fuzz_scene_one(const uint8_t *data, size_t size, char *why, size_t cap)
{
    static const char path[] = "/nonexistent-sr-fuzz/scene.json";
    sr_scene s;
    sr_error err;
    memset(&err, 0, sizeof err);
    sr_status st = sr_scene_parse(path, (const char *)data, size, &s, &err);
    int bad = sr_fuzz_check_result(path, st, &err, &s, why, cap);
    if (st == SR_OK) sr_scene_free(&s);
    return bad;
}

/* fuzz_mesh: "SCENE" SR_FUZZ_MESH_SEP "MESH", or just "MESH". The body is written under
 * every name below, in a private temporary folder next to the scene, so the scene picks the
 * importer by the name it uses (every accepted format: OBJ, PLY, STL, glTF, GLB), and an
 * OBJ's mtllib or a glTF's buffer or image can name the body too (mesh.mtl, mesh.bin).
 * Without a scene, a default one loads the body under the name its first bytes suggest
 * (sr_fuzz_mesh_name). */
static char sr_fuzz_dir[64];
static const char *const sr_fuzz_names[] = { "mesh.obj", "mesh.ply", "mesh.stl", "mesh.gltf", "mesh.glb",
                                             "mesh.mtl", "mesh.bin", NULL };

/* fuzz_texture's names (sr_fuzz_texture_one). */
static const char *const sr_fuzz_texture_names[] = { "tex.png", "tex.tga", "tex.exr", NULL };

static void sr_fuzz_cleanup(void)
{
    char p[128];
    const char *const *lists[] = { sr_fuzz_names, sr_fuzz_texture_names };
    for (int l = 0; l < 2; l++)
        for (int i = 0; lists[l][i]; i++) {
            snprintf(p, sizeof p, "%s/%s", sr_fuzz_dir, lists[l][i]);
            unlink(p);
        }
    rmdir(sr_fuzz_dir);
}

/* The private folder the bodies are written to, made once per process. */
static void sr_fuzz_dir_init(void)
{
    if (sr_fuzz_dir[0]) return;
    const char *tmp = getenv("TMPDIR");
    snprintf(sr_fuzz_dir, sizeof sr_fuzz_dir, "%s/sr-fuzz-XXXXXX", tmp && strlen(tmp) < 40 ? tmp : "/tmp");
    if (!mkdtemp(sr_fuzz_dir)) { perror("mkdtemp"); abort(); }
    atexit(sr_fuzz_cleanup);
}

/* The mesh file a scene-less body is loaded as: "ply" is PLY, "solid" a text STL, "glTF" a
 * GLB, "{" with "asset" in it a glTF; 84 + 50 x the count at byte 80 bytes is a binary STL;
 * anything else OBJ (as every body that was not PLY was before STL and glTF were added, so
 * the regression inputs keep their meaning). */
static const char *sr_fuzz_mesh_name(const uint8_t *b, size_t n)
{
    if (n >= 3 && !memcmp(b, "ply", 3)) return "mesh.ply";
    if (n >= 5 && !memcmp(b, "solid", 5)) return "mesh.stl";
    if (n >= 4 && !memcmp(b, "glTF", 4)) return "mesh.glb";
    for (size_t i = 0; n >= 1 && b[0] == '{' && i + 7 <= n; i++)   /* other '{': OBJ, as before */
        if (!memcmp(b + i, "\"asset\"", 7)) return "mesh.gltf";
    if (n >= 84) {
        const uint64_t count = b[80] | (uint64_t)b[81] << 8 | (uint64_t)b[82] << 16 | (uint64_t)b[83] << 24;
        if (n == 84 + 50 * count) return "mesh.stl";
    }
    return "mesh.obj";
}

static int sr_fuzz_write(const char *name, const uint8_t *data, size_t size)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", sr_fuzz_dir, name);
    FILE *f = fopen(p, "wb");
    if (!f) return -1;
    size_t put = size ? fwrite(data, 1, size, f) : 0;
    return (fclose(f) == 0 && put == size) ? 0 : -1;
}

static int sr_fuzz_mesh_one(const uint8_t *data, size_t size, char *why, size_t cap)
{
    sr_fuzz_dir_init();
    static const char sep[] = SR_FUZZ_MESH_SEP;
    const size_t seplen = sizeof sep - 1;
    const uint8_t *body = data, *scene = NULL;
    size_t body_len = size, scene_len = 0;
    for (size_t i = 0; i + seplen <= size; i++)
        if (memcmp(data + i, sep, seplen) == 0) {
            scene = data;
            scene_len = i;
            body = data + i + seplen;
            body_len = size - i - seplen;
            break;
        }
    char def[512];
    if (!scene) {
        snprintf(def, sizeof def,
                 "{\"camera\": {\"position\": [0, 0, 5], \"look_at\": [0, 0, 0]},\n"
                 " \"materials\": {\"m\": {\"type\": \"diffuse\", \"albedo\": [0.8, 0.8, 0.8]}},\n"
                 " \"objects\": [{\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"m\"}]}\n",
                 sr_fuzz_mesh_name(body, body_len));
        scene = (const uint8_t *)def;
        scene_len = strlen(def);
    }
    for (int i = 0; sr_fuzz_names[i]; i++)
        if (sr_fuzz_write(sr_fuzz_names[i], body, body_len)) {
            perror("sr_fuzz_mesh_one: writing the mesh");
            abort();
        }
    char path[128];
    snprintf(path, sizeof path, "%s/scene.json", sr_fuzz_dir);
    sr_scene s;
    sr_error err;
    memset(&err, 0, sizeof err);
    sr_status st = sr_scene_parse(path, (const char *)scene, scene_len, &s, &err);
    int bad = sr_fuzz_check_result(path, st, &err, &s, why, cap);
    if (st == SR_OK) sr_scene_free(&s);
    return bad;
}

/* fuzz_texture: the bytes are an image, written as tex.png, tex.tga and tex.exr; a scene loads
 * one as a quad's albedo texture and as the environment map: tex.exr for OpenEXR's magic
 * number (OpenEXR's reader is chosen by the name), tex.tga for bytes with none of the
 * signatures stb_image is given (a TGA is known by its name), else tex.png (stb_image reads
 * the signature). The memory budget is cut to 512 MiB, so an image whose header claims
 * millions of texels is refused as it would be on a small machine, not run out of memory.
 * Besides the common contract, a loaded file must be decoded once (both uses share it). */
static int sr_fuzz_texture_one(const uint8_t *data, size_t size, char *why, size_t cap)
{
    sr_fuzz_dir_init();
    const char *had = getenv("SR_HOST_MEM_LIMIT");
    char before[64] = "";
    if (had) snprintf(before, sizeof before, "%s", had);
    setenv("SR_HOST_MEM_LIMIT", "512M", 1);
    for (int i = 0; sr_fuzz_texture_names[i]; i++)
        if (sr_fuzz_write(sr_fuzz_texture_names[i], data, size)) {
            perror("sr_fuzz_texture_one: writing the image");
            abort();
        }
    static const char *const stb_sigs[] = { "\x89PNG", "\xff\xd8\xff", "#?RADIANCE", "#?RGBE", NULL };
    const char *name = size >= 4 && !memcmp(data, "\x76\x2f\x31\x01", 4) ? "tex.exr" : "tex.tga";
    for (int k = 0; stb_sigs[k] && !strcmp(name, "tex.tga"); k++)
        if (size >= strlen(stb_sigs[k]) && !memcmp(data, stb_sigs[k], strlen(stb_sigs[k]))) name = "tex.png";
    char scene[768], path[128];
    snprintf(scene, sizeof scene,
             "{\"camera\": {\"position\": [0, 0, 5], \"look_at\": [0, 0, 0]},\n"
             " \"environment\": {\"file\": \"%s\"},\n"
             " \"materials\": {\"t\": {\"type\": \"diffuse\", \"albedo\": {\"texture\": \"%s\"}}},\n"
             " \"objects\": [{\"type\": \"quad\", \"corner\": [-1, -1, 0], \"edge_u\": [2, 0, 0],"
             " \"edge_v\": [0, 2, 0], \"material\": \"t\"}]}\n", name, name);
    snprintf(path, sizeof path, "%s/scene.json", sr_fuzz_dir);
    sr_scene s;
    sr_error err;
    memset(&err, 0, sizeof err);
    sr_status st = sr_scene_parse(path, scene, strlen(scene), &s, &err);
    if (had) setenv("SR_HOST_MEM_LIMIT", before, 1);
    else unsetenv("SR_HOST_MEM_LIMIT");
    int bad = sr_fuzz_check_result(path, st, &err, &s, why, cap);
    /* one file, decoded once: the albedo texture and the environment map share its texels */
    if (!bad && st == SR_OK &&
        (s.tex.count < 1 || s.tex.texel_count != (uint64_t)s.tex.items[0].width * s.tex.items[0].height)) {
        snprintf(why, cap, "%s: one image file became %llu texels in %u textures", path,
                 (unsigned long long)s.tex.texel_count, (unsigned)s.tex.count);
        bad = 1;
    }
    if (st == SR_OK) sr_scene_free(&s);
    return bad;
}

#endif
