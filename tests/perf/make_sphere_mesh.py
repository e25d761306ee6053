#!/usr/bin/env python3
"""Write the displaced-sphere benchmark mesh as OBJ, binary PLY and GLB, and scenes that load it.

The mesh of the time-to-first-pixel measurement (docs/performance.md): a latitude-longitude grid of
N x N quads, two triangles each, on the sphere r = 1 + 0.1 sin(8 theta) sin(8 phi). Standard library
only, deterministic: the same N gives the same bytes.

    python3 tests/perf/make_sphere_mesh.py OUT_DIR            # 20k, 1m and 4m
    python3 tests/perf/make_sphere_mesh.py OUT_DIR 1m         # only the 1,002,528-triangle one
    python3 tests/perf/make_sphere_mesh.py OUT_DIR n=50       # any N

Sizes: 20k is N = 100 (20,000 triangles), 1m is N = 708 (1,002,528), 4m is N = 1416 (4,010,112).
The triangles touching the poles include N zero-area ones at each pole (two corners at the pole),
which the renderer skips. For each size it writes OUT_DIR/sphere-SIZE.obj, .ply (binary little
endian) and .glb, and OUT_DIR/sphere-SIZE-obj.json, -ply.json and -glb.json, scenes that show the
mesh lit by a sky (`stencilray render OUT_DIR/sphere-1m-ply.json --depth 1`).
"""
import array
import json
import math
import os
import struct
import sys

SIZES = {"20k": 100, "1m": 708, "4m": 1416}


def grid(n):
    """Positions ((n + 1) rows of n, row 0 at the north pole) and triangles (3 indices each)."""
    pos = array.array("f")
    for i in range(n + 1):
        theta = math.pi * i / n
        st, ct = math.sin(theta), math.cos(theta)
        s8t = math.sin(8.0 * theta)
        for j in range(n):
            phi = 2.0 * math.pi * j / n
            r = 1.0 + 0.1 * s8t * math.sin(8.0 * phi)
            pos.extend((r * st * math.cos(phi), r * ct, r * st * math.sin(phi)))
    idx = array.array("I")
    for i in range(n):
        for j in range(n):
            a = i * n + j
            b = i * n + (j + 1) % n
            c = a + n
            d = b + n
            # counter-clockwise seen from outside
            idx.extend((a, b, d, a, d, c))
    return pos, idx


def write_obj(path, pos, idx):
    with open(path, "w", newline="\n") as f:
        f.write("# displaced sphere: r = 1 + 0.1 sin 8theta sin 8phi (tests/perf/make_sphere_mesh.py)\n")
        f.write("".join("v %.6f %.6f %.6f\n" % (pos[k], pos[k + 1], pos[k + 2]) for k in range(0, len(pos), 3)))
        f.write("".join("f %d %d %d\n" % (idx[k] + 1, idx[k + 1] + 1, idx[k + 2] + 1) for k in range(0, len(idx), 3)))


def little(a):
    if sys.byteorder != "little":
        a = array.array(a.typecode, a)
        a.byteswap()
    return a.tobytes()


def write_ply(path, pos, idx):
    nv, nf = len(pos) // 3, len(idx) // 3
    head = ("ply\nformat binary_little_endian 1.0\ncomment displaced sphere (tests/perf/make_sphere_mesh.py)\n"
            "element vertex %d\nproperty float x\nproperty float y\nproperty float z\n"
            "element face %d\nproperty list uchar int vertex_indices\nend_header\n" % (nv, nf))
    faces = bytearray(13 * nf)
    ib = little(idx)
    for k in range(nf):
        faces[13 * k] = 3
        faces[13 * k + 1:13 * k + 13] = ib[12 * k:12 * k + 12]
    with open(path, "wb") as f:
        f.write(head.encode("ascii"))
        f.write(little(pos))
        f.write(bytes(faces))


def write_glb(path, pos, idx):
    nv, ni = len(pos) // 3, len(idx)
    pb, ib = little(pos), little(idx)
    lo = [min(pos[k::3]) for k in range(3)]
    hi = [max(pos[k::3]) for k in range(3)]
    doc = {
        "asset": {"version": "2.0", "generator": "stencilray tests/perf/make_sphere_mesh.py"},
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [{"byteLength": len(pb) + len(ib)}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": len(pb), "target": 34962},
                        {"buffer": 0, "byteOffset": len(pb), "byteLength": len(ib), "target": 34963}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": nv, "type": "VEC3",
                       "min": [float("%.9g" % v) for v in lo], "max": [float("%.9g" % v) for v in hi]},
                      {"bufferView": 1, "componentType": 5125, "count": ni, "type": "SCALAR"}],
    }
    js = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    js += b" " * (-len(js) % 4)
    binary = pb + ib   # both multiples of 4 bytes
    total = 12 + 8 + len(js) + 8 + len(binary)
    with open(path, "wb") as f:
        f.write(struct.pack("<III", 0x46546C67, 2, total))
        f.write(struct.pack("<II", len(js), 0x4E4F534A) + js)
        f.write(struct.pack("<II", len(binary), 0x004E4942))
        f.write(binary)


def write_scene(path, mesh_name):
    scene = {
        "camera": {"position": [0, 0.6, 3.4], "look_at": [0, 0, 0], "up": [0, 1, 0], "fov": 45},
        "image": {"width": 800, "height": 600, "spp": 1, "max_depth": 1},
        "sky": {"zenith": [0.35, 0.5, 0.9], "horizon": [0.9, 0.9, 0.95], "ground": [0.3, 0.28, 0.25]},
        "materials": {"clay": {"type": "diffuse", "albedo": [0.8, 0.55, 0.4]}},
        "objects": [{"type": "mesh", "file": mesh_name, "material": "clay"}],
        "lights": [{"type": "point", "position": [3, 5, 4], "color": [1, 1, 1], "intensity": 60}],
    }
    with open(path, "w", newline="\n") as f:
        json.dump(scene, f, indent=2)
        f.write("\n")


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    out = argv[1]
    wanted = argv[2:] or list(SIZES)
    os.makedirs(out, exist_ok=True)
    for w in wanted:
        if w in SIZES:
            name, n = w, SIZES[w]
        elif w.startswith("n=") and w[2:].isdigit() and int(w[2:]) >= 3:
            n = int(w[2:])
            name = "n%d" % n
        else:
            print("make_sphere_mesh.py: unknown size %r; expected 20k, 1m, 4m or n=N (N >= 3)" % w, file=sys.stderr)
            return 2
        pos, idx = grid(n)
        base = os.path.join(out, "sphere-" + name)
        write_obj(base + ".obj", pos, idx)
        write_ply(base + ".ply", pos, idx)
        write_glb(base + ".glb", pos, idx)
        for ext in ("obj", "ply", "glb"):
            write_scene("%s-%s.json" % (base, ext), "sphere-%s.%s" % (name, ext))
        print("%s: %d triangles (N = %d), %d vertices" % (base, len(idx) // 3, n, len(pos) // 3))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
