/* mesh_tangents.c: per-vertex tangents for normal maps (mesh_tangents.h).
 *
 * Generated here rather than by a library: Debian has no MikkTSpace package, and assimp's
 * aiProcess_CalcTangentSpace expects a mesh whose faces share no vertex (it writes each face's
 * tangent over the vertex's, so an indexed glTF mesh gets the last face's tangent at every
 * shared vertex, not a blend). What is built follows MikkTSpace's convention: at each vertex
 * the faces' dP/du, projected into the plane of the vertex normal, summed with the corner's
 * angle as weight, apart for each handedness (a mirrored UV seam keeps two tangents), then
 * made unit length; the handedness w says whether the bitangent cross(n, t) runs along +v
 * (assimp's UVs, v up: up in the image) or against it. */
#include "mesh_tangents.h"

#include <assimp/mesh.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct dv3 { double x, y, z; } dv3;

static dv3 d3(struct aiVector3D v) { return (dv3){ v.x, v.y, v.z }; }
static dv3 dsub(dv3 a, dv3 b) { return (dv3){ a.x - b.x, a.y - b.y, a.z - b.z }; }
static dv3 dadd(dv3 a, dv3 b) { return (dv3){ a.x + b.x, a.y + b.y, a.z + b.z }; }
static dv3 dscale(dv3 a, double k) { return (dv3){ a.x * k, a.y * k, a.z * k }; }
static double ddot(dv3 a, dv3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static dv3 dcross(dv3 a, dv3 b) { return (dv3){ a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x }; }
static double dlen(dv3 a) { return sqrt(ddot(a, a)); }

/* Unit t and handedness w into slot (vertex, side); left empty (w = 0) when t is not usable. */
static void put(sr_vertex_tangents *vt, unsigned vertex, unsigned side, dv3 t, double w)
{
    const double len = dlen(t);
    if (!(len > 0.0) || !isfinite(len)) return;
    float *o = vt->v + ((size_t)vertex * 2u + side) * 4u;
    o[0] = (float)(t.x / len);
    o[1] = (float)(t.y / len);
    o[2] = (float)(t.z / len);
    o[3] = w < 0.0 ? -1.0f : 1.0f;
}

/* The angle at corner p of the triangle (p, q, r). */
static double corner_angle(dv3 p, dv3 q, dv3 r)
{
    const dv3 a = dsub(q, p), b = dsub(r, p);
    const double la = dlen(a), lb = dlen(b);
    if (!(la > 0.0) || !(lb > 0.0)) return 0.0;
    double c = ddot(a, b) / (la * lb);
    c = c < -1.0 ? -1.0 : c > 1.0 ? 1.0 : c;
    return acos(c);
}

static const unsigned *face_indices(const struct aiMesh *mesh, unsigned f)
{
    const struct aiFace *face = &mesh->mFaces[f];
    if (face->mNumIndices != 3) return NULL;
    const unsigned *ix = face->mIndices;
    const unsigned n = mesh->mNumVertices;
    return ix[0] < n && ix[1] < n && ix[2] < n ? ix : NULL;
}

static bool generate(const struct aiMesh *mesh, sr_vertex_tangents *vt)
{
    const unsigned nv = mesh->mNumVertices;
    dv3 *acc = calloc((size_t)nv * 2u, sizeof *acc);
    if (!acc) return false;
    const struct aiVector3D *uv = mesh->mTextureCoords[0], *nrm = mesh->mNormals;
    for (unsigned f = 0; f < mesh->mNumFaces; f++) {
        vt->side[f] = 2;   /* no tangent */
        const unsigned *ix = face_indices(mesh, f);
        if (!ix) continue;
        const dv3 p[3] = { d3(mesh->mVertices[ix[0]]), d3(mesh->mVertices[ix[1]]), d3(mesh->mVertices[ix[2]]) };
        const dv3 e1 = dsub(p[1], p[0]), e2 = dsub(p[2], p[0]);
        const double du1 = (double)uv[ix[1]].x - uv[ix[0]].x, dv1 = (double)uv[ix[1]].y - uv[ix[0]].y;
        const double du2 = (double)uv[ix[2]].x - uv[ix[0]].x, dv2 = (double)uv[ix[2]].y - uv[ix[0]].y;
        const double det = du1 * dv2 - du2 * dv1;
        if (!(det != 0.0) || !isfinite(det)) continue;
        const dv3 dpdu = dscale(dsub(dscale(e1, dv2), dscale(e2, dv1)), 1.0 / det);
        const dv3 dpdv = dscale(dsub(dscale(e2, du1), dscale(e1, du2)), 1.0 / det);
        dv3 nf = dcross(e1, e2);
        if (nrm) nf = dadd(dadd(d3(nrm[ix[0]]), d3(nrm[ix[1]])), d3(nrm[ix[2]]));
        const unsigned side = ddot(dcross(nf, dpdu), dpdv) < 0.0 ? 1u : 0u;
        vt->side[f] = (unsigned char)side;
        for (int k = 0; k < 3; k++) {
            dv3 n = nrm ? d3(nrm[ix[k]]) : nf;
            const double nl = dlen(n);
            dv3 t = dpdu;
            if (nl > 0.0 && isfinite(nl)) {
                n = dscale(n, 1.0 / nl);
                t = dsub(t, dscale(n, ddot(n, t)));
            }
            const double tl = dlen(t);
            if (!(tl > 0.0) || !isfinite(tl)) continue;
            const double w = corner_angle(p[k], p[(k + 1) % 3], p[(k + 2) % 3]);
            dv3 *a = &acc[(size_t)ix[k] * 2u + side];
            *a = dadd(*a, dscale(t, w / tl));
        }
    }
    for (unsigned v = 0; v < nv; v++)
        for (unsigned side = 0; side < 2; side++) put(vt, v, side, acc[(size_t)v * 2u + side], side ? -1.0 : 1.0);
    free(acc);
    return true;
}

bool sr_vertex_tangents_make(const struct aiMesh *mesh, sr_vertex_tangents *out)
{
    memset(out, 0, sizeof *out);
    if (!mesh || !mesh->mVertices || !mesh->mFaces || !mesh->mNumVertices) return true;
    const bool file = mesh->mTangents && mesh->mBitangents && mesh->mNormals;
    if (!file && !mesh->mTextureCoords[0]) return true;
    out->vertex_count = mesh->mNumVertices;
    out->face_count = mesh->mNumFaces;
    out->v = calloc((size_t)mesh->mNumVertices * 8u, sizeof *out->v);
    out->side = calloc(mesh->mNumFaces + 1u, 1);
    if (!out->v || !out->side) {
        sr_vertex_tangents_free(out);
        return false;
    }
    if (!file) {
        if (generate(mesh, out)) return true;
        sr_vertex_tangents_free(out);
        return false;
    }
    out->from_file = 1;   /* w from the bitangent assimp made of it: cross(N, T) * w */
    for (unsigned v = 0; v < mesh->mNumVertices; v++) {
        const dv3 t = d3(mesh->mTangents[v]);
        const double w = ddot(d3(mesh->mBitangents[v]), dcross(d3(mesh->mNormals[v]), t));
        if (!isfinite(w)) continue;
        put(out, v, 0, t, w);
    }
    return true;
}

bool sr_vertex_tangent(const sr_vertex_tangents *vt, unsigned f, unsigned v, float t[3], float *w)
{
    if (!vt->v || f >= vt->face_count || v >= vt->vertex_count || vt->side[f] > 1) return false;
    const float *o = vt->v + ((size_t)v * 2u + vt->side[f]) * 4u;
    if (o[3] == 0.0f) return false;
    t[0] = o[0];
    t[1] = o[1];
    t[2] = o[2];
    *w = o[3];
    return true;
}

void sr_vertex_tangents_free(sr_vertex_tangents *vt)
{
    free(vt->v);
    free(vt->side);
    memset(vt, 0, sizeof *vt);
}
