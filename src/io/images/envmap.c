/* envmap.c: the environment map's sampling distribution, built once on the host in double. */
#include "envmap.h"

#include <math.h>
#include <stdlib.h>

uint64_t sr_env_build_bytes(uint32_t w, uint32_t h)
{
    return ((uint64_t)h + 1u + (uint64_t)h * (w + 1u) + (uint64_t)w * h) * sizeof(float) + (uint64_t)w * h * sizeof(double);
}

float sr_env_max_texel(const sr_texture *t, const float *texels)
{
    const float *px = texels + 3u * (size_t)t->offset;
    float best = 0.0f;
    for (size_t k = 0; k < 3u * (size_t)t->width * t->height; k++)
        if (px[k] > best) best = px[k];
    return best;
}

sr_status sr_env_build(const sr_texture *t, const float *texels, float **marginal, float **conditional, float **pdf,
                       sr_error *err)
{
    const uint32_t w = t->width, h = t->height;
    float *m = malloc(((size_t)h + 1u) * sizeof *m);
    float *c = malloc((size_t)h * (w + 1u) * sizeof *c);
    float *p = malloc((size_t)w * h * sizeof *p);
    double *wt = malloc((size_t)w * h * sizeof *wt);
    if (!m || !c || !p || !wt) {
        free(m); free(c); free(p); free(wt);
        return sr_fail(err, SR_ERR_RUNTIME, "out of memory for the environment map's distribution (%ux%u)", w, h);
    }
    double total = 0.0;
    double *rows = malloc((size_t)h * sizeof *rows);
    if (!rows) {
        free(m); free(c); free(p); free(wt);
        return sr_fail(err, SR_ERR_RUNTIME, "out of memory for the environment map's distribution (%ux%u)", w, h);
    }
    for (uint32_t j = 0; j < h; j++) {
        const double sin_theta = sin(3.14159265358979323846 * (j + 0.5) / h);
        double row = 0.0;
        for (uint32_t i = 0; i < w; i++) {
            const float *px = texels + 3u * ((size_t)t->offset + (size_t)j * w + i);
            double lum = 0.2126 * px[0] + 0.7152 * px[1] + 0.0722 * px[2];
            if (!(lum > 0.0) || !isfinite(lum)) lum = 0.0;
            wt[(size_t)j * w + i] = lum * sin_theta;
            row += lum * sin_theta;
        }
        rows[j] = row;
        total += row;
    }
    double acc = 0.0;
    m[0] = 0.0f;
    for (uint32_t j = 0; j < h; j++) {
        acc += rows[j];
        m[j + 1u] = total > 0.0 ? (float)(acc / total) : (float)(j + 1u) / (float)h;
        float *cr = c + (size_t)j * (w + 1u);
        double racc = 0.0;
        cr[0] = 0.0f;
        for (uint32_t i = 0; i < w; i++) {
            racc += wt[(size_t)j * w + i];
            cr[i + 1u] = rows[j] > 0.0 ? (float)(racc / rows[j]) : (float)(i + 1u) / (float)w;
            p[(size_t)j * w + i] = total > 0.0 ? (float)(wt[(size_t)j * w + i] * ((double)w * h) / total) : 0.0f;
        }
        cr[w] = 1.0f;
    }
    m[h] = 1.0f;
    free(rows);
    free(wt);
    *marginal = m;
    *conditional = c;
    *pdf = p;
    return SR_OK;
}
