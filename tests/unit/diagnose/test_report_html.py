"""The HTML report read back as a browser would need it, with no browser (issue 60: the
headless-Chromium test was skipped everywhere without one, CI included).

The page is parsed with the standard library's :class:`html.parser.HTMLParser`: its elements
nest and close; each figure of :data:`~rcgrpo.diagnose.figures.FIGURES` is one
``<figure id="fig-NAME">`` holding one ``<img>`` and its caption, in that order; each image
is an inline PNG that Pillow (pinned in requirements.txt) decodes in full at the figure size
(7 x 3.2 in at 100 dpi: 700 x 320 px), byte-identical to ``figures/NAME.png``; nothing in
the page's CSS or attributes hides an image or sets its width to 0 (the browser test read
the laid-out width: here ``max-width: 100%`` of a 60em body).
"""

from __future__ import annotations

import base64
import io
import json
import re
from html.parser import HTMLParser

from PIL import Image

from rcgrpo.diagnose import cli
from rcgrpo.diagnose.figures import FIGURES

VOID = {"meta", "img", "br", "hr", "link", "input"}
"""HTML elements without an end tag."""


class Page(HTMLParser):
    """The parts of the page the test reads: nesting errors, figures, images, style."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.figures: list[dict] = []
        self.style = ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "figure":
            self.figures.append({"id": attrs.get("id"), "images": [], "caption": ""})
        if tag == "img":
            where = self.figures[-1]["images"] if "figure" in self.stack else self.errors
            where.append(attrs if "figure" in self.stack else f"an <img> outside a figure: {attrs}")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
        else:
            self.stack.pop()

    def handle_data(self, data):
        if self.stack and self.stack[-1] == "figcaption":
            self.figures[-1]["caption"] += data
        if self.stack and self.stack[-1] == "style":
            self.style += data


def test_the_html_report_holds_every_figure_decodable_and_shown(tmp_path):
    table = tmp_path / "rollouts.jsonl"
    rows = [
        (s, g, float((s + g + j) % 3 == 0)) for s in range(4) for g in range(3) for j in range(4)
    ]
    table.write_text(
        "".join(json.dumps({"step": s, "group": g, "reward": r}) + "\n" for s, g, r in rows)
    )
    out = tmp_path / "report"
    assert cli.main([str(table), "--out", str(out)]) == 0
    page = Page()
    page.feed((out / "report.html").read_text())
    page.close()
    assert page.errors == [] and page.stack == []  # every element closed, in order
    assert [f["id"] for f in page.figures] == [f"fig-{name}" for name in FIGURES]
    for figure, (name, (caption, _)) in zip(page.figures, FIGURES.items(), strict=True):
        (img,) = figure["images"]
        assert img["alt"] == figure["caption"] == caption
        head, data = img["src"].split(",", 1)
        assert head == "data:image/png;base64"
        png = base64.b64decode(data, validate=True)
        assert png == (out / "figures" / f"{name}.png").read_bytes()
        with Image.open(io.BytesIO(png)) as image:
            image.load()  # decodes every pixel: a truncated or corrupt PNG raises
            assert (image.format, image.size) == ("PNG", (700, 320))
        assert not {"hidden", "width", "height", "style"} & set(img)
    assert "img{max-width:100%}" in page.style.replace(" ", "")
    assert not re.search(r"display\s*:\s*none|visibility\s*:\s*hidden", page.style)
