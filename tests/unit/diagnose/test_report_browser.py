"""The HTML report in a real headless browser: every figure decodes and is laid out.

Chromium's headless shell (Debian package ``chromium-headless-shell``, or ``chromium``)
loads a copy of ``report.html`` with one added script that, on ``load``, writes each image's
``complete``, natural size and laid-out width into a ``data-images`` attribute; the DOM the
browser dumps is then read back. Skipped when no such browser is on PATH (the project does
not install one).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from rcgrpo.diagnose import cli
from rcgrpo.diagnose.figures import FIGURES

BROWSER = next(
    (b for b in ("chromium-headless-shell", "chromium", "chromium-browser") if shutil.which(b)),
    None,
)
PROBE = (
    "<script>window.addEventListener('load', () => document.body.setAttribute('data-images',"
    " JSON.stringify([...document.images].map(i => [i.complete, i.naturalWidth,"
    " i.naturalHeight, Math.round(i.getBoundingClientRect().width)]))));</script>"
)


@pytest.mark.skipif(BROWSER is None, reason="no headless Chromium on PATH")
def test_the_html_report_renders_its_figures_in_a_browser(tmp_path):
    table = tmp_path / "rollouts.jsonl"
    rows = [
        (s, g, float((s + g + j) % 3 == 0)) for s in range(4) for g in range(3) for j in range(4)
    ]
    table.write_text(
        "".join(json.dumps({"step": s, "group": g, "reward": r}) + "\n" for s, g, r in rows)
    )
    assert cli.main([str(table), "--out", str(tmp_path / "report")]) == 0
    page = (tmp_path / "report" / "report.html").read_text()
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", PROBE + "</body>"))
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000"]
    done = subprocess.run(
        [BROWSER, *flags, "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=120
    )
    found = re.search(r'data-images="([^"]*)"', done.stdout)
    assert found, done.stderr[-2000:]
    images = json.loads(found.group(1).replace("&quot;", '"'))
    assert len(images) == len(FIGURES)
    for complete, width, height, shown in images:
        # decoded at the figure size (7 x 3.2 in at 100 dpi) and laid out with a width
        assert complete and (width, height) == (700, 320) and shown > 0
