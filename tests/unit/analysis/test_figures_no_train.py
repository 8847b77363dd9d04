"""``analysis.figures build --no-train``: figures from the runs that are done, never training."""

from __future__ import annotations

import analysis.experiments as ex
import analysis.figures.__main__ as builder


def test_no_train_never_trains_and_skips_a_figure_without_runs(tmp_path, monkeypatch):
    monkeypatch.setattr(ex, "run_all", lambda *a, **k: (_ for _ in ()).throw(AssertionError))
    monkeypatch.setattr(ex, "locate", lambda spec, force_train=False: None)
    stale = tmp_path / "rl_collapse.png"
    stale.write_bytes(b"an older build")
    assert builder.build_one("rl_collapse", tmp_path, ("png",), train=False) is None
    assert not stale.exists()  # it showed runs that are no longer committed
    # a theory figure needs no run
    assert builder.build_one("theory_variance", tmp_path, ("png",), train=False).exists()
