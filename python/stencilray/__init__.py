"""stencilray: the stencilray renderer from Python (docs/api.md, "Python").

    import stencilray as sr
    img = sr.render("scenes/cornell_path.json", spp=16, width=320, height=180)  # float32 (180, 320, 3), linear
    r = sr.Renderer("scenes/default.json", width=640, height=360)
    for done in r.samples(64): ...        # samples per pixel done; break cancels the rest
    r.camera = dict(position=[0, 2, 6], look_at=[0, 1, 0], fov=40)
    r.save("out.exr")

A Renderer is one context of the C library (include/stencilray.h): the scene, the frame
settings, the device and the film of the last render. The library's errors are raised as
stencilray.InputError (a bad scene, with file:line:column, or a bad setting) and
stencilray.RuntimeError (out of memory, a device or an I/O error), both stencilray.Error.
The GIL is released while the library renders, loads and saves.
"""
import json as _json
import logging as _logging
import os as _os
import queue as _queue
import threading as _threading

# The OpenMP runtime of the CPU backend reads this once, when it starts: passive threads
# sleep between renders instead of spinning on every core (the stencilray command sets the
# same default).
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as _np  # noqa: E402

from . import _stencilray  # noqa: E402
from ._stencilray import Error, InputError, RuntimeError  # noqa: E402,A004

__all__ = ["Renderer", "render", "version", "Error", "InputError", "RuntimeError"]

version = _stencilray.version()
__version__ = version

# The names of the header's enums, in their order (sr_integrator_kind, sr_mask_kind,
# sr_device_kind, sr_tonemap_kind).
_INTEGRATORS = ("scene", "whitted", "path")
_MASKS = ("default", "wave", "compact", "stencil", "flags", "megakernel")
_DEVICES = ("auto", "cpu", "gpu")
_TONEMAPS = ("clamp", "reinhard", "aces")
_FIELDS = ("width", "height", "spp", "depth", "integrator", "mask", "seed", "device", "gpu")

_logger = _logging.getLogger("stencilray")


def _log(level, message):
    _logger.log(_logging.WARNING if level == 1 else _logging.INFO, "%s", message)


def _enum_index(what, names, value):
    if isinstance(value, str) and value in names:
        return names.index(value)
    raise InputError(f"{what} {value!r}; expected one of {', '.join(names)}")


def _camera_tuple(camera):
    """A camera dict (position, look_at, fov) as set_frame's tuple; None: the scene's."""
    if camera is None:
        return None
    if not isinstance(camera, dict) or not set(camera) <= {"position", "look_at", "fov"}:
        raise InputError(f"camera {camera!r}; expected a dict with position, look_at (3 numbers each) and fov "
                         "(degrees), or None for the scene's camera")
    try:
        position = [float(v) for v in camera.get("position", (0, 0, 0))]
        look_at = [float(v) for v in camera.get("look_at", (0, 0, 0))]
        fov = float(camera.get("fov", 0))
    except (TypeError, ValueError):
        raise InputError(f"camera {camera!r}; expected numbers for position, look_at and fov") from None
    if len(position) != 3 or len(look_at) != 3:
        raise InputError(f"camera {camera!r}; expected 3 numbers each for position and look_at")
    return (*position, *look_at, fov)


class Renderer:
    """A scene loaded once and rendered as often as wanted.

    scene: a scene file's path (JSON, or a glTF/OBJ/PLY/STL file read as a scene), or a dict
    of the scene itself (docs/scene-format.md); json=TEXT gives it as JSON text instead.
    name: what messages call a scene given as data; its folder resolves the files the scene
    reads (default "<json>" in the current folder).
    Frame settings, as keywords and as properties (None or 0: the scene's value or the
    default): width, height, spp, depth, integrator ("whitted", "path"), mask ("wave",
    "compact", "stencil", "flags", "megakernel"), seed, device ("auto", "cpu", "gpu"), gpu (the
    CUDA device), camera (dict(position=, look_at=, fov=)).
    log: a callable (level, message) for the library's notices (level 0) and warnings (1);
    default: the logging module's "stencilray" logger.
    """

    def __init__(self, scene=None, *, json=None, name=None, log=_log, camera=None, **frame):
        unknown = set(frame) - set(_FIELDS)
        if unknown:
            raise TypeError(f"unknown setting {sorted(unknown)[0]!r}; expected one of {', '.join(_FIELDS)} or camera")
        self._ctx = _stencilray.Context(log=log)
        self._stop = None   # while a samples() loop runs: cancels it and waits for its thread
        if (scene is None) == (json is None):
            raise TypeError("expected a scene (a path or a dict) or json=TEXT, one of them")
        if json is None and isinstance(scene, dict):
            json = _json.dumps(scene, indent=2)
        if json is not None:
            self._ctx.load_json(json, None if name is None else _os.fspath(name))
        else:
            self._ctx.load_file(scene)
        self._asked = {}  # the settings given, by set_frame's field names (missing: 0)
        self._set(camera=_camera_tuple(camera), **{k: self._field(k, v) for k, v in frame.items()})

    # ---- settings ---------------------------------------------------------------------
    @staticmethod
    def _field(key, value):
        if value is None:
            return 0
        if key == "integrator":
            return _enum_index("integrator", _INTEGRATORS, value)
        if key == "mask":
            return _enum_index("mask", _MASKS, value)
        if key == "device":
            return _enum_index("device", _DEVICES, value)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputError(f"{key} {value!r}; expected a whole number >= 0 (0 or None: the scene's or the default)")
        return value

    def _set(self, **changes):
        asked = {**self._asked, **changes}
        self._ctx.set_frame(**{k: v for k, v in asked.items() if v})
        self._asked = asked

    def _frame(self):
        return self._ctx.get_frame()

    def _property(key, names=None):  # noqa: N805 (a helper for the class body)
        def get(self):
            value = self._frame()[key]
            return names[value] if names else value

        def set_(self, value):
            self._set(**{key: self._field(key, value)})

        return property(get, set_, doc=f"the frame's {key} (None: the scene's value or the default)")

    width = _property("width")
    height = _property("height")
    spp = _property("spp")
    depth = _property("depth")
    integrator = _property("integrator", _INTEGRATORS)
    mask = _property("mask", _MASKS)
    seed = _property("seed")
    device = _property("device", _DEVICES)
    gpu = _property("gpu")
    del _property

    @property
    def camera(self):
        """The camera the next render uses: dict(position=, look_at=, fov=); set None for the scene's."""
        c = self._frame()["camera"]
        return {"position": list(c["position"]), "look_at": list(c["look_at"]), "fov": c["fov"]}

    @camera.setter
    def camera(self, value):
        self._set(camera=_camera_tuple(value))

    # ---- rendering ------------------------------------------------------------------------
    def samples(self, spp=None):
        """Render the frame (spp samples per pixel, when given: it becomes the frame's spp),
        yielding the samples per pixel done as passes finish. Leaving the loop early cancels
        the rest: the film then keeps the mean of the samples yielded last. The render runs on
        a thread of its own (the GIL released); the loop's body runs between passes."""
        if spp is not None:
            self.spp = spp
        to_loop, to_render = _queue.Queue(), _queue.Queue()
        end, left = object(), _threading.Event()

        def progress(done, total):
            if left.is_set() or done == 0:
                return left.is_set()
            to_loop.put(done)
            return to_render.get()  # True: the loop was left, cancel

        def run():
            try:
                self._ctx.render(progress)
                to_loop.put(end)
            except BaseException as e:  # noqa: B036 (handed to the loop's thread)
                to_loop.put(e)

        def stop():
            left.set()
            to_render.put(True)
            worker.join()

        worker = _threading.Thread(target=run, name="stencilray render", daemon=True)
        worker.start()
        if self._stop is None:
            self._stop = stop   # close() ends a loop left suspended
        stopping = True
        try:
            while True:
                item = to_loop.get()
                if item is end:
                    stopping = False
                    return
                if isinstance(item, BaseException):
                    stopping = False
                    raise item
                yield item
                to_render.put(False)
        finally:
            if self._stop is stop:
                self._stop = None
            if stopping:
                stop()
            worker.join()

    def render(self, spp=None):
        """Render the frame and return the image (see image). Ctrl-C cancels when the pass
        under way ends."""
        for _ in self.samples(spp):
            pass
        return self.image

    # ---- the film ------------------------------------------------------------------------
    @property
    def samples_done(self):
        """The samples per pixel in the film (0 before the first render)."""
        return self._ctx.film_size()[2]

    def pixels(self, rgba=False):
        """The film as linear float32, shape (height, width, 3) or with rgba=True 4 (alpha 1),
        row 0 at the top."""
        channels = 4 if rgba else 3
        w, h, _ = self._ctx.film_size()
        data = self._ctx.read_pixels(channels)
        return _np.frombuffer(data, dtype=_np.float32).reshape(h, w, channels)

    @property
    def image(self):
        """The film as linear float32 RGB, shape (height, width, 3), row 0 at the top."""
        return self.pixels()

    def save(self, path, *, exposure=1.0, tonemap="clamp", exr_float=False):
        """Write the film: .png (exposure, tonemap "clamp", "reinhard" or "aces", sRGB 8-bit),
        .hdr or .exr (linear; half floats, or 32-bit with exr_float=True)."""
        self._ctx.save(path, float(exposure), _enum_index("tonemap", _TONEMAPS, tonemap), bool(exr_float))

    # ---- lifetime ------------------------------------------------------------------------
    def close(self):
        """Free the scene, the device and the film now (else when the Renderer is collected);
        a samples() loop still open is cancelled first."""
        if self._stop:
            self._stop()
        self._ctx.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def render(scene, **settings):
    """Render a scene once and return the image: linear float32, shape (height, width, 3).
    The keywords are Renderer's (width=, spp=, device=, camera=, ...)."""
    with Renderer(scene, **settings) as r:
        return r.render()
