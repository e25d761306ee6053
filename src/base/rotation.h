/* rotation.h: a turn about X, then Y, then Z (right-handed), by angles in degrees, worked in
 * double: meshes turn their vertices and normals by it, the environment map its directions. */
#ifndef SR_ROTATION_H
#define SR_ROTATION_H

#include "../../kernels/core/types.h"

typedef struct sr_rotation {
    double sx, cx, sy, cy, sz, cz;   /* sine and cosine of each angle */
} sr_rotation;

/* The rotation by deg (X, Y, Z in degrees); exact at multiples of 90 degrees. */
sr_rotation sr_rotation_deg(sr_vec3 deg);

/* Turn (*x, *y, *z) about X, then Y, then Z. */
void sr_rotation_apply(const sr_rotation *r, double *x, double *y, double *z);

/* The rotation's matrix as three columns (the turned axes), rounded to float. */
void sr_rotation_columns(const sr_rotation *r, sr_vec3 cols[3]);

#endif
