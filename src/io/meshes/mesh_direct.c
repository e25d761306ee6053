/* mesh_direct.c: the data of a binary PLY or GLB read into arrays (see mesh_direct.h): the
 * vertices in one read where the file's layout is the array's, else record by record; the
 * triangles through a buffer of whole records, each index checked against the vertices. */
#include "mesh_direct.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Bytes read at a time: large enough that a read costs nothing, small enough to report
 * progress often on a slow disk. */
#define SR_DIRECT_CHUNK (4u << 20)

int sr_mesh_direct_open(const char *path, const char *ext, uint64_t file_size, sr_direct_mesh *m, sr_error *err)
{
    memset(m, 0, sizeof *m);
    m->path = path;
    m->file_size = file_size;
    const int ply = !strcmp(ext, ".ply"), glb = !strcmp(ext, ".glb");
    if (!ply && !glb) return 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        sr_fail(err, SR_ERR_INPUT, "cannot read mesh file %s: %s", path, strerror(errno));
        return -1;
    }
    m->kind = ply ? SR_DIRECT_PLY : SR_DIRECT_GLB;
    const int r = ply ? sr_ply_direct_open(f, m, err) : sr_glb_direct_open(f, m, err);
    fclose(f);
    return r;
}

static int host_big(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 0;
}

/* An unsigned or signed integer of `size` bytes; signed values below 0 become -1. */
static int64_t get_int(const unsigned char *b, unsigned size, int big, int is_signed)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < size; i++) v |= (uint64_t)b[big ? i : size - 1 - i] << (8 * (size - 1 - i));
    if (is_signed && (v >> (8 * size - 1)) & 1u) return -1;
    return (int64_t)v;
}

static float get_float(const unsigned char *b, int swap)
{
    unsigned char t[4] = { b[0], b[1], b[2], b[3] };
    if (swap) {
        t[0] = b[3]; t[1] = b[2]; t[2] = b[1]; t[3] = b[0];
    }
    float v;
    memcpy(&v, t, 4);
    return v;
}

/* n bytes at `at` of f into buf, or a message saying where the file ends. */
static sr_status read_at(FILE *f, const sr_direct_mesh *m, uint64_t at, void *buf, size_t n, const char *what,
                         sr_error *err)
{
    if (fseeko(f, (off_t)at, SEEK_SET) != 0 || fread(buf, 1, n, f) != n) {
        if (ferror(f))
            return sr_fail(err, SR_ERR_INPUT, "cannot read mesh file %s: %s at byte %llu", m->path, strerror(errno),
                           (unsigned long long)at);
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: it ends inside its %s (bytes %llu to %llu); "
                       "the file is cut short", m->path, what, (unsigned long long)at, (unsigned long long)(at + n));
    }
    return SR_OK;
}

/* Vertices (positions or normals): 3 floats at off[] of `stride`-byte records from `at`. */
static sr_status read_vec3(FILE *f, const sr_direct_mesh *m, uint64_t at, unsigned stride, const unsigned off[3],
                           float *out, const char *what, sr_error *err)
{
    const int swap = m->big_endian != host_big();
    const uint64_t n = m->vertex_count;
    if (!swap && stride == 12 && off[0] == 0 && off[1] == 4 && off[2] == 8)   /* the array's layout: one read */
        return read_at(f, m, at, out, (size_t)(n * 12u), what, err);
    unsigned char *buf = malloc(SR_DIRECT_CHUNK);
    if (!buf) return sr_fail(err, SR_ERR_RUNTIME, "out of memory reading mesh file %s", m->path);
    const uint64_t per = SR_DIRECT_CHUNK / stride;
    sr_status st = SR_OK;
    for (uint64_t v = 0; v < n && !st; v += per) {
        const uint64_t k = n - v < per ? n - v : per;
        st = read_at(f, m, at + v * stride, buf, (size_t)(k * stride), what, err);
        for (uint64_t i = 0; i < k && !st; i++)
            for (int c = 0; c < 3; c++) out[3 * (v + i) + c] = get_float(buf + i * stride + off[c], swap);
    }
    free(buf);
    return st;
}

/* The triangles: whole records through a buffer, each index checked against the vertices. */
static sr_status read_triangles(FILE *f, const sr_direct_mesh *m, uint32_t *tri, int *polygons,
                                sr_mesh_progress_fn progress, void *ctx, uint64_t total, sr_error *err)
{
    const int big = m->big_endian;
    const unsigned rec = m->count_size + 3u * m->index_size;
    unsigned char *buf = malloc(SR_DIRECT_CHUNK);
    sr_status st = SR_OK;
    if (!buf) st = sr_fail(err, SR_ERR_RUNTIME, "out of memory reading mesh file %s", m->path);
    const uint64_t per = SR_DIRECT_CHUNK / rec;
    for (uint64_t t = 0; !st && t < m->tri_count; t += per) {
        if (progress && progress(ctx, (double)(m->vertex_count * m->pos_stride + t * rec) / (double)total)) {
            st = sr_fail(err, SR_INTERRUPTED, "interrupted while reading mesh file %s", m->path);
            break;
        }
        const uint64_t k = m->tri_count - t < per ? m->tri_count - t : per;
        const uint64_t at = m->tri_at + t * rec;
        /* a file cut short: say at which triangle it ends */
        if (at + k * rec > m->file_size) {
            const uint64_t whole = m->file_size > at ? (m->file_size - at) / rec : 0;
            st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: it ends at byte %llu, inside triangle %llu of "
                         "the %llu its header declares; the file is cut short", m->path,
                         (unsigned long long)m->file_size, (unsigned long long)(t + whole),
                         (unsigned long long)m->tri_count);
            break;
        }
        if ((st = read_at(f, m, at, buf, (size_t)(k * rec), "triangles", err))) break;
        for (uint64_t i = 0; i < k; i++) {
            const unsigned char *r = buf + i * rec;
            if (m->count_size) {
                const int64_t n = get_int(r, m->count_size, big, m->count_signed);
                if (n == 0) {
                    st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: PLY face %llu (byte %llu) has no vertex "
                                 "indices; expected 3 or more", m->path, (unsigned long long)(t + i),
                                 (unsigned long long)(at + i * rec));
                    break;
                }
                if (n != 3) {   /* a polygon (or worse): assimp's to triangulate and to judge */
                    *polygons = 1;
                    break;
                }
                r += m->count_size;
            }
            for (int c = 0; c < 3; c++) {
                const int64_t v = get_int(r + c * m->index_size, m->index_size, big, m->index_signed);
                if (v < 0 || (uint64_t)v >= m->vertex_count) {
                    st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: triangle %llu (byte %llu) names vertex "
                                 "%lld; expected 0 to %llu (the file has %llu vertices)", m->path,
                                 (unsigned long long)(t + i), (unsigned long long)(at + i * rec), (long long)v,
                                 (unsigned long long)m->vertex_count - 1u, (unsigned long long)m->vertex_count);
                    break;
                }
                tri[3 * (t + i) + c] = (uint32_t)v;
            }
            if (st) break;
        }
        if (*polygons) break;
    }
    free(buf);
    return st;
}

sr_status sr_mesh_direct_read(const sr_direct_mesh *m, float *pos, float *nrm, uint32_t *tri, int *polygons,
                              sr_mesh_progress_fn progress, void *ctx, sr_error *err)
{
    *polygons = 0;
    FILE *f = fopen(m->path, "rb");
    if (!f) return sr_fail(err, SR_ERR_INPUT, "cannot read mesh file %s: %s", m->path, strerror(errno));
    const unsigned rec = m->count_size + 3u * m->index_size;
    const uint64_t total = m->vertex_count * m->pos_stride + m->tri_count * rec + 1;
    if (progress && progress(ctx, 0.0)) {
        fclose(f);
        return sr_fail(err, SR_INTERRUPTED, "interrupted while reading mesh file %s", m->path);
    }
    sr_status st = read_vec3(f, m, m->pos_at, m->pos_stride, m->pos_off, pos, "vertex positions", err);
    if (!st && nrm) st = read_vec3(f, m, m->nrm_at, m->nrm_stride, m->nrm_off, nrm, "vertex normals", err);
    if (!st && !m->index_size) {   /* no indices (GLB): vertices 3t, 3t + 1, 3t + 2 */
        for (uint64_t i = 0; i < 3u * m->tri_count; i++) tri[i] = (uint32_t)i;
        goto done;
    }
    st = st ? st : read_triangles(f, m, tri, polygons, progress, ctx, total, err);
done:
    if (!st && !*polygons && progress && progress(ctx, 1.0))
        st = sr_fail(err, SR_INTERRUPTED, "interrupted while reading mesh file %s", m->path);
    fclose(f);
    return st;
}
