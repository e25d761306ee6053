#!/usr/bin/env python3
"""Write scenes/sphere_field.json: a few hundred small random spheres (diffuse, rough metal,
glass) around three big ones (glass, diffuse, metal) on a large ground sphere under a sky
gradient, the final scene of "Ray Tracing in One Weekend", for the path integrator.

Deterministic: its own 32-bit generator (no dependence on Python's random module), fixed
decimals in the output, so running it again gives the same file byte for byte:

    python3 scenes/make_sphere_field.py > scenes/sphere_field.json
"""
import sys


class Rng:
    """xorshift32: tiny, and the same numbers on every Python."""

    def __init__(self, seed):
        self.s = seed & 0xFFFFFFFF or 1

    def next(self):
        s = self.s
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        self.s = s
        return (s >> 8) / float(1 << 24)   # [0, 1) with 24 bits

    def uniform(self, lo, hi):
        return lo + (hi - lo) * self.next()


def fmt(x):
    s = "%.3f" % x
    return "0.000" if s == "-0.000" else s


def vec(v):
    return "[" + ", ".join(fmt(c) for c in v) + "]"


def main():
    rng = Rng(20240605)
    big = [((0.0, 1.0, 0.0), "big_glass"), ((-4.0, 1.0, 0.0), "big_diffuse"), ((4.0, 1.0, 0.0), "big_metal")]

    # Palettes keep the material table short: the spheres pick from them.
    materials = []
    materials.append(('ground', '{"type": "diffuse", "albedo": [0.5, 0.5, 0.5]}'))
    materials.append(('big_glass', '{"type": "glass", "ior": 1.5}'))
    materials.append(('big_diffuse', '{"type": "diffuse", "albedo": [0.4, 0.2, 0.1]}'))
    materials.append(('big_metal', '{"type": "metal", "albedo": [0.7, 0.6, 0.5], "roughness": 0}'))
    materials.append(('glass', '{"type": "glass", "ior": 1.5}'))
    n_diffuse, n_metal = 24, 12
    for i in range(n_diffuse):   # albedo = product of two uniforms, as in the book
        a = [rng.next() * rng.next() for _ in range(3)]
        materials.append(("diffuse%02d" % i, '{"type": "diffuse", "albedo": %s}' % vec(a)))
    for i in range(n_metal):
        a = [rng.uniform(0.5, 1.0) for _ in range(3)]
        r = rng.uniform(0.0, 0.5)
        materials.append(("metal%02d" % i, '{"type": "metal", "albedo": %s, "roughness": %s}' % (vec(a), fmt(r))))

    objects = ['{"type": "sphere", "center": [0, -1000, 0], "radius": 1000, "material": "ground"}']
    for centre, mat in big:
        objects.append('{"type": "sphere", "center": %s, "radius": 1, "material": "%s"}' % (vec(centre), mat))
    small = 0
    for a in range(-11, 11):
        for b in range(-11, 11):
            choose = rng.next()
            centre = (a + 0.9 * rng.next(), 0.2, b + 0.9 * rng.next())
            # keep clear of the big spheres
            if any((centre[0] - c[0]) ** 2 + (centre[2] - c[2]) ** 2 < 1.2 ** 2 for c, _ in big):
                continue
            if choose < 0.8:
                mat = "diffuse%02d" % int(rng.next() * n_diffuse)
            elif choose < 0.95:
                mat = "metal%02d" % int(rng.next() * n_metal)
            else:
                mat = "glass"
            objects.append('{"type": "sphere", "center": %s, "radius": 0.2, "material": "%s"}' % (vec(centre), mat))
            small += 1

    out = sys.stdout
    out.write("{\n")
    out.write('  "integrator": "path",\n')
    out.write('  "camera": {"position": [13, 2, 3], "look_at": [0, 0, 0], "up": [0, 1, 0], "fov": 20,\n')
    out.write('             "aperture": 0.1, "focus_distance": 10},\n')
    out.write('  "image": {"width": 640, "height": 360, "spp": 64, "max_depth": 8},\n')
    out.write('  "sky": {"zenith": [0.5, 0.7, 1.0], "horizon": [1.0, 1.0, 1.0]},\n')
    out.write('  "materials": {\n')
    out.write(",\n".join('    "%s": %s' % (name, body) for name, body in materials))
    out.write("\n  },\n")
    out.write('  "objects": [\n')
    out.write(",\n".join("    " + o for o in objects))
    out.write("\n  ]\n}\n")
    sys.stderr.write("sphere_field: %d small spheres, %d objects, %d materials\n" % (small, len(objects), len(materials)))


if __name__ == "__main__":
    main()
