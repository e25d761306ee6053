/* intersect_wide.h: the walk of the compressed 8-wide tree (types.h, sr_wide_node), for both
 * backends; intersect.h includes it and calls it in place of the binary walk when the scene
 * has a wide tree. One walk serves both levels of an instanced scene: reaching an instance's
 * proxy pushes a marker and the mesh's root, and popping the marker takes the world ray back.
 * Hits are the binary walk's: the same prims, tested by the same functions, ties to the
 * smaller id (sr_isect_try), and boxes that only grow (rounded outwards when quantized).
 * Not a header on its own: it is part of intersect.h, which includes it. */
#ifndef SR_INTERSECT_WIDE_H
#define SR_INTERSECT_WIDE_H

/* 1: compiled out. The GPU kernels carry the walk only when built with CMake's SR_GPU_WIDE
 * (inlined beside the binary walk it costs every kernel stack and spills: the plain wave
 * kernel's frame 592 -> 2,224 bytes, its spill loads 272 -> 588 at sm_90), the CPU always. */
#ifndef SR_NO_WIDE
#  if defined(__CUDACC__)
#    define SR_NO_WIDE 1
#  else
#    define SR_NO_WIDE 0
#  endif
#endif

#define SR_WIDE_INSTANCE 0x80000000u   /* a stack entry: an instance's proxy, prim index below */
#define SR_WIDE_LEAVE 0xffffffffu      /* a stack entry: back to the world ray                */

/* 2^(e - 127): a quantization step (e is 1 to 254, a normal float's exponent). */
SR_HD float sr_wide_step(uint8_t e)
{
    return sr_float_of_bits((uint32_t)e << 23);
}

/* One bound decoded: origin + q * step. q * step is exact (8 bits times a power of two); the
 * sum rounds once, and the collapse picks q with this very function, so the box it checks is
 * the box the walk tests. */
SR_HD float sr_wide_bound(float origin, uint8_t q, float step)
{
    return origin + (float)q * step;
}

/* Child slot k's box as the walk tests it. */
SR_HD void sr_wide_child_box(const sr_wide_node *n, uint32_t k, sr_vec3 *lo, sr_vec3 *hi)
{
    const float sx = sr_wide_step(n->exp[0]), sy = sr_wide_step(n->exp[1]), sz = sr_wide_step(n->exp[2]);
    *lo = sr_v3(sr_wide_bound(n->origin.x, n->qlo[0][k], sx), sr_wide_bound(n->origin.y, n->qlo[1][k], sy),
                sr_wide_bound(n->origin.z, n->qlo[2][k], sz));
    *hi = sr_v3(sr_wide_bound(n->origin.x, n->qhi[0][k], sx), sr_wide_bound(n->origin.y, n->qhi[1][k], sy),
                sr_wide_bound(n->origin.z, n->qhi[2][k], sz));
}

/* The walk's ray: origin, direction, their reciprocals and signs. */
typedef struct sr_wide_ray {
    sr_vec3 o, d, inv;
    bool nx, ny, nz;
} sr_wide_ray;

SR_HD sr_wide_ray sr_wide_ray_of(sr_vec3 o, sr_vec3 d)
{
    sr_wide_ray r;
    r.o = o;
    r.d = d;
    r.inv = sr_isect_inv_dir(d);
    r.nx = r.inv.x < 0.0f; r.ny = r.inv.y < 0.0f; r.nz = r.inv.z < 0.0f;
    return r;
}

/* Closest hit into *h (any: stop at the first hit, shadow rays) over the wide tree, planes
 * aside. Each node's eight boxes are tested, its leaves' prims at once, and the interior
 * children (and instances' proxies) hit are pushed farthest first, each with its entry
 * distance: a popped entry beyond the closest hit so far is dropped. True when a hit was
 * taken. */
SR_HD bool sr_wide_walk(const sr_scene_view *s, sr_vec3 wo, sr_vec3 wd, float tmin, sr_hit *h, bool any)
{
    const sr_wide_node *nodes = s->wide_nodes;
    const sr_prim *prims = s->prims;
    const sr_wide_ray world = sr_wide_ray_of(wo, wd);
    sr_wide_ray r = world;
    uint32_t shift = 0;
    uint32_t stack_id[SR_WIDE_STACK];
    float stack_t[SR_WIDE_STACK];
    uint32_t sp = 0;
    bool found = false;
    stack_id[sp] = 0;
    stack_t[sp] = tmin;
    sp++;
    while (sp > 0) {
        sp--;
        const uint32_t e = stack_id[sp];
        const float te = stack_t[sp];
        if (e == SR_WIDE_LEAVE) { r = world; shift = 0; continue; }
        if (te > h->t) continue;
        if (!SR_NO_INSTANCES && (e & SR_WIDE_INSTANCE)) {
            const sr_instance *in = &s->instances[prims[e & ~SR_WIDE_INSTANCE].material];
            if (sp + 2u > SR_WIDE_STACK) continue;
            stack_id[sp] = SR_WIDE_LEAVE; stack_t[sp] = -SR_INF; sp++;
            stack_id[sp] = in->wide_root; stack_t[sp] = te; sp++;
            r = sr_wide_ray_of(sr_xf_point(in->to_object, wo), sr_xf_dir(in->to_object, wd));
            shift = in->id_shift;
            continue;
        }
        const sr_wide_node *n = &nodes[e];
        uint32_t near_id[8];
        float near_t[8];
        uint32_t m = 0;
        SR_ISECT_VISIT(e);
        for (uint32_t k = 0; k < 8u; k++) {
            const uint32_t meta = n->meta[k], interior = (n->imask >> k) & 1u;
            if (!interior && meta == 0) continue;
            sr_vec3 lo, hi;
            float tc;
            SR_ISECT_COUNT(box_tests, 1u);
            sr_wide_child_box(n, k, &lo, &hi);
            if (!sr_isect_slab(r.o, r.inv, r.nx, r.ny, r.nz, lo, hi, tmin, h->t, &tc)) continue;
            if (interior) {
                near_id[m] = n->child_base + meta;
                near_t[m] = tc;
                m++;
                continue;
            }
            const uint32_t first = n->prim_base + (meta & 31u);
            SR_ISECT_COUNT(prim_tests, meta >> 5);
            for (uint32_t j = first, end = first + (meta >> 5); j < end; j++) {
                const uint32_t i = s->wide_prims[j];
                if (!SR_NO_INSTANCES && s->instance_count && prims[i].kind == SR_PRIM_INSTANCE) {
                    near_id[m] = i | SR_WIDE_INSTANCE;   /* a proxy is alone in its slot */
                    near_t[m] = tc;
                    m++;
                    continue;
                }
                if (sr_isect_try(s, &prims[i], i, shift, r.o, r.d, tmin, h)) {
                    found = true;
                    if (any) return true;
                }
            }
        }
        /* farthest first, so that the nearest is popped next (ties keep slot order) */
        for (uint32_t a = 1; a < m; a++)
            for (uint32_t b = a; b > 0 && near_t[b - 1] < near_t[b]; b--) {
                const float tt = near_t[b]; near_t[b] = near_t[b - 1]; near_t[b - 1] = tt;
                const uint32_t ti = near_id[b]; near_id[b] = near_id[b - 1]; near_id[b - 1] = ti;
            }
        for (uint32_t a = 0; a < m && sp < SR_WIDE_STACK; a++) {
            stack_id[sp] = near_id[a];
            stack_t[sp] = near_t[a];
            sp++;
        }
    }
    return found;
}

#endif
