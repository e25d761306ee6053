/* intersect.h: ray–primitive tests and BVH traversal, shared by both backends (gcc as C11,
 * nvcc as CUDA). Rays are o + t*d with d of any non-zero length; t is in units of d, and a hit
 * counts only strictly inside (tmin, tmax), so on an exact tie the prim tested first wins.
 * Primitive tests are phrased so that NaN fails their comparisons: a NaN ray misses. Box tests
 * are conservative instead: a NaN slab distance constrains nothing. Helpers named sr_isect_*
 * are internal. */
#ifndef SR_INTERSECT_H
#define SR_INTERSECT_H

#include "types.h"
#include "texel.h"
#include "rng.h"

/* Widening factor for a box's exit distance: (lo - o) * (1/d) carries at most three roundings
 * on each slab distance, so scaling the exit by 1 + 2*gamma(3) (about 3.6e-7; a few ulps more
 * here) keeps the box test conservative: no ray that hits a prim misses its box by rounding
 * (Ize, "Robust BVH Ray Traversal", JCGT 2013). */
#define SR_BOX_EXIT_SCALE 1.0000006f

/* max(acc, x) and min(acc, x) that ignore a NaN x (acc is never NaN): a slab distance of NaN
 * (0 * inf, a ray lying in a slab's plane) then constrains nothing. fmaxf/fminf already
 * behave so and are one instruction on the GPU; the C forms stay inline on the CPU. */
#if defined(__CUDA_ARCH__)
#  define SR_MAX_IGN(acc, x) fmaxf((acc), (x))
#  define SR_MIN_IGN(acc, x) fminf((acc), (x))
#else
#  define SR_MAX_IGN(acc, x) ((x) > (acc) ? (x) : (acc))
#  define SR_MIN_IGN(acc, x) ((x) < (acc) ? (x) : (acc))
#endif

/* ---- bounds ------------------------------------------------------------------------- */

SR_HD void sr_prim_bounds(const sr_prim *p, sr_vec3 *lo, sr_vec3 *hi)
{
    switch (p->kind) {
    case SR_PRIM_SPHERE: {
        float r = fabsf(p->b.x);
        *lo = sr_sub(p->a, sr_v3s(r));
        *hi = sr_add(p->a, sr_v3s(r));
        break;
    }
    case SR_PRIM_QUAD: {
        sr_vec3 p1 = sr_add(p->a, p->b), p2 = sr_add(p->a, p->c), p3 = sr_add(p1, p->c);
        *lo = sr_vmin(sr_vmin(p->a, p1), sr_vmin(p2, p3));
        *hi = sr_vmax(sr_vmax(p->a, p1), sr_vmax(p2, p3));
        break;
    }
    case SR_PRIM_TRIANGLE:
        *lo = sr_vmin(p->a, sr_vmin(p->b, p->c));
        *hi = sr_vmax(p->a, sr_vmax(p->b, p->c));
        break;
    case SR_PRIM_INSTANCE:   /* its world box, as the host computed it */
        *lo = p->a;
        *hi = p->b;
        break;
    default:   /* planes (unbounded) and unknown kinds: an empty box */
        *lo = sr_v3s(SR_INF);
        *hi = sr_v3s(-SR_INF);
        break;
    }
}

/* ---- primitives ---------------------------------------------------------------------- */

SR_HD bool sr_isect_accept(float t, float tmin, float tmax, float *t_out)
{
    if (t > tmin && t < tmax) { *t_out = t; return true; }
    return false;
}

/* Sphere: centre c, radius r. Roots of |oc + t d|^2 = r^2 (A t^2 + 2 B t + C = 0) with the
 * discriminant taken from the perpendicular distance of the centre to the line (Ray Tracing
 * Gems ch. 7), which keeps its precision for far-away and small spheres, and the roots from
 * q = -(B + sign(B) sqrt(disc)) so that neither suffers cancellation. Inside → the far root. */
SR_HD bool sr_isect_sphere(sr_vec3 c, float r, sr_vec3 o, sr_vec3 d, float tmin, float tmax, float *t_out)
{
    sr_vec3 oc = sr_sub(o, c);
    float A = sr_dot(d, d);
    float B = sr_dot(oc, d);
    if (!(A > 0.0f)) return false;
    sr_vec3 f = sr_sub(oc, sr_scale(d, B / A));    /* centre → nearest point of the line */
    float r2 = r * r;
    float disc = r2 - sr_dot(f, f);                /* (B^2 - A C) / A                    */
    if (!(disc >= 0.0f)) return false;
    float C = sr_dot(oc, oc) - r2;
    float q = -(B + copysignf(sqrtf(A * disc), B));
    float t1 = q / A;
    float t0 = q != 0.0f ? C / q : t1;
    float tn = sr_minf(t0, t1), tf = sr_maxf(t0, t1);
    return sr_isect_accept(tn, tmin, tmax, t_out) || sr_isect_accept(tf, tmin, tmax, t_out);
}

/* Two-sided infinite plane through a with normal n (need not be unit). */
SR_HD bool sr_isect_plane(sr_vec3 a, sr_vec3 n, sr_vec3 o, sr_vec3 d, float tmin, float tmax, float *t_out)
{
    float denom = sr_dot(d, n);
    if (denom == 0.0f) return false;
    return sr_isect_accept(sr_dot(sr_sub(a, o), n) / denom, tmin, tmax, t_out);
}

/* Möller–Trumbore against a + u e1 + v e2, two-sided. Triangle: u, v >= 0, u + v <= 1;
 * parallelogram (quad): u, v in [0, 1]. A ray parallel to the surface misses. */
SR_HD bool sr_isect_mt(sr_vec3 a, sr_vec3 e1, sr_vec3 e2, bool quad, sr_vec3 o, sr_vec3 d,
                       float tmin, float tmax, float *t_out)
{
    sr_vec3 pv = sr_cross(d, e2);
    float det = sr_dot(e1, pv);
    if (det == 0.0f) return false;
    float inv = 1.0f / det;
    sr_vec3 tv = sr_sub(o, a);
    float u = sr_dot(tv, pv) * inv;
    if (!(u >= 0.0f && u <= 1.0f)) return false;
    sr_vec3 qv = sr_cross(tv, e1);
    float v = sr_dot(d, qv) * inv;
    if (!(v >= 0.0f && (quad ? v : u + v) <= 1.0f)) return false;
    return sr_isect_accept(sr_dot(e2, qv) * inv, tmin, tmax, t_out);
}

SR_HD bool sr_intersect_prim(const sr_prim *p, sr_vec3 o, sr_vec3 d, float tmin, float tmax, float *t_out)
{
    switch (p->kind) {
    case SR_PRIM_SPHERE:   return sr_isect_sphere(p->a, p->b.x, o, d, tmin, tmax, t_out);
    case SR_PRIM_PLANE:    return sr_isect_plane(p->a, p->b, o, d, tmin, tmax, t_out);
    case SR_PRIM_QUAD:     return sr_isect_mt(p->a, p->b, p->c, true, o, d, tmin, tmax, t_out);
    case SR_PRIM_TRIANGLE: return sr_isect_mt(p->a, sr_sub(p->b, p->a), sr_sub(p->c, p->a), false,
                                              o, d, tmin, tmax, t_out);
    default:               return false;
    }
}

/* Unit geometric normal at `point` on p; the caller turns it to face the ray. */
SR_HD sr_vec3 sr_prim_normal(const sr_prim *p, sr_vec3 point)
{
    switch (p->kind) {
    case SR_PRIM_SPHERE:   return sr_normalize(sr_sub(point, p->a));
    case SR_PRIM_PLANE:    return p->b;
    case SR_PRIM_QUAD:     return sr_normalize(sr_cross(p->b, p->c));
    case SR_PRIM_TRIANGLE: return sr_normalize(sr_cross(sr_sub(p->b, p->a), sr_sub(p->c, p->a)));
    default:               return sr_v3(0.0f, 0.0f, 1.0f);
    }
}

/* Barycentric weights of b and c for a point x in the plane of triangle p: x = a + wb (b - a)
 * + wc (c - a), from the 2x2 normal equations (no FMA: the same bits on both backends). */
SR_HD void sr_tri_bary(const sr_prim *p, sr_vec3 x, float *wb, float *wc)
{
    const sr_vec3 e1 = sr_sub(p->b, p->a), e2 = sr_sub(p->c, p->a), v = sr_sub(x, p->a);
    const float d11 = sr_dot(e1, e1), d12 = sr_dot(e1, e2), d22 = sr_dot(e2, e2);
    const float v1 = sr_dot(v, e1), v2 = sr_dot(v, e2);
    const float det = d11 * d22 - d12 * d12;
    const float inv = det != 0.0f ? 1.0f / det : 0.0f;
    *wb = (d22 * v1 - d12 * v2) * inv;
    *wc = (d11 * v2 - d12 * v1) * inv;
}

/* ---- alpha cutouts --------------------------------------------------------------------- */

SR_HD uint32_t sr_float_bits(float f)
{
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    union { float f; uint32_t u; } v;
    v.f = f;
    return v.u;
#endif
}

/* Whether the hit at t on bounded prim i (BVH order) is cut away by its material's alpha:
 * alpha-tested (MASK: kept where alpha >= the cutoff) or coverage (BLEND: kept with
 * probability alpha, by a hash of the ray and the prim, so that the CPU and GPU agree and
 * every ray draws anew). Only the CPU and the GPU's maps and instances builds have it (SR_NO_MAPS): the
 * other GPU builds pay nothing, and there it reads the prim's attributes only in scenes with
 * cutouts (s->cutouts). */
SR_HD bool sr_cut_away_test(const sr_scene_view *s, uint32_t i, sr_vec3 o, sr_vec3 d, float t)
{
    const sr_tri_attr *a = &s->attrs[i];
    if (!(a->flags & SR_ATTR_CUTOUT)) return false;
    const sr_prim *p = &s->prims[i];
    const sr_material *m = &s->materials[p->material];
    float alpha = m->alpha;
    if (m->alpha_tex && (a->flags & SR_ATTR_UV)) {
        float wb, wc;
        sr_tri_bary(p, sr_madd(o, d, t), &wb, &wc);
        const float wa = 1.0f - wb - wc;
        const float u = a->uv[0] * wa + a->uv[2] * wb + a->uv[4] * wc;
        const float v = a->uv[1] * wa + a->uv[3] * wb + a->uv[5] * wc;
        alpha = alpha * sr_tex_sample(s, &s->textures[m->alpha_tex - 1u], u, v).x;
    }
    if (m->alpha_mode == SR_ALPHA_MASK) return !(alpha >= m->alpha_cutoff);
    uint32_t h = sr_hash32(i ^ 0x68e31da4u);
    h = sr_hash32(h ^ sr_float_bits(o.x)) ^ sr_float_bits(o.y);
    h = sr_hash32(h ^ sr_float_bits(o.z)) ^ sr_float_bits(d.x);
    h = sr_hash32(h ^ sr_float_bits(d.y)) ^ sr_float_bits(d.z);
    h = sr_hash32(h);
    return !((float)(h >> 8) * (1.0f / 16777216.0f) < alpha);
}

SR_HD bool sr_cut_away(const sr_scene_view *s, uint32_t i, sr_vec3 o, sr_vec3 d, float t)
{
    return !SR_NO_ASSETS && !SR_NO_MAPS && s->cutouts && sr_cut_away_test(s, i, o, d, t);
}

/* ---- boxes ------------------------------------------------------------------------- */

/* Slab test with the near/far slab of each axis picked by the sign of inv_d rather than by
 * min/max of the two distances: then a distance that is NaN (0 * inf, the origin on a slab
 * plane of a zero direction component) is simply ignored, and the ray lying on the box's
 * face counts as inside. Boxes are closed; the exit is widened by SR_BOX_EXIT_SCALE. */
SR_HD bool sr_isect_slab(sr_vec3 o, sr_vec3 inv_d, bool nx, bool ny, bool nz, sr_vec3 lo, sr_vec3 hi,
                         float tmin, float tmax, float *t_enter)
{
    float lx = (lo.x - o.x) * inv_d.x, hx = (hi.x - o.x) * inv_d.x;
    float ly = (lo.y - o.y) * inv_d.y, hy = (hi.y - o.y) * inv_d.y;
    float lz = (lo.z - o.z) * inv_d.z, hz = (hi.z - o.z) * inv_d.z;
    float e = tmin, x = tmax;
    e = SR_MAX_IGN(e, nx ? hx : lx);
    e = SR_MAX_IGN(e, ny ? hy : ly);
    e = SR_MAX_IGN(e, nz ? hz : lz);
    float fx = nx ? lx : hx, fy = ny ? ly : hy, fz = nz ? lz : hz;
    x = SR_MIN_IGN(x, fx * SR_BOX_EXIT_SCALE);
    x = SR_MIN_IGN(x, fy * SR_BOX_EXIT_SCALE);
    x = SR_MIN_IGN(x, fz * SR_BOX_EXIT_SCALE);
    *t_enter = e;
    return e <= x;
}

/* Does o + t d (inv_d = 1/d per component, inf where d is 0) meet the closed box [lo, hi]
 * for some t in [tmin, tmax]? t_enter gets the first such t. */
SR_HD bool sr_ray_box(sr_vec3 o, sr_vec3 inv_d, sr_vec3 lo, sr_vec3 hi, float tmin, float tmax, float *t_enter)
{
    return sr_isect_slab(o, inv_d, inv_d.x < 0.0f, inv_d.y < 0.0f, inv_d.z < 0.0f, lo, hi, tmin, tmax, t_enter);
}

/* One node's box and header. On the GPU as two 16-byte read-only loads: the node array must
 * be 16-byte aligned there (cudaMalloc gives 256) and nodes are 32 bytes. */
SR_HD void sr_isect_load_node(const sr_bvh_node *n, sr_vec3 *lo, sr_vec3 *hi, uint32_t *index, uint32_t *count)
{
#if defined(__CUDA_ARCH__)
    const float4 *q = (const float4 *)n;
    float4 a = __ldg(q), b = __ldg(q + 1);
    *lo = sr_v3(a.x, a.y, a.z); *index = __float_as_uint(a.w);
    *hi = sr_v3(b.x, b.y, b.z); *count = __float_as_uint(b.w);
#else
    *lo = n->lo; *index = n->index;
    *hi = n->hi; *count = n->count;
#endif
}

SR_HD void sr_isect_load_header(const sr_bvh_node *n, uint32_t *index, uint32_t *count)
{
#if defined(__CUDA_ARCH__)
    *index = __ldg(&n->index);
    *count = __ldg(&n->count);
#else
    *index = n->index;
    *count = n->count;
#endif
}

SR_HD sr_vec3 sr_isect_inv_dir(sr_vec3 d)
{
    return sr_v3(1.0f / d.x, 1.0f / d.y, 1.0f / d.z);
}

/* ---- instances (docs/design.md, "Instances") ------------------------------------------ */

/* m (p, 1) and m v for a row-major 3x4 m, summed left to right (the same bits on both backends). */
SR_HD sr_vec3 sr_xf_point(const float *m, sr_vec3 p)
{
    return sr_v3(m[0] * p.x + m[1] * p.y + m[2] * p.z + m[3], m[4] * p.x + m[5] * p.y + m[6] * p.z + m[7],
                 m[8] * p.x + m[9] * p.y + m[10] * p.z + m[11]);
}

SR_HD sr_vec3 sr_xf_dir(const float *m, sr_vec3 v)
{
    return sr_v3(m[0] * v.x + m[1] * v.y + m[2] * v.z, m[4] * v.x + m[5] * v.y + m[6] * v.z,
                 m[8] * v.x + m[9] * v.y + m[10] * v.z);
}

/* A normal from object to world space: the inverse transpose of to_world, which is the
 * transpose of to_object's 3x3, made unit length. */
SR_HD sr_vec3 sr_xf_normal(const float *to_object, sr_vec3 n)
{
    const float *m = to_object;
    const sr_vec3 w = sr_v3(m[0] * n.x + m[4] * n.y + m[8] * n.z, m[1] * n.x + m[5] * n.y + m[9] * n.z,
                            m[2] * n.x + m[6] * n.y + m[10] * n.z);
    const float len = sr_length(w);
    return len > 0.0f ? sr_scale(w, 1.0f / len) : w;
}

/* Is hit id `id` (not a plane's, not SR_NO_HIT) a prim of an instanced mesh? */
SR_HD bool sr_hit_instanced(const sr_scene_view *s, uint32_t id)
{
    return !SR_NO_INSTANCES && s->instance_count && id >= s->instance_ids;
}

/* The instance an instanced hit id belongs to: the last whose first_id is at most id. */
SR_HD const sr_instance *sr_hit_instance(const sr_scene_view *s, uint32_t id)
{
    uint32_t lo = 0, hi = s->instance_count - 1u;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo + 1u) / 2u;
        if (s->instances[mid].first_id <= id) lo = mid;
        else hi = mid - 1u;
    }
    return &s->instances[lo];
}

/* ---- whole-scene queries ------------------------------------------------------------ */

/* The world-space prim of a hit, or NULL for SR_NO_HIT: every shading read of a hit's prim
 * goes through here. An instanced mesh's triangle is placed into *scratch. */
SR_HD const sr_prim *sr_hit_prim(const sr_scene_view *s, sr_hit h, sr_prim *scratch)
{
    if (h.prim == SR_NO_HIT) return 0;
    if (h.prim & SR_HIT_PLANE_BIT) return &s->planes[h.prim & ~SR_HIT_PLANE_BIT];
    if (sr_hit_instanced(s, h.prim)) {
        const sr_instance *in = sr_hit_instance(s, h.prim);
        const sr_prim *p = &s->prims[h.prim - in->id_shift];
        scratch->kind = p->kind;
        scratch->material = p->material;
        scratch->a = sr_xf_point(in->to_world, p->a);
        scratch->b = sr_xf_point(in->to_world, p->b);
        scratch->c = sr_xf_point(in->to_world, p->c);
        return scratch;
    }
    return &s->prims[h.prim];
}

/* The per-vertex attributes of bounded hit id `id` (s->attrs is not NULL): an instanced
 * mesh's are copied to *scratch with their normals turned into world space. */
SR_HD const sr_tri_attr *sr_hit_attr(const sr_scene_view *s, uint32_t id, sr_tri_attr *scratch)
{
    if (!sr_hit_instanced(s, id)) return &s->attrs[id];
    const sr_instance *in = sr_hit_instance(s, id);
    *scratch = s->attrs[id - in->id_shift];
    if (scratch->flags & SR_ATTR_NORMALS)
        for (int k = 0; k < 3; k++) scratch->n[k] = sr_xf_normal(in->to_object, scratch->n[k]);
    return scratch;
}

/* The per-vertex tangents of bounded hit id `id` whose attributes are *a, or NULL when it
 * has none. They are in the stored mesh's space: *in is the instance of an instanced mesh
 * (the interpolated tangent is turned by it as a direction: sr_normal_mapped), else NULL. */
SR_HD const sr_tri_tangent *sr_hit_tangent(const sr_scene_view *s, uint32_t id, const sr_tri_attr *a,
                                           const sr_instance **in)
{
    const uint32_t k = a->flags >> SR_ATTR_TANGENT_SHIFT;
    *in = 0;
    if (!k || !s->tangents) return 0;
    if (sr_hit_instanced(s, id)) *in = sr_hit_instance(s, id);
    return &s->tangents[k - 1u];
}

/* Planes first: they are few, often near (floors, walls), and their hit tightens tmax
 * before the BVH is walked. */
SR_HD void sr_isect_planes(const sr_scene_view *s, sr_vec3 o, sr_vec3 d, float tmin, sr_hit *h)
{
    for (uint32_t i = 0; i < s->plane_count; i++) {
        float t;
        if (sr_intersect_prim(&s->planes[i], o, d, tmin, h->t, &t)) {
            h->t = t;
            h->prim = i | SR_HIT_PLANE_BIT;
        }
    }
}

/* The walk through instance `k`'s mesh (its proxy's leaf was reached): the ray in object
 * space (its direction not renormalised, so t is the world ray's), the mesh's tree from its
 * root, hits numbered by the instance (sr_instance). any: stop at the first hit (shadow
 * rays). A cut-out prim's alpha is tested as at the top level, on the stored prim with the
 * object-space ray (sr_cut_away). */
SR_HD bool sr_isect_instance(const sr_scene_view *s, uint32_t k, sr_vec3 wo, sr_vec3 wd, float tmin, sr_hit *h,
                             bool any)
{
    const sr_instance *in = &s->instances[k];
    const sr_vec3 o = sr_xf_point(in->to_object, wo), d = sr_xf_dir(in->to_object, wd);
    const sr_bvh_node *nodes = s->nodes;
    const sr_prim *prims = s->prims;
    const uint32_t shift = in->id_shift;
    sr_vec3 inv = sr_isect_inv_dir(d);
    bool nx = inv.x < 0.0f, ny = inv.y < 0.0f, nz = inv.z < 0.0f;
    uint32_t stack_node[SR_BVH_STACK];
    float stack_t[SR_BVH_STACK];
    uint32_t sp = 0;
    bool found = false;

    sr_vec3 lo, hi;
    uint32_t id = in->root, index, count;
    float te;
    sr_isect_load_node(&nodes[id], &lo, &hi, &index, &count);
    if (!sr_isect_slab(o, inv, nx, ny, nz, lo, hi, tmin, h->t, &te)) return false;
    for (;;) {
        if (count > 0) {
            for (uint32_t i = index, end = index + count; i < end; i++) {
                float t;
                if (sr_intersect_prim(&prims[i], o, d, tmin, h->t, &t) && !sr_cut_away(s, i, o, d, t)) {
                    h->t = t;
                    h->prim = i + shift;
                    found = true;
                    if (any) return true;
                }
            }
        } else {
            sr_vec3 llo, lhi, rlo, rhi;
            uint32_t li, lc, ri, rc, rid = index;
            float tl, tr;
            sr_isect_load_node(&nodes[id + 1], &llo, &lhi, &li, &lc);
            sr_isect_load_node(&nodes[rid], &rlo, &rhi, &ri, &rc);
            bool hl = sr_isect_slab(o, inv, nx, ny, nz, llo, lhi, tmin, h->t, &tl);
            bool hr = sr_isect_slab(o, inv, nx, ny, nz, rlo, rhi, tmin, h->t, &tr);
            if (hl && hr) {
                uint32_t far_id;
                float far_t;
                if (tr < tl) {
                    far_id = id + 1; far_t = tl;
                    id = rid; index = ri; count = rc;
                } else {
                    far_id = rid; far_t = tr;
                    id = id + 1; index = li; count = lc;
                }
                if (sp < SR_BVH_STACK) {
                    stack_node[sp] = far_id;
                    stack_t[sp] = far_t;
                    sp++;
                }
                continue;
            }
            if (hl) { id = id + 1; index = li; count = lc; continue; }
            if (hr) { id = rid; index = ri; count = rc; continue; }
        }
        for (;;) {
            if (sp == 0) return found;
            sp--;
            if (!(stack_t[sp] > h->t)) break;
        }
        id = stack_node[sp];
        sr_isect_load_header(&nodes[id], &index, &count);
    }
}

/* The reference answer: every plane, then every bounded prim of the top level, no BVH (an
 * instance's mesh is walked through its own tree). */
SR_HD sr_hit sr_trace_brute(const sr_scene_view *s, sr_vec3 o, sr_vec3 d, float tmin, float tmax)
{
    sr_hit h;
    h.t = tmax;
    h.prim = SR_NO_HIT;
    sr_isect_planes(s, o, d, tmin, &h);
    const uint32_t n = !SR_NO_INSTANCES && s->instance_count ? s->instance_ids : s->prim_count;
    for (uint32_t i = 0; i < n; i++) {
        float t;
        if (!SR_NO_INSTANCES && s->prims[i].kind == SR_PRIM_INSTANCE) {
            sr_isect_instance(s, s->prims[i].material, o, d, tmin, &h, false);
            continue;
        }
        if (sr_intersect_prim(&s->prims[i], o, d, tmin, h.t, &t) && !sr_cut_away(s, i, o, d, t)) {
            h.t = t;
            h.prim = i;
        }
    }
    return h;
}

/* A measuring tool's counters of the closest-hit walk (tests/perf/bench_bvh.c defines it
 * before including this header); nothing otherwise. */
#ifndef SR_ISECT_COUNT
#define SR_ISECT_COUNT(counter, k) ((void)0)
#endif
#ifndef SR_ISECT_VISIT
#define SR_ISECT_VISIT(node) ((void)0)
#endif

/* Closest hit in (tmin, tmax). Iterative depth-first walk: both children's boxes are tested
 * together, the nearer is entered and the farther pushed with its entry distance, and a
 * popped node whose entry lies beyond the closest hit so far is dropped unvisited. The
 * builder keeps the depth within SR_BVH_STACK, so the stack cannot overflow (the guard
 * only protects against a corrupt tree). */
SR_HD sr_hit sr_trace_closest(const sr_scene_view *s, sr_vec3 o, sr_vec3 d, float tmin, float tmax)
{
    sr_hit h;
    h.t = tmax;
    h.prim = SR_NO_HIT;
    sr_isect_planes(s, o, d, tmin, &h);
    if (s->node_count == 0) return h;

    const sr_bvh_node *nodes = s->nodes;
    const sr_prim *prims = s->prims;
    sr_vec3 inv = sr_isect_inv_dir(d);
    bool nx = inv.x < 0.0f, ny = inv.y < 0.0f, nz = inv.z < 0.0f;
    uint32_t stack_node[SR_BVH_STACK];
    float stack_t[SR_BVH_STACK];
    uint32_t sp = 0;

    sr_vec3 lo, hi;
    uint32_t id = 0, index, count;
    float te;
    sr_isect_load_node(&nodes[0], &lo, &hi, &index, &count);
    if (!sr_isect_slab(o, inv, nx, ny, nz, lo, hi, tmin, h.t, &te)) return h;

    for (;;) {
        if (count > 0) {
            SR_ISECT_COUNT(prim_tests, count);
            for (uint32_t i = index, end = index + count; i < end; i++) {
                float t;
                if (!SR_NO_INSTANCES && s->instance_count && prims[i].kind == SR_PRIM_INSTANCE) {
                    sr_isect_instance(s, prims[i].material, o, d, tmin, &h, false);
                    continue;
                }
                if (sr_intersect_prim(&prims[i], o, d, tmin, h.t, &t) && !sr_cut_away(s, i, o, d, t)) {
                    h.t = t;
                    h.prim = i;
                }
            }
        } else {
            sr_vec3 llo, lhi, rlo, rhi;
            uint32_t li, lc, ri, rc, rid = index;
            float tl, tr;
            SR_ISECT_COUNT(box_tests, 2u);
            SR_ISECT_VISIT(id);
            sr_isect_load_node(&nodes[id + 1], &llo, &lhi, &li, &lc);
            sr_isect_load_node(&nodes[rid], &rlo, &rhi, &ri, &rc);
            bool hl = sr_isect_slab(o, inv, nx, ny, nz, llo, lhi, tmin, h.t, &tl);
            bool hr = sr_isect_slab(o, inv, nx, ny, nz, rlo, rhi, tmin, h.t, &tr);
            if (hl && hr) {
                uint32_t far_id;
                float far_t;
                if (tr < tl) {
                    far_id = id + 1; far_t = tl;
                    id = rid; index = ri; count = rc;
                } else {
                    far_id = rid; far_t = tr;
                    id = id + 1; index = li; count = lc;
                }
                if (sp < SR_BVH_STACK) {
                    stack_node[sp] = far_id;
                    stack_t[sp] = far_t;
                    sp++;
                }
                continue;
            }
            if (hl) { id = id + 1; index = li; count = lc; continue; }
            if (hr) { id = rid; index = ri; count = rc; continue; }
        }
        /* pop the next node that could still hold a closer hit */
        for (;;) {
            if (sp == 0) return h;
            sp--;
            if (!(stack_t[sp] > h.t)) break;
        }
        id = stack_node[sp];
        sr_isect_load_header(&nodes[id], &index, &count);
    }
}

/* Is anything hit in (tmin, tmax)? Shadow rays: the first hit ends the walk, so children are
 * taken in stored order and nothing is sorted. */
SR_HD bool sr_trace_occluded(const sr_scene_view *s, sr_vec3 o, sr_vec3 d, float tmin, float tmax)
{
    float t;
    for (uint32_t i = 0; i < s->plane_count; i++)
        if (sr_intersect_prim(&s->planes[i], o, d, tmin, tmax, &t)) return true;
    if (s->node_count == 0) return false;

    const sr_bvh_node *nodes = s->nodes;
    const sr_prim *prims = s->prims;
    sr_vec3 inv = sr_isect_inv_dir(d);
    bool nx = inv.x < 0.0f, ny = inv.y < 0.0f, nz = inv.z < 0.0f;
    uint32_t stack_node[SR_BVH_STACK];
    uint32_t sp = 0;

    sr_vec3 lo, hi;
    uint32_t id = 0, index, count;
    float te;
    sr_isect_load_node(&nodes[0], &lo, &hi, &index, &count);
    if (!sr_isect_slab(o, inv, nx, ny, nz, lo, hi, tmin, tmax, &te)) return false;

    for (;;) {
        if (count > 0) {
            for (uint32_t i = index, end = index + count; i < end; i++) {
                if (!SR_NO_INSTANCES && s->instance_count && prims[i].kind == SR_PRIM_INSTANCE) {
                    sr_hit ih;
                    ih.t = tmax;
                    ih.prim = SR_NO_HIT;
                    if (sr_isect_instance(s, prims[i].material, o, d, tmin, &ih, true)) return true;
                    continue;
                }
                if (sr_intersect_prim(&prims[i], o, d, tmin, tmax, &t) && !sr_cut_away(s, i, o, d, t)) return true;
            }
        } else {
            sr_vec3 llo, lhi, rlo, rhi;
            uint32_t li, lc, ri, rc, rid = index;
            float tl, tr;
            sr_isect_load_node(&nodes[id + 1], &llo, &lhi, &li, &lc);
            sr_isect_load_node(&nodes[rid], &rlo, &rhi, &ri, &rc);
            bool hl = sr_isect_slab(o, inv, nx, ny, nz, llo, lhi, tmin, tmax, &tl);
            bool hr = sr_isect_slab(o, inv, nx, ny, nz, rlo, rhi, tmin, tmax, &tr);
            if (hl) {
                if (hr && sp < SR_BVH_STACK) stack_node[sp++] = rid;
                id = id + 1; index = li; count = lc;
                continue;
            }
            if (hr) { id = rid; index = ri; count = rc; continue; }
        }
        if (sp == 0) return false;
        id = stack_node[--sp];
        sr_isect_load_header(&nodes[id], &index, &count);
    }
}

#endif
