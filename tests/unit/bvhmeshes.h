/* bvhmeshes.h: meshes made to test the BVH builder (test_bvh.c checks the trees, test_gpu_bvh.c
 * that the GPU builds the CPU's tree byte for byte): a displaced sphere, degenerate
 * triangles, duplicates, every triangle in one point, many triangles sharing one Morton code
 * beside a few far away, and a spine of codes deep enough that 63-bit codes exceed the
 * traversal stack. Each prim carries its input index in `material`. */
#ifndef SR_TEST_BVHMESHES_H
#define SR_TEST_BVHMESHES_H

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../../kernels/core/types.h"

enum { SR_MESH_SPHERE, SR_MESH_DEGENERATE, SR_MESH_DUPLICATES, SR_MESH_ONE_POINT, SR_MESH_ONE_CODE, SR_MESH_SPINE,
       SR_MESH_MIXED, SR_MESH_KINDS };

static const char *const sr_mesh_names[SR_MESH_KINDS] = {
    "displaced sphere", "degenerate triangles", "duplicates", "all in one point", "one Morton code",
    "deep code spine", "spheres, quads and triangles",
};

static sr_prim sr_mesh_tri(sr_vec3 a, sr_vec3 b, sr_vec3 c, uint32_t id)
{
    sr_prim p;
    memset(&p, 0, sizeof p);
    p.kind = SR_PRIM_TRIANGLE;
    p.material = id;
    p.a = a; p.b = b; p.c = c;
    return p;
}

/* A lat-long sphere of side x side quads (2 triangles each), r = 1 + 0.1 sin 8θ sin 8φ. */
static sr_vec3 sr_mesh_sphere_point(uint32_t i, uint32_t j, uint32_t side)
{
    const double th = M_PI * i / side, ph = 2.0 * M_PI * j / side;
    const double r = 1.0 + 0.1 * sin(8.0 * th) * sin(8.0 * ph);
    return sr_v3((float)(r * sin(th) * cos(ph)), (float)(r * cos(th)), (float)(r * sin(th) * sin(ph)));
}

/* The mesh of kind k, about `size` prims; *n gets the count. Free with free(). */
static sr_prim *sr_mesh_make(int k, uint32_t size, uint32_t *n)
{
    sr_prim *p = (sr_prim *)malloc(sizeof(sr_prim) * (2u * (size_t)size + 200u));
    uint32_t m = 0;
    if (!p) { *n = 0; return NULL; }
    switch (k) {
    case SR_MESH_SPHERE: {
        uint32_t side = 2;
        while (2u * (side + 1u) * (side + 1u) <= size) side++;
        for (uint32_t i = 0; i < side; i++)
            for (uint32_t j = 0; j < side; j++) {
                sr_vec3 a = sr_mesh_sphere_point(i, j, side), b = sr_mesh_sphere_point(i + 1, j, side);
                sr_vec3 c = sr_mesh_sphere_point(i + 1, j + 1, side), d = sr_mesh_sphere_point(i, j + 1, side);
                p[m] = sr_mesh_tri(a, b, c, m); m++;
                p[m] = sr_mesh_tri(a, c, d, m); m++;
            }
        break;
    }
    case SR_MESH_DEGENERATE:   /* lines, points and slivers along a curve */
        for (; m < size; m++) {
            float t = (float)m * 0.01f;
            sr_vec3 a = sr_v3(cosf(t), sinf(t), t * 0.1f);
            if (m % 3 == 0) p[m] = sr_mesh_tri(a, a, a, m);
            else if (m % 3 == 1) p[m] = sr_mesh_tri(a, sr_v3(a.x + 0.01f, a.y, a.z), sr_v3(a.x + 0.02f, a.y, a.z), m);
            else p[m] = sr_mesh_tri(a, sr_v3(a.x, a.y + 0.05f, a.z), sr_v3(a.x, a.y + 0.05f, a.z), m);
        }
        break;
    case SR_MESH_DUPLICATES:   /* 16 copies of each of size/16 triangles */
        for (; m < size; m++) {
            float t = (float)(m / 16u);
            sr_vec3 a = sr_v3(t, 0.5f * t, 0);
            p[m] = sr_mesh_tri(a, sr_v3(a.x + 1, a.y, a.z), sr_v3(a.x, a.y + 1, a.z), m);
        }
        break;
    case SR_MESH_ONE_POINT:
        for (; m < size; m++) p[m] = sr_mesh_tri(sr_v3(1, 2, 3), sr_v3(1, 2, 3), sr_v3(1, 2, 3), m);
        break;
    case SR_MESH_ONE_CODE:     /* tiny triangles in one cell of 2^21, and 8 far away */
        for (; m < size; m++) {
            float e = 1e-9f * (float)(m % 97u);
            sr_vec3 a = sr_v3(e, 2.0f * e, 0);
            p[m] = sr_mesh_tri(a, sr_v3(a.x + 1e-9f, a.y, a.z), sr_v3(a.x, a.y, a.z + 1e-9f), m);
        }
        for (uint32_t f = 0; f < 8; f++, m++) {
            sr_vec3 a = sr_v3(f & 1 ? 100.0f : -100.0f, f & 2 ? 100.0f : -100.0f, f & 4 ? 100.0f : -100.0f);
            p[m] = sr_mesh_tri(a, sr_v3(a.x + 1, a.y, a.z), sr_v3(a.x, a.y + 1, a.z), m);
        }
        break;
    case SR_MESH_SPINE: {      /* centroids 2^b + 1/2 cells along each axis: one code bit each */
        const uint32_t copies = size / 64u > 0 ? size / 64u : 1u;
        for (uint32_t c = 0; c < copies; c++) {
            for (int axis = 0; axis < 3; axis++)
                for (int b = 0; b < 21; b++) {
                    float v = ldexpf(1.0f, b) + 0.5f;
                    sr_vec3 a = sr_v3(axis == 0 ? v : 0.5f, axis == 1 ? v : 0.5f, axis == 2 ? v : 0.5f);
                    p[m] = sr_mesh_tri(a, a, a, m); m++;
                }
            sr_vec3 o = sr_v3(0.5f, 0.5f, 0.5f), t = sr_v3s(2097152.0f);
            p[m] = sr_mesh_tri(o, o, o, m); m++;
            p[m] = sr_mesh_tri(t, t, t, m); m++;
        }
        break;
    }
    default:                   /* a deterministic mix of kinds and sizes */
        for (; m < size; m++) {
            uint32_t h = m * 2654435761u;
            sr_vec3 c = sr_v3((float)(h % 1000u) * 0.01f, (float)((h >> 10) % 1000u) * 0.01f, (float)((h >> 20) % 1000u) * 0.01f);
            float s = 0.02f + 0.1f * (float)(h % 7u);
            memset(&p[m], 0, sizeof p[m]);
            p[m].material = m;
            p[m].a = c;
            if (m % 3 == 0) { p[m].kind = SR_PRIM_SPHERE; p[m].b = sr_v3(s, 0, 0); }
            else if (m % 3 == 1) { p[m].kind = SR_PRIM_QUAD; p[m].b = sr_v3(s, 0, 0); p[m].c = sr_v3(0, s, s); }
            else p[m] = sr_mesh_tri(c, sr_v3(c.x + s, c.y, c.z), sr_v3(c.x, c.y - s, c.z + s), m);
        }
        break;
    }
    *n = m;
    return p;
}

#endif
