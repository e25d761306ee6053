"""The Python module stencilray on the CPU backend: the same film as the command, numpy's
shape and type, errors as exceptions with the library's messages, progressive samples and
cancelling, the GIL released while rendering, the camera, saving, and the module found from a
folder outside the repository."""
import os
import subprocess
import sys
import threading
import time

import numpy as np
import OpenEXR
import pytest

import stencilray as sr
from conftest import REPO

SMALL = dict(width=40, height=24, spp=4, depth=3, seed=5, device="cpu")


def read_exr(path):
    with OpenEXR.File(str(path)) as f:
        return np.array(f.channels()["RGB"].pixels)


def test_same_film_as_the_command(cli, scenes, tmp_path):
    """The module's image is `stencilray render --backend cpu`'s float EXR bit for bit, and
    save() writes the same file as the command."""
    out = tmp_path / "cli.exr"
    subprocess.run([cli, "render", str(scenes / "cornell.json"), "--backend", "cpu", "--width", "40", "--height", "24",
                    "--spp", "4", "--depth", "3", "--seed", "5", "--exr-type", "float", "-q", "-o", str(out)],
                   check=True)
    with sr.Renderer(scenes / "cornell.json", **SMALL) as r:
        img = r.render()
        r.save(tmp_path / "module.exr", exr_float=True)
    want = read_exr(out)
    assert img.shape == want.shape == (24, 40, 3)
    assert np.array_equal(img.view(np.uint32), want.view(np.uint32))
    assert (tmp_path / "module.exr").read_bytes() == out.read_bytes()


def test_render_shape_and_type(scenes):
    img = sr.render(str(scenes / "cornell_path.json"), spp=2, width=32, height=18, device="cpu")
    assert img.shape == (18, 32, 3) and img.dtype == np.float32
    assert np.isfinite(img).all() and img.max() > 0.0
    with sr.Renderer(scenes / "cornell.json", **SMALL) as r:
        assert (r.width, r.height, r.spp, r.depth, r.seed, r.device) == (40, 24, 4, 3, 5, "cpu")
        assert r.samples_done == 0
        rgb = r.render()
        rgba = r.pixels(rgba=True)
        assert rgba.shape == (24, 40, 4)
        assert np.array_equal(rgba[..., :3], rgb) and (rgba[..., 3] == 1.0).all()
        assert r.samples_done == 4
        r.width = 20
        assert r.render().shape == (24, 20, 3)


def test_bad_scene_names_file_line_column(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "camera": {"position": [0, 1, 5],,\n}\n')
    with pytest.raises(sr.InputError, match=r"bad\.json:2:\d+: ") as e:
        sr.Renderer(bad)
    assert isinstance(e.value, sr.Error) and isinstance(e.value, ValueError)
    with pytest.raises(sr.InputError, match=r"inline\.json:2:\d+: "):
        sr.Renderer(json=bad.read_text(), name="inline.json")
    with pytest.raises(sr.InputError, match="missing.json"):
        sr.Renderer(tmp_path / "missing.json")


def test_bad_settings_are_refused(scenes, tmp_path):
    with sr.Renderer(scenes / "cornell.json", **SMALL) as r:
        with pytest.raises(sr.InputError, match="spp 70000"):
            r.spp = 70000
        assert r.spp == 4   # the frame stays as it was
        with pytest.raises(sr.InputError, match="integrator 'fast'; expected one of scene, whitted, path"):
            r.integrator = "fast"
        with pytest.raises(sr.InputError, match="the film holds no samples"):
            r.image
        r.render()
        with pytest.raises(sr.InputError, match=r"\.tiff: unknown image format"):
            r.save(tmp_path / "out.tiff")
        assert not (tmp_path / "out.tiff").exists()
    with pytest.raises(TypeError, match="unknown setting 'sppp'"):
        sr.Renderer(scenes / "cornell.json", sppp=4)
    r.close()
    with pytest.raises(sr.Error, match="closed"):
        r.render()


def test_samples_progress_and_cancel(scenes):
    """samples() yields the samples done as passes finish; leaving the loop cancels the rest,
    and the film keeps the samples yielded last."""
    with sr.Renderer(scenes / "cornell.json", width=16, height=8, depth=2, device="cpu") as r:
        seen = list(r.samples(6))
        assert len(seen) >= 2 and seen == sorted(set(seen)) and seen[-1] == 6
        assert r.samples_done == 6 and r.spp == 6
        full = r.image.copy()
        for done in r.samples():
            break
        assert done == seen[0] < 6
        assert r.samples_done == done
        assert not np.array_equal(r.image, full)   # the mean of fewer samples
        with pytest.raises(ZeroDivisionError):   # an error in the loop's body cancels too
            for done in r.samples():
                1 / 0
        assert r.samples_done == seen[0]
        assert r.render() is not None and np.array_equal(r.image, full)


def test_one_thread_at_a_time(scenes):
    """While a render waits between passes (the loop's body), the renderer refuses other calls."""
    with sr.Renderer(scenes / "cornell.json", width=16, height=8, spp=4, device="cpu") as r:
        for _ in r.samples():
            with pytest.raises(sr.Error, match="in use by another thread"):
                r.width = 8
            break
        threads = threading.active_count()
        loop = r.samples()
        next(loop)   # a loop left open: close() cancels it and waits for its thread
    assert threading.active_count() == threads
    loop.close()


def test_gil_released_while_rendering(scenes):
    """Another Python thread keeps running while a render runs."""
    with sr.Renderer(scenes / "cornell_path.json", width=320, height=180, spp=16, device="cpu") as r:
        ticks = 0
        worker = threading.Thread(target=r._ctx.render)
        start = time.perf_counter()
        worker.start()
        while worker.is_alive():
            ticks += 1
            time.sleep(0.001)
        took = time.perf_counter() - start
        worker.join()
        assert r.samples_done == 16
        assert took > 0.05, f"the render took {took:.3f} s: too short to tell"
        # A thread holding the GIL for the whole render would leave this loop a tick or two.
        assert ticks >= 10, f"{ticks} ticks of the other thread in a {took:.3f} s render"


def test_camera_changes_the_image(scenes):
    with sr.Renderer(scenes / "cornell.json", **SMALL) as r:
        scene_camera = r.camera
        before = r.render()
        r.camera = dict(position=[0, 2, 6], look_at=[0, 1, 0], fov=40)
        c = r.camera
        assert c["position"] == [0, 2, 6] and c["look_at"] == [0, 1, 0] and c["fov"] == 40
        after = r.render()
        assert not np.array_equal(before, after)
        r.camera = None
        assert r.camera == scene_camera
        assert np.array_equal(r.render(), before)
        with pytest.raises(sr.InputError, match="camera"):
            r.camera = dict(position=[0, 1])


def test_save_writes_files(scenes, tmp_path):
    with sr.Renderer(scenes / "cornell.json", **SMALL) as r:
        r.render()
        for name in ("out.png", "out.hdr", "out.exr"):
            r.save(tmp_path / name)
        r.save(tmp_path / "bright.png", exposure=4, tonemap="aces")
    assert (tmp_path / "out.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "out.png").read_bytes() != (tmp_path / "bright.png").read_bytes()
    assert (tmp_path / "out.hdr").read_bytes().startswith(b"#?RADIANCE")
    assert read_exr(tmp_path / "out.exr").shape == (24, 40, 3)


def test_scene_as_data(tmp_path):
    scene = {"camera": {"position": [0, 1, 4], "look_at": [0, 0, 0]}, "image": {"width": 24, "height": 12},
             "materials": {"red": {"type": "diffuse", "albedo": [1, 0, 0]}},
             "objects": [{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "red"}],
             "lights": [{"type": "point", "position": [0, 3, 3], "color": [1, 1, 1], "intensity": 40}]}
    img = sr.render(scene, spp=1, device="cpu")
    assert img.shape == (12, 24, 3)
    assert img[6, 12, 0] > 0 and img[6, 12, 1] == 0   # red in the middle


def test_log_receives_the_device_line(scenes):
    lines = []
    with sr.Renderer(scenes / "cornell.json", log=lambda level, msg: lines.append((level, msg)), **SMALL) as r:
        r.render()
    assert any("CPU backend" in msg for _, msg in lines), lines


def test_imported_from_the_installed_package(tmp_path):
    """From a folder outside the repository the package and its library load from where pip
    put them (the library next to the extension, found through its $ORIGIN rpath)."""
    code = ("import stencilray, os; d = os.path.dirname(stencilray.__file__); "
            "maps = open('/proc/self/maps').read(); "
            "print(d); print([l.split()[-1] for l in maps.splitlines() if 'libstencilray.so' in l][0])")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    package, library = out.stdout.split()
    assert not package.startswith(str(REPO / "python")), package
    assert os.path.dirname(library) == package, (library, package)
    assert sr.version == sr.__version__ and sr.version.count(".") == 2


def test_gpu_film_is_cpu_film(gpu, scenes):
    """On the GPU (pytest --gpu), samples() from its own thread gives the CPU's film bit for bit."""
    lines = []
    with sr.Renderer(scenes / "cornell_path.json", width=96, height=54, spp=4, depth=4, seed=9, device="gpu",
                     log=lambda level, msg: lines.append(msg)) as r:
        seen = list(r.samples())
        on_gpu = r.image
        r.device = "cpu"
        assert np.array_equal(r.render().view(np.uint32), on_gpu.view(np.uint32))
    assert seen[-1] == 4
    assert any(msg.startswith("GPU backend") for msg in lines), lines
