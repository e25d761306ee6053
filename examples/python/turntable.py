#!/usr/bin/env python3
"""turntable.py: frames of a camera going once around a scene, through the stencilray module.

    python3 examples/python/turntable.py OUT_DIR [--scene scenes/default.json] [--frames 12]
                                         [--width 320] [--height 180] [--spp 8] [--device auto]

The camera keeps the scene camera's height, distance and target and turns about the vertical
axis through the target; frame i is OUT_DIR/turntable_000i.png. pip install ./python first
(docs/api.md, "Python")."""
import argparse
import math
import os
import sys

import stencilray as sr


def orbit(camera, frames):
    """Camera dicts around camera["look_at"], starting at camera["position"]."""
    (px, py, pz), (lx, ly, lz) = camera["position"], camera["look_at"]
    radius, start = math.hypot(px - lx, pz - lz), math.atan2(pz - lz, px - lx)
    for i in range(frames):
        a = start + 2.0 * math.pi * i / frames
        yield dict(position=[lx + radius * math.cos(a), py, lz + radius * math.sin(a)], look_at=[lx, ly, lz],
                   fov=camera["fov"])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out_dir", help="the folder the frames go to (made if missing)")
    p.add_argument("--scene", default=os.path.join(here, "..", "..", "scenes", "default.json"))
    p.add_argument("--frames", type=int, default=12, help="frames in one turn (1..3600)")
    p.add_argument("--width", type=int, default=320)
    p.add_argument("--height", type=int, default=180)
    p.add_argument("--spp", type=int, default=8)
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "gpu"))
    args = p.parse_args()
    if not 1 <= args.frames <= 3600:
        p.error(f"--frames {args.frames}; expected 1..3600")
    try:
        with sr.Renderer(args.scene, width=args.width, height=args.height, spp=args.spp, device=args.device) as r:
            os.makedirs(args.out_dir, exist_ok=True)
            for i, camera in enumerate(orbit(r.camera, args.frames)):
                r.camera = camera
                r.render()
                path = os.path.join(args.out_dir, f"turntable_{i:04d}.png")
                r.save(path)
                print(path)
    except sr.Error as e:
        print(f"turntable.py: {e}", file=sys.stderr)
        return 2 if isinstance(e, sr.InputError) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
