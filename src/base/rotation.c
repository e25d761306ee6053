/* rotation.c: turns about X, then Y, then Z in degrees (rotation.h). */
#include "rotation.h"

#include <math.h>

/* sin and cos of an angle in degrees, exact at multiples of 90 so that a quarter turn moves
 * (1, 0, 0) to exactly (0, 0, -1) and not to (-4.4e-8, 0, -1). */
static void sincos_deg(double deg, double *s, double *c)
{
    double r = fmod(deg, 360.0);
    if (r < 0.0) r += 360.0;
    if (r == 0.0)        { *s = 0.0;  *c = 1.0; }
    else if (r == 90.0)  { *s = 1.0;  *c = 0.0; }
    else if (r == 180.0) { *s = 0.0;  *c = -1.0; }
    else if (r == 270.0) { *s = -1.0; *c = 0.0; }
    else {
        double rad = r * (3.14159265358979323846 / 180.0);
        *s = sin(rad);
        *c = cos(rad);
    }
}

sr_rotation sr_rotation_deg(sr_vec3 deg)
{
    sr_rotation r;
    sincos_deg(deg.x, &r.sx, &r.cx);
    sincos_deg(deg.y, &r.sy, &r.cy);
    sincos_deg(deg.z, &r.sz, &r.cz);
    return r;
}

void sr_rotation_apply(const sr_rotation *r, double *px, double *py, double *pz)
{
    double x = *px, y = *py, z = *pz, a, b;
    a = y * r->cx - z * r->sx; b = y * r->sx + z * r->cx; y = a; z = b;   /* X */
    a = x * r->cy + z * r->sy; b = -x * r->sy + z * r->cy; x = a; z = b;  /* Y */
    a = x * r->cz - y * r->sz; b = x * r->sz + y * r->cz; x = a; y = b;   /* Z */
    *px = x; *py = y; *pz = z;
}

void sr_rotation_columns(const sr_rotation *r, sr_vec3 cols[3])
{
    for (int k = 0; k < 3; k++) {
        double x = k == 0, y = k == 1, z = k == 2;
        sr_rotation_apply(r, &x, &y, &z);
        cols[k] = sr_v3((float)x, (float)y, (float)z);
    }
}
