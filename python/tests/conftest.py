"""Fixtures of the module's tests: the repository's scenes and the stencilray command to
compare with (--stencilray-cli PATH; default: build/stencilray, then build-cpu/stencilray, then
`stencilray` on PATH), and --gpu, which runs the tests that need a CUDA device (skipped
otherwise)."""
import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def pytest_addoption(parser):
    parser.addoption("--stencilray-cli", default=None, help="the stencilray program the module's images are compared with")
    parser.addoption("--gpu", action="store_true", help="run the tests that need a CUDA device and a CUDA build")


@pytest.fixture
def gpu(request):
    if not request.config.getoption("--gpu"):
        pytest.skip("needs a CUDA device: pytest --gpu")


@pytest.fixture(scope="session")
def cli(request):
    given = request.config.getoption("--stencilray-cli")
    found = [given] if given else [str(REPO / "build" / "stencilray"), str(REPO / "build-cpu" / "stencilray"),
                                   shutil.which("stencilray")]
    for path in found:
        if path and os.access(path, os.X_OK):
            return path
    if given:
        pytest.fail(f"--stencilray-cli {given}: not an executable program")
    pytest.skip("no stencilray program (build it, or give --stencilray-cli PATH)")


@pytest.fixture(scope="session")
def scenes():
    return REPO / "scenes"
