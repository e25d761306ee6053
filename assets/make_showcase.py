#!/usr/bin/env python3
"""Write the showcase's model and textures into assets/showcase/:

    vase.obj, vase.mtl   a lathed vase (smooth vertex normals from the profile's tangent, UVs
                         around and along it) in two materials: a patterned glaze (map_Kd) and
                         a shiny rim
    glaze.png            the glaze's colour map (128x64): bands and waves, sRGB
    tiles.png            a floor tile map (256x256): 8 x 8 tiles with grout, sRGB

Standard library only (PNG through zlib), deterministic: running it again reproduces the files
byte for byte.

    python3 assets/make_showcase.py
"""
import math
import os
import struct
import zlib

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "showcase")

# The vase's profile: (height, radius) from the foot to the lip, in metres.
PROFILE = [(0.00, 0.16), (0.02, 0.18), (0.06, 0.20), (0.14, 0.27), (0.24, 0.31), (0.34, 0.30),
           (0.44, 0.25), (0.52, 0.18), (0.58, 0.13), (0.64, 0.12), (0.70, 0.14), (0.74, 0.17),
           (0.76, 0.175)]
RIM_FROM = 10          # profile segments from this one up are the rim's material
SEGMENTS = 48          # around the axis


def write_png(path, w, h, pixel):
    raw = bytearray()
    for y in range(h):
        raw.append(0)
        for x in range(w):
            raw.extend(pixel(x, y))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(bytes(raw), 9)))
        f.write(chunk(b"IEND", b""))


def glaze(x, y):
    u, v = x / 128.0, y / 64.0
    wave = 0.5 + 0.5 * math.sin(2 * math.pi * (6 * u + 2 * math.sin(2 * math.pi * v)))
    band = int(v * 8) % 2
    if band:
        return (int(30 + 40 * wave), int(70 + 60 * wave), int(140 + 80 * wave))
    return (int(220 - 30 * wave), int(200 - 40 * wave), int(150 - 50 * wave))


def tiles(x, y):
    gx, gy = x % 32, y % 32
    if gx < 2 or gy < 2:
        return (90, 88, 84)
    dark = ((x // 32) + (y // 32)) % 2
    shade = 6 * (((gx * 7 + gy * 13) % 5) - 2)
    return (150 + shade, 120 + shade, 95 + shade) if dark else (205 + shade, 195 + shade, 180 + shade)


def write_vase():
    # profile normals: perpendicular to the central difference of the profile (outwards)
    normals = []
    for i, (h, r) in enumerate(PROFILE):
        h0, r0 = PROFILE[max(i - 1, 0)]
        h1, r1 = PROFILE[min(i + 1, len(PROFILE) - 1)]
        dh, dr = h1 - h0, r1 - r0
        length = math.hypot(dh, dr)
        normals.append((dh / length, -dr / length))   # (radial, vertical)
    lines = ["# made by assets/make_showcase.py", "mtllib vase.mtl"]
    cols = SEGMENTS + 1
    for i, (h, r) in enumerate(PROFILE):
        nr, ny = normals[i]
        for s in range(cols):
            a = 2 * math.pi * (s % SEGMENTS) / SEGMENTS
            lines.append("v %.6f %.6f %.6f" % (r * math.cos(a), h, -r * math.sin(a)))
            lines.append("vn %.6f %.6f %.6f" % (nr * math.cos(a), ny, -nr * math.sin(a)))
            lines.append("vt %.6f %.6f" % (s / SEGMENTS, i / (len(PROFILE) - 1)))
    for material, rows in (("glaze", range(0, RIM_FROM)), ("rim", range(RIM_FROM, len(PROFILE) - 1))):
        lines.append("usemtl " + material)
        for i in rows:
            for s in range(SEGMENTS):
                a, b = i * cols + s + 1, i * cols + s + 2
                c, d = a + cols, b + cols
                lines.append("f %d/%d/%d %d/%d/%d %d/%d/%d" % (a, a, a, b, b, b, d, d, d))
                lines.append("f %d/%d/%d %d/%d/%d %d/%d/%d" % (a, a, a, d, d, d, c, c, c))
    with open(os.path.join(OUT, "vase.obj"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(OUT, "vase.mtl"), "w") as f:
        f.write("# made by assets/make_showcase.py\n"
                "newmtl glaze\nKd 1 1 1\nNs 400\nmap_Kd glaze.png\n\n"
                "newmtl rim\nKd 0.75 0.55 0.25\nNs 900\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    write_png(os.path.join(OUT, "glaze.png"), 128, 64, glaze)
    write_png(os.path.join(OUT, "tiles.png"), 256, 256, tiles)
    write_vase()


if __name__ == "__main__":
    main()
