"""Generated blocks between ``<!-- begin:NAME -->`` / ``<!-- end:NAME -->`` (rcgrpo/docblocks.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rcgrpo.docblocks import markers, replace_block, update_file

DOC = "# t\nintro\n<!-- begin:x -->\nold 1\nold 2\n<!-- end:x -->\ntail\n"

# text around a block: anything without a marker of its own
_plain = st.text(st.characters(blacklist_characters="<"), max_size=40)


def test_replace_hand_worked():
    assert (
        replace_block(DOC, "x", "new")
        == "# t\nintro\n<!-- begin:x -->\nnew\n<!-- end:x -->\ntail\n"
    )
    # an empty body leaves the markers on consecutive lines
    assert replace_block(DOC, "x", "") == "# t\nintro\n<!-- begin:x -->\n<!-- end:x -->\ntail\n"


def test_bad_names_and_markers_are_one_line_errors():
    with pytest.raises(ValueError, match="block name must match"):
        markers("Bad Name")
    with pytest.raises(ValueError, match=r"needs <!-- begin:y --> and <!-- end:y --> exactly once"):
        replace_block(DOC, "y", "z")
    with pytest.raises(ValueError, match="exactly once"):
        replace_block(DOC + DOC, "x", "z")


@given(head=_plain, tail=_plain, old=_plain, body=_plain)
def test_replace_laws(head, tail, old, body):
    begin, end = markers("blk")
    text = f"{head}{begin}\n{old}{end}{tail}"
    new = replace_block(text, "blk", body)
    # the body sits between the marker lines (with its final newline), the outside untouched
    written = body if body.endswith("\n") or not body else body + "\n"
    assert new == f"{head}{begin}\n{written}{end}{tail}"
    # idempotent
    assert replace_block(new, "blk", body) == new


def test_update_file_check_and_write(tmp_path):
    path = tmp_path / "doc.md"
    path.write_text(DOC)
    assert update_file(path, {"x": "old 1\nold 2\n"}) == []
    assert update_file(path, {"x": "new"}, check=True) == ["x"]
    assert path.read_text() == DOC  # check mode writes nothing
    assert update_file(path, {"x": "new"}) == ["x"]
    assert path.read_text() == DOC.replace("old 1\nold 2\n", "new\n")
    with pytest.raises(ValueError, match=r"doc.md: block 'y'"):
        update_file(path, {"y": "z"})
