/* gltf_corpus.c: the tests' glTF files (gltf_corpus.h), written by hand from the glTF 2.0
 * specification: one buffer (positions, normals, UVs, indices, and in a .glb the image), one
 * mesh, one node. */
#include "gltf_corpus.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <stb_image_write.h>

typedef struct png_buf { unsigned char *b; size_t n; } png_buf;

static void png_append(void *ctx, void *data, int size)
{
    png_buf *p = ctx;
    unsigned char *g = realloc(p->b, p->n + (size_t)size);
    assert_non_null(g);
    memcpy(g + p->n, data, (size_t)size);
    p->b = g;
    p->n += (size_t)size;
}

unsigned char *sr_gltf_png(const unsigned char *px, int w, int h, int comp, size_t *len)
{
    png_buf p = { NULL, 0 };
    assert_true(stbi_write_png_to_func(png_append, &p, w, h, comp, px, w * comp) != 0);
    *len = p.n;
    return p.b;
}

static char *base64(const unsigned char *b, size_t n)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc(4 * ((n + 2) / 3) + 1), *o = out;
    assert_non_null(out);
    for (size_t i = 0; i < n; i += 3) {
        const uint32_t v = (uint32_t)b[i] << 16 | (i + 1 < n ? (uint32_t)b[i + 1] << 8 : 0) | (i + 2 < n ? b[i + 2] : 0);
        *o++ = abc[v >> 18 & 63];
        *o++ = abc[v >> 12 & 63];
        *o++ = i + 1 < n ? abc[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? abc[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

/* The geometry: 4 vertices, 2 triangles (counter-clockwise seen from +z). */
#define GEOM_BYTES 140u   /* 48 positions + 48 normals + 32 UVs + 12 indices */
static void geometry(unsigned char *b)
{
    const float pos[12] = { -1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0 };
    const float nrm[12] = { 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1 };
    const float uv[8] = { 0, 1, 1, 1, 1, 0, 0, 0 };
    const uint16_t ix[6] = { 0, 1, 2, 0, 2, 3 };
    memcpy(b, pos, 48);
    memcpy(b + 48, nrm, 48);
    memcpy(b + 96, uv, 32);
    memcpy(b + 128, ix, 12);
}

void sr_gltf_write_square(const char *path, int storage, const char *material, const unsigned char *png, size_t png_len,
                          const char *image_name, const char *extensions_used)
{
    const size_t png_at = GEOM_BYTES, total = GEOM_BYTES + (storage == SR_GLTF_GLB && png ? png_len : 0);
    unsigned char *buf = calloc(total + 4, 1);
    assert_non_null(buf);
    geometry(buf);
    if (storage == SR_GLTF_GLB && png) memcpy(buf + png_at, png, png_len);

    char *buffer_uri = NULL, *image = NULL;
    if (storage != SR_GLTF_GLB) {
        char *b64 = base64(buf, total);
        buffer_uri = malloc(strlen(b64) + 64);
        assert_non_null(buffer_uri);
        sprintf(buffer_uri, ",\"uri\":\"data:application/octet-stream;base64,%s\"", b64);
        free(b64);
    }
    if (png) {
        if (storage == SR_GLTF_GLB) {
            image = malloc(96);
            assert_non_null(image);
            sprintf(image, "{\"bufferView\":4,\"mimeType\":\"image/png\"}");
        } else if (storage == SR_GLTF_DATA_URI) {
            char *b64 = base64(png, png_len);
            image = malloc(strlen(b64) + 64);
            assert_non_null(image);
            sprintf(image, "{\"uri\":\"data:image/png;base64,%s\"}", b64);
            free(b64);
        } else {
            char dir[1024];
            snprintf(dir, sizeof dir, "%s", path);
            char *slash = strrchr(dir, '/');
            if (slash) slash[1] = '\0';
            else dir[0] = '\0';
            char file[2048];
            snprintf(file, sizeof file, "%s%s", dir, image_name);
            FILE *f = fopen(file, "wb");
            assert_non_null(f);
            assert_int_equal(fwrite(png, 1, png_len, f), png_len);
            fclose(f);
            image = malloc(strlen(image_name) + 16);
            assert_non_null(image);
            sprintf(image, "{\"uri\":\"%s\"}", image_name);
        }
    }
    const size_t cap = 4096 + strlen(material) + (buffer_uri ? strlen(buffer_uri) : 0) + (image ? strlen(image) : 0);
    char *json = malloc(cap);
    assert_non_null(json);
    char png_view[96] = "";
    if (storage == SR_GLTF_GLB && png)
        snprintf(png_view, sizeof png_view, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}", png_at, png_len);
    int n = snprintf(json, cap,
        "{\"asset\":{\"version\":\"2.0\"},%s%s%s"
        "\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"TEXCOORD_0\":2},\"indices\":3,"
        "\"material\":0}]}],"
        "\"materials\":[%s],%s%s%s"
        "\"buffers\":[{\"byteLength\":%zu%s}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":48},{\"buffer\":0,\"byteOffset\":48,\"byteLength\":48},"
        "{\"buffer\":0,\"byteOffset\":96,\"byteLength\":32},{\"buffer\":0,\"byteOffset\":128,\"byteLength\":12}%s],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\",\"min\":[-1,-1,0],\"max\":[1,1,0]},"
        "{\"bufferView\":1,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"},"
        "{\"bufferView\":2,\"componentType\":5126,\"count\":4,\"type\":\"VEC2\"},"
        "{\"bufferView\":3,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"}]}",
        extensions_used ? "\"extensionsUsed\":[" : "", extensions_used ? extensions_used : "", extensions_used ? "]," : "",
        material, png ? "\"textures\":[{\"source\":0}],\"images\":[" : "", png ? image : "", png ? "]," : "", total,
        buffer_uri ? buffer_uri : "", png_view);
    assert_true(n > 0 && (size_t)n < cap);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (storage == SR_GLTF_GLB) {
        const uint32_t jlen = (uint32_t)((n + 3) & ~3), blen = (uint32_t)((total + 3) & ~(size_t)3);
        while ((uint32_t)n < jlen) json[n++] = ' ';
        const uint32_t head[3] = { 0x46546C67u, 2u, 12u + 8u + jlen + 8u + blen };
        const uint32_t jc[2] = { jlen, 0x4E4F534Au }, bc[2] = { blen, 0x004E4942u };
        fwrite(head, 4, 3, f);
        fwrite(jc, 4, 2, f);
        fwrite(json, 1, jlen, f);
        fwrite(bc, 4, 2, f);
        fwrite(buf, 1, blen, f);   /* calloc'd past total: zero padding */
    } else {
        fwrite(json, 1, (size_t)n, f);
    }
    fclose(f);
    free(json);
    free(image);
    free(buffer_uri);
    free(buf);
}

void sr_gltf_write_mesh(const char *path, const float *pos, const float *nrm, const float *uv, const float *tan,
                        unsigned tan_count, unsigned nv, const unsigned short *ix, unsigned ni, const char *material,
                        const unsigned char *png, size_t png_len)
{
    const size_t np = 12u * nv, nn = 12u * nv, nu = 8u * nv, nt = tan ? 16u * tan_count : 0, nix = 2u * ni;
    const size_t total = np + nn + nu + nt + nix;
    unsigned char *buf = calloc(total + 4, 1);
    assert_non_null(buf);
    memcpy(buf, pos, np);
    memcpy(buf + np, nrm, nn);
    memcpy(buf + np + nn, uv, nu);
    if (tan) memcpy(buf + np + nn + nu, tan, nt);
    memcpy(buf + np + nn + nu + nt, ix, nix);
    char *b64 = base64(buf, total);
    char *img = NULL;
    if (png) {
        char *p64 = base64(png, png_len);
        img = malloc(strlen(p64) + 128);
        assert_non_null(img);
        sprintf(img, "\"textures\":[{\"source\":0}],\"images\":[{\"uri\":\"data:image/png;base64,%s\"}],", p64);
        free(p64);
    }
    float lo[3] = { pos[0], pos[1], pos[2] }, hi[3] = { pos[0], pos[1], pos[2] };
    for (unsigned v = 0; v < nv; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = pos[3 * v + k] < lo[k] ? pos[3 * v + k] : lo[k];
            hi[k] = pos[3 * v + k] > hi[k] ? pos[3 * v + k] : hi[k];
        }
    const size_t cap = 4096 + strlen(b64) + strlen(material) + (img ? strlen(img) : 0);
    char *json = malloc(cap);
    assert_non_null(json);
    char tan_attr[32] = "", tan_view[96] = "", tan_acc[128] = "";
    const unsigned ixv = tan ? 4 : 3;
    if (tan) {
        snprintf(tan_attr, sizeof tan_attr, ",\"TANGENT\":3");
        snprintf(tan_view, sizeof tan_view, "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},", np + nn + nu, nt);
        snprintf(tan_acc, sizeof tan_acc, "{\"bufferView\":3,\"componentType\":5126,\"count\":%u,\"type\":\"VEC4\"},",
                 tan_count);
    }
    int n = snprintf(json, cap,
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"TEXCOORD_0\":2%s},\"indices\":%u,"
        "\"material\":0}]}],\"materials\":[%s],%s"
        "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":%zu},{\"buffer\":0,\"byteOffset\":%zu,"
        "\"byteLength\":%zu},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},%s"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\",\"min\":[%.9g,%.9g,%.9g],"
        "\"max\":[%.9g,%.9g,%.9g]},{\"bufferView\":1,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\"},"
        "{\"bufferView\":2,\"componentType\":5126,\"count\":%u,\"type\":\"VEC2\"},%s"
        "{\"bufferView\":%u,\"componentType\":5123,\"count\":%u,\"type\":\"SCALAR\"}]}",
        tan_attr, ixv, material, img ? img : "", total, b64, np, np, nn, np + nn, nu, tan_view, np + nn + nu + nt, nix,
        nv, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], nv, nv, tan_acc, ixv, ni);
    assert_true(n > 0 && (size_t)n < cap);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(json, 1, (size_t)n, f);
    fclose(f);
    free(json);
    free(img);
    free(b64);
    free(buf);
}

/* ---- scenes ---------------------------------------------------------------------------- */

static void corpus_path(char *buf, size_t cap, const char *tag, const char *name)
{
    char file[256];
    snprintf(file, sizeof file, "%s_%s", tag, name);
    snprintf(buf, cap, "%s/%s", SR_TEST_TMP, file);
}

void sr_gltf_textured_scene(char *json, size_t cap, const char *tag, int storage, int textured, const char *integrator)
{
    unsigned char rgb[48];
    for (int i = 0; i < 48; i++) rgb[i] = (unsigned char)((i * 97 + 31) % 251);
    size_t len = 0;
    unsigned char *png = sr_gltf_png(rgb, 4, 4, 3, &len);
    static const char *const ext[] = { "ext.gltf", "data.gltf", "glb.glb" };
    char path[1024], image[256];
    corpus_path(path, sizeof path, tag, ext[storage]);
    snprintf(image, sizeof image, "%s_tex.png", tag);
    sr_gltf_write_square(path, storage,
                         textured ? "{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0},\"metallicFactor\":0,"
                                    "\"roughnessFactor\":0.6}}"
                                  : "{\"pbrMetallicRoughness\":{\"metallicFactor\":0,\"roughnessFactor\":0.6}}",
                         textured ? png : NULL, len, image, NULL);
    free(png);
    snprintf(json, cap,
             "{\"integrator\":\"%s\",\"camera\":{\"position\":[0.3,0.2,3.5],\"look_at\":[0,0,0],\"fov\":40},"
             " \"image\":{\"width\":48,\"height\":40,\"spp\":2},"
             " \"sky\":{\"zenith\":[0.4,0.6,1],\"horizon\":[1,1,1]},"
             " \"lights\":[{\"type\":\"directional\",\"direction\":[-0.3,-0.4,-1],\"intensity\":2}],"
             " \"materials\":{},"
             " \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\",\"rotate\":[0,20,0]}]}",
             integrator, path);
}

void sr_gltf_transform_scene(char *json, size_t cap, const char *tag, float scale)
{
    const unsigned char rgb[6] = { 0, 0, 0, 255, 255, 255 };
    size_t len = 0;
    unsigned char *png = sr_gltf_png(rgb, 2, 1, 3, &len);
    char path[1024], mat[512];
    corpus_path(path, sizeof path, tag, "xf.glb");
    snprintf(mat, sizeof mat,
             "{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0,\"extensions\":{\"KHR_texture_transform\":"
             "{\"scale\":[%g,1]}}},\"metallicFactor\":0,\"roughnessFactor\":1}}", scale);
    sr_gltf_write_square(path, SR_GLTF_GLB, mat, png, len, NULL, "\"KHR_texture_transform\"");
    free(png);
    snprintf(json, cap,
             "{\"camera\":{\"position\":[0,0,4],\"look_at\":[0,0,0],\"fov\":40},"
             " \"image\":{\"width\":64,\"height\":64,\"spp\":1}, \"background\":[0,0,0],"
             " \"lights\":[{\"type\":\"directional\",\"direction\":[0,0,-1],\"intensity\":3}],"
             " \"materials\":{}, \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\"}]}", path);
}

void sr_gltf_emissive_xf_scene(char *json, size_t cap, const char *tag, float scale)
{
    const unsigned char rgb[6] = { 0, 0, 0, 255, 255, 255 };
    size_t len = 0;
    unsigned char *png = sr_gltf_png(rgb, 2, 1, 3, &len);
    char path[1024], mat[512];
    corpus_path(path, sizeof path, tag, "exf.glb");
    snprintf(mat, sizeof mat,
             "{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0},\"metallicFactor\":0,\"roughnessFactor\":1},"
             "\"emissiveFactor\":[1,1,1],\"emissiveTexture\":{\"index\":0,\"extensions\":{\"KHR_texture_transform\":"
             "{\"scale\":[%g,1]}}}}", scale);
    sr_gltf_write_square(path, SR_GLTF_GLB, mat, png, len, NULL, "\"KHR_texture_transform\"");
    free(png);
    snprintf(json, cap,
             "{\"integrator\":\"path\",\"camera\":{\"position\":[0,0,4],\"look_at\":[0,0,0],\"fov\":40},"
             " \"image\":{\"width\":64,\"height\":64,\"spp\":1}, \"background\":[0,0,0],"
             " \"materials\":{}, \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\"}]}", path);
}

void sr_gltf_normal_map_scene(char *json, size_t cap, const char *tag, const unsigned char *rgb, const float to_light[3],
                              const char *integrator)
{
    size_t len = 0;
    unsigned char *png = rgb ? sr_gltf_png(rgb, 1, 1, 3, &len) : NULL;
    char path[1024];
    corpus_path(path, sizeof path, tag, rgb ? "nmap.gltf" : "flat.gltf");
    sr_gltf_write_square(path, SR_GLTF_DATA_URI,
                         rgb ? "{\"pbrMetallicRoughness\":{\"metallicFactor\":0,\"roughnessFactor\":1},"
                               "\"normalTexture\":{\"index\":0}}"
                             : "{\"pbrMetallicRoughness\":{\"metallicFactor\":0,\"roughnessFactor\":1}}",
                         png, len, NULL, NULL);
    free(png);
    snprintf(json, cap,
             "{\"integrator\":\"%s\",\"camera\":{\"position\":[0,0,4],\"look_at\":[0,0,0],\"fov\":20},"
             " \"image\":{\"width\":16,\"height\":16,\"spp\":1}, \"background\":[0,0,0],"
             " \"lights\":[{\"type\":\"directional\",\"direction\":[%.9g,%.9g,%.9g],\"intensity\":1}],"
             " \"materials\":{}, \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\"}]}",
             integrator, -to_light[0], -to_light[1], -to_light[2], path);
}

void sr_gltf_lamp_scene(char *json, size_t cap, const char *tag, int gltf, unsigned spp)
{
    char path[1024], lamp[1400];
    corpus_path(path, sizeof path, tag, "lamp.glb");
    if (gltf) {
        sr_gltf_write_square(path, SR_GLTF_GLB,
                             "{\"pbrMetallicRoughness\":{\"baseColorFactor\":[0,0,0,1],\"metallicFactor\":1,"
                             "\"roughnessFactor\":1},\"emissiveFactor\":[1,0.75,0.5],"
                             "\"extensions\":{\"KHR_materials_emissive_strength\":{\"emissiveStrength\":8}}}",
                             NULL, 0, NULL, "\"KHR_materials_emissive_strength\"");
        /* the square turned to face down (+z to -y), 2 above the floor */
        snprintf(lamp, sizeof lamp, "{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\",\"rotate\":[90,0,0],"
                 "\"translate\":[0,2,0]}", path);
    } else {
        snprintf(lamp, sizeof lamp, "{\"type\":\"quad\",\"corner\":[-1,2,-1],\"edge_u\":[2,0,0],\"edge_v\":[0,0,2],"
                 "\"material\":\"lamp\"}");
    }
    snprintf(json, cap,
             "{\"integrator\":\"path\",\"camera\":{\"position\":[0,1,5.5],\"look_at\":[0,0.5,0],\"fov\":40},"
             " \"image\":{\"width\":24,\"height\":24,\"spp\":%u,\"max_depth\":4}, \"background\":[0,0,0],"
             " \"materials\":{\"floor\":{\"type\":\"diffuse\",\"albedo\":[0.6,0.6,0.6]},"
             "   \"lamp\":{\"type\":\"emissive\",\"radiance\":[8,6,4]}},"
             " \"objects\":[{\"type\":\"quad\",\"corner\":[-3,0,-3],\"edge_u\":[0,0,6],\"edge_v\":[6,0,0],\"material\":\"floor\"},"
             "   %s]}", spp, lamp);
}

void sr_gltf_alpha_file(char *path, size_t cap, const char *tag, int mode)
{
    corpus_path(path, cap, tag, mode == 1 ? "mask.glb" : "blend.gltf");
    if (mode == 1) {   /* left texel opaque red, right texel transparent */
        const unsigned char rgba[8] = { 255, 40, 40, 255, 255, 40, 40, 0 };
        size_t len = 0;
        unsigned char *png = sr_gltf_png(rgba, 2, 1, 4, &len);
        sr_gltf_write_square(path, SR_GLTF_GLB,
                             "{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0},\"metallicFactor\":0,"
                             "\"roughnessFactor\":1},\"alphaMode\":\"MASK\",\"alphaCutoff\":0.5}",
                             png, len, NULL, NULL);
        free(png);
    } else {           /* a quarter covered, everywhere */
        sr_gltf_write_square(path, SR_GLTF_DATA_URI,
                             "{\"pbrMetallicRoughness\":{\"baseColorFactor\":[1,1,1,0.25],\"metallicFactor\":0,"
                             "\"roughnessFactor\":1},\"alphaMode\":\"BLEND\"}",
                             NULL, 0, NULL, NULL);
    }
}

void sr_gltf_alpha_scene(char *json, size_t cap, const char *tag, int mode, int with_square, unsigned spp)
{
    char path[1024], square[1200] = "";
    sr_gltf_alpha_file(path, sizeof path, tag, mode);
    if (with_square) snprintf(square, sizeof square, ",{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\"}", path);
    snprintf(json, cap,
             "{\"camera\":{\"position\":[0,0,4],\"look_at\":[0,0,0],\"fov\":20},"
             " \"image\":{\"width\":32,\"height\":32,\"spp\":%u}, \"background\":[0,0,0],"
             " \"lights\":[{\"type\":\"directional\",\"direction\":[0.2,0.1,-1],\"intensity\":3}],"
             " \"materials\":{\"back\":{\"type\":\"diffuse\",\"albedo\":[0.1,0.8,0.2]}},"
             " \"objects\":[{\"type\":\"quad\",\"corner\":[-3,-3,-1],\"edge_u\":[6,0,0],\"edge_v\":[0,6,0],"
             "\"material\":\"back\"}%s]}", spp, square);
}

void sr_gltf_tangent_scene(char *json, size_t cap, const char *tag, const float *tangent, const unsigned char *rgb,
                           const float to_light[3])
{
    const float pos[12] = { -1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0 };
    const float nrm[12] = { 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1 };
    const float uv[8] = { 0, 1, 1, 1, 1, 0, 0, 0 };
    const unsigned short ix[6] = { 0, 1, 2, 0, 2, 3 };
    float tan[16];
    for (int v = 0; v < 4 && tangent; v++) memcpy(tan + 4 * v, tangent, 4 * sizeof(float));
    size_t len = 0;
    unsigned char *png = sr_gltf_png(rgb, 1, 1, 3, &len);
    char path[1024];
    corpus_path(path, sizeof path, tag, "tan.gltf");
    sr_gltf_write_mesh(path, pos, nrm, uv, tangent ? tan : NULL, 4, 4, ix, 6,
                       "{\"pbrMetallicRoughness\":{\"metallicFactor\":0,\"roughnessFactor\":1},"
                       "\"normalTexture\":{\"index\":0}}", png, len);
    free(png);
    snprintf(json, cap,
             "{\"integrator\":\"whitted\",\"camera\":{\"position\":[0,0,4],\"look_at\":[0,0,0],\"fov\":20},"
             " \"image\":{\"width\":16,\"height\":16,\"spp\":1}, \"background\":[0,0,0],"
             " \"lights\":[{\"type\":\"directional\",\"direction\":[%.9g,%.9g,%.9g],\"intensity\":1}],"
             " \"materials\":{}, \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\"}]}",
             -to_light[0], -to_light[1], -to_light[2], path);
}

void sr_gltf_tangent_instances_scene(char *json, size_t cap, const char *tag, const float *tangent,
                                     const unsigned char *rgb, const float to_light[3])
{
    char one[4096], path[1024];
    sr_gltf_tangent_scene(one, sizeof one, tag, tangent, rgb, to_light);   /* writes the file */
    corpus_path(path, sizeof path, tag, "tan.gltf");
    snprintf(json, cap,
             "{\"integrator\":\"whitted\",\"camera\":{\"position\":[0,0,8],\"look_at\":[0,0,0],\"fov\":40},"
             " \"image\":{\"width\":32,\"height\":16,\"spp\":1}, \"background\":[0,0,0],"
             " \"lights\":[{\"type\":\"directional\",\"direction\":[%.9g,%.9g,%.9g],\"intensity\":1}],"
             " \"materials\":{}, \"objects\":["
             "{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\",\"translate\":[-1.5,0,0]},"
             "{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\",\"transform\":[-1,0,0,1.5, 0,1,0,0, 0,0,1,0, 0,0,0,1]}]}",
             -to_light[0], -to_light[1], -to_light[2], path, path);
}
