/* affine.h: the determinant of an affine transform's 3x3 part (row-major 3x4, in double),
 * which the scene's placements, the mesh loader and the instances test for singular and
 * mirroring transforms. */
#ifndef SR_AFFINE_H
#define SR_AFFINE_H

static inline double sr_affine_det(const double m[3][4])
{
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

#endif
