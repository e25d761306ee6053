#!/usr/bin/env python3
"""Write assets/sky.hdr: a 256x128 equirectangular sun-and-sky panorama in Radiance HDR.

Standard library only, deterministic (fixed parameters, no randomness), so running it again
reproduces the committed file byte for byte:

    python3 assets/make_sky_hdr.py            # writes assets/sky.hdr next to this script

The model is simple and analytic, not a physical sky: above the horizon a blue that deepens
towards the zenith and whitens towards the horizon and around the sun (a forward-scattering
glow), a small warm sun disk (radius 1.5 degrees, radiance 2000), and below the horizon a dim
warm-grey ground. Mapping (as stencilray reads it): the top row looks straight up (+y), the
centre column along -z, u grows towards +x. The sun stands 35 degrees high, a little right
of the centre column, so a default camera looking along -z sees it lighting the scene from
the front right.

Pixels are written as RGBE (Ward's shared-exponent format) in flat, uncompressed scanlines,
which every Radiance reader (stb_image included) accepts.
"""
import math
import os

W, H = 256, 128
SUN_ELEVATION = math.radians(35.0)
SUN_AZIMUTH = math.radians(25.0)      # from -z towards +x
SUN_RADIUS = math.radians(1.5)
SUN_RADIANCE = (2000.0, 1850.0, 1600.0)


def direction(u, v):
    """Unit direction of map coordinates (u, v), v = 0 at the top row."""
    theta, phi = math.pi * v, 2.0 * math.pi * (u - 0.5)
    return (math.sin(theta) * math.sin(phi), math.cos(theta), -math.sin(theta) * math.cos(phi))


SUN = (math.cos(SUN_ELEVATION) * math.sin(SUN_AZIMUTH), math.sin(SUN_ELEVATION),
       -math.cos(SUN_ELEVATION) * math.cos(SUN_AZIMUTH))


def radiance(d):
    cos_sun = max(-1.0, min(1.0, sum(a * b for a, b in zip(d, SUN))))
    angle = math.acos(cos_sun)
    if angle < SUN_RADIUS:
        return SUN_RADIANCE
    y = d[1]
    if y < 0.0:   # ground: warm grey, a little lighter near the horizon
        k = 0.25 + 0.15 * math.exp(8.0 * y)
        return (0.9 * k, 0.8 * k, 0.65 * k)
    zenith, horizon = (0.25, 0.45, 1.0), (0.95, 0.95, 1.0)
    t = 1.0 - math.pow(1.0 - y, 3.0)       # how far up: 0 at the horizon, 1 at the zenith
    glow = 2.5 * math.exp(-angle / 0.12) + 0.6 * math.exp(-angle / 0.6)
    return tuple(0.9 * (h * (1.0 - t) + z * t) + g * glow
                 for h, z, g in zip(horizon, zenith, (1.0, 0.9, 0.7)))


def rgbe(c):
    m = max(c)
    if m < 1e-32:
        return bytes((0, 0, 0, 0))
    mant, exp = math.frexp(m)               # m = mant * 2^exp, mant in [0.5, 1)
    scale = mant * 256.0 / m
    return bytes((int(c[0] * scale), int(c[1] * scale), int(c[2] * scale), exp + 128))


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sky.hdr")
    rows = []
    for j in range(H):
        row = bytearray()
        for i in range(W):
            row += rgbe(radiance(direction((i + 0.5) / W, (j + 0.5) / H)))
        rows.append(bytes(row))
    with open(out, "wb") as f:
        f.write(b"#?RADIANCE\n# made by assets/make_sky_hdr.py\nFORMAT=32-bit_rle_rgbe\n\n")
        f.write(("-Y %d +X %d\n" % (H, W)).encode())
        for row in rows:
            f.write(row)


if __name__ == "__main__":
    main()
