#!/usr/bin/env python3
"""make_sphere_mesh.py: the displaced sphere of the set-up measurements (issue #35, the OptiX
comparison): a lat-long grid of N x N quads, each two triangles, at radius
r = 1 + 0.1 sin 8θ sin 8φ, written as OBJ or binary little-endian PLY (by the output's
extension), with a scene JSON beside it that renders it.

    python3 tests/perf/make_sphere_mesh.py 708 /tmp/sphere1m.ply    # 1,002,528 triangles
    python3 tests/perf/make_sphere_mesh.py 100 /tmp/sphere20k.obj   #    20,000 triangles

N x N quads give 2 N^2 triangles (poles included as degenerate slivers), over (N+1)^2
vertices. Minimal on purpose: plain Python (a 4 M mesh takes some seconds)."""
import math
import struct
import sys


def vertices(n):
    for i in range(n + 1):
        th = math.pi * i / n
        for j in range(n + 1):
            ph = 2.0 * math.pi * j / n
            r = 1.0 + 0.1 * math.sin(8.0 * th) * math.sin(8.0 * ph)
            yield (r * math.sin(th) * math.cos(ph), r * math.cos(th), r * math.sin(th) * math.sin(ph))


def faces(n):
    w = n + 1
    for i in range(n):
        for j in range(n):
            a, b, c, d = i * w + j, (i + 1) * w + j, (i + 1) * w + j + 1, i * w + j + 1
            yield (a, b, c)
            yield (a, c, d)


def write_ply(path, n):
    nv, nf = (n + 1) ** 2, 2 * n * n
    vb = b"".join(struct.pack("<3f", *p) for p in vertices(n))
    fbytes = b"".join(struct.pack("<B3i", 3, *t) for t in faces(n))
    head = ("ply\nformat binary_little_endian 1.0\nelement vertex %d\nproperty float x\nproperty float y\n"
            "property float z\nelement face %d\nproperty list uchar int vertex_indices\nend_header\n" % (nv, nf))
    with open(path, "wb") as out:
        out.write(head.encode("ascii"))
        out.write(vb)
        out.write(fbytes)


def write_obj(path, n):
    with open(path, "w") as out:
        for p in vertices(n):
            out.write("v %.7g %.7g %.7g\n" % p)
        for a, b, c in faces(n):
            out.write("f %d %d %d\n" % (a + 1, b + 1, c + 1))


def main():
    if len(sys.argv) != 3 or not sys.argv[2].endswith((".obj", ".ply")):
        sys.exit("usage: make_sphere_mesh.py N OUT.obj|OUT.ply   (N x N quads, 2 N^2 triangles)")
    n, path = int(sys.argv[1]), sys.argv[2]
    if n < 2:
        sys.exit("make_sphere_mesh.py: N must be at least 2")
    (write_ply if path.endswith(".ply") else write_obj)(path, n)
    scene = path.rsplit(".", 1)[0] + ".json"
    name = path.rsplit("/", 1)[-1]
    with open(scene, "w") as out:
        out.write('{\n  "camera": {"position": [0, 0, 4], "look_at": [0, 0, 0], "up": [0, 1, 0], "fov": 40},\n'
                  '  "image": {"width": 1280, "height": 720, "spp": 1, "max_depth": 1},\n'
                  '  "materials": {"m": {"type": "diffuse", "albedo": [0.8, 0.8, 0.8]}},\n'
                  '  "objects": [{"type": "mesh", "file": "%s", "material": "m"}],\n'
                  '  "lights": [{"type": "point", "position": [3, 5, 5], "color": [1, 1, 1], "intensity": 60}]\n}\n'
                  % name)
    print("%s: %d triangles; scene %s" % (path, 2 * n * n, scene))


if __name__ == "__main__":
    main()
