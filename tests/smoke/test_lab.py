"""``make lab`` starts: JupyterLab as :func:`analysis.notebook.runner.lab_command` builds it
(the command ``make lab`` runs), on a free loopback port with a token and no browser. The
test checks that ``/lab`` answers 200 with the token and not without it, that the server
listens on 127.0.0.1 only, that the contents API lists the four notebooks, and that it shuts
down cleanly through the API. ~5 s."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from analysis.notebook.runner import LAB_HOST, NOTEBOOKS, lab_command

pytestmark = pytest.mark.slow  # ~10-15 s: JupyterLab loads its extensions
NAMES = [
    "01_theory.ipynb",
    "02_environment.ipynb",
    "03_training_dynamics.ipynb",
    "04_real_model.ipynb",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LAB_HOST, 0))
        return s.getsockname()[1]


def get(url: str, token: str | None = None, method: str = "GET") -> tuple[int, bytes]:
    headers = {"Authorization": f"token {token}"} if token else {}
    request = urllib.request.Request(url, headers=headers, method=method)
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def ready(base: str, token: str) -> bool:
    try:
        return get(f"{base}/api/status", token)[0] == 200
    except OSError:  # not listening yet
        return False


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # report the 302 to the login page instead of following it


@pytest.fixture
def lab(tmp_path):
    port, token = free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_TOKEN": token, "JUPYTER_RUNTIME_DIR": str(tmp_path)}
    log = (tmp_path / "lab.log").open("w")
    server = subprocess.Popen(
        lab_command(port, open_browser=False, port_retries=0),
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://{LAB_HOST}:{port}"
    try:
        deadline = time.monotonic() + 90
        while not ready(base, token):
            assert server.poll() is None, (tmp_path / "lab.log").read_text()[-2000:]
            assert time.monotonic() < deadline, "JupyterLab did not answer within 90 s"
            time.sleep(0.5)
        yield base, token, server, tmp_path
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait(timeout=30)
        log.close()


def test_make_lab_serves_the_notebooks_on_loopback(lab):
    base, token, server, runtime = lab
    assert get(f"{base}/lab", token)[0] == 200
    assert get(f"{base}/lab")[0] in (302, 403)  # no token: the login page, not the lab
    status, body = get(f"{base}/api/contents", token)
    assert status == 200
    listed = sorted(item["name"] for item in json.loads(body)["content"])
    assert (
        [n for n in listed if n.endswith(".ipynb")]
        == NAMES
        == sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
    )
    (info,) = [json.loads(p.read_text()) for p in runtime.glob("jpserver-*.json")]
    assert info["hostname"] == LAB_HOST and info["root_dir"] == str(NOTEBOOKS)
    assert get(f"{base}/api/shutdown", token, method="POST")[0] == 200
    assert server.wait(timeout=30) == 0
