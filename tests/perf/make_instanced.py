# tests/perf/make_instanced.py DIR: the torus knot placed 8 x 8 times, once as instances of one mesh
# (same material) and once flattened (two materials of the same values), for the cost of the
# two-level BVH on the GPU.
import json, os, sys
d = sys.argv[1]; os.makedirs(d, exist_ok=True)
knot = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'assets', 'torus_knot.obj'))
for name, two in (('inst', False), ('flat', True)):
    objs = [{"type": "plane", "point": [0, 0, 0], "normal": [0, 1, 0], "material": "floor"}]
    for i in range(8):
        for j in range(8):
            objs.append({"type": "mesh", "file": knot, "material": "gold2" if two and (i + j) % 2 else "gold",
                         "translate": [(i - 3.5) * 1.6, 1.0, -(j * 1.6) - 1.0], "scale": 0.5, "rotate": [0, 20 * i + 10 * j, 0]})
    scene = {"camera": {"position": [0, 5, 8], "look_at": [0, 0.5, -6], "up": [0, 1, 0], "fov": 55},
             "image": {"width": 800, "height": 450, "spp": 16, "max_depth": 8},
             "background": [0.55, 0.7, 0.95], "ambient": [0.05, 0.05, 0.05],
             "materials": {"floor": {"type": "diffuse", "albedo": [0.8, 0.8, 0.8]},
                           "gold": {"type": "metal", "albedo": [1.0, 0.78, 0.35], "roughness": 0.15},
                           "gold2": {"type": "metal", "albedo": [1.0, 0.78, 0.35], "roughness": 0.15}},
             "objects": objs,
             "lights": [{"type": "point", "position": [-3, 7, 5], "color": [1, 1, 1], "intensity": 230}]}
    json.dump(scene, open(os.path.join(d, name + '.json'), 'w'), indent=1)
