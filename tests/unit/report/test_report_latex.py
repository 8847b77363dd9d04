"""LaTeX escaping, number / CI formatting and table assembly of the report generator."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from analysis.report.latex import (
    DASH,
    escape,
    fmt_estimate,
    fmt_int,
    fmt_number,
    newcommand,
    span_row,
    tabular,
)
from analysis.stats import Estimate, mean_ci

SPECIAL = "\\&%$#_{}~^<>|"


@pytest.mark.parametrize(
    ("text", "latex"),
    [
        ("50% of a_b & c", r"50\% of a\_b \& c"),
        ("$5 #1 {x}", r"\$5 \#1 \{x\}"),
        ("C:\\tmp", r"C:$\backslash$tmp"),
        ("~/runs ^2", r"$\sim$/runs \^{}2"),
        ("<|high_reward|>", r"$<$$|$high\_reward$|$$>$"),  # OT1 would print ¡ and ¿
        ("σ ≥ 0, κ·ε²", r"$\sigma$ $\geq$ 0, $\kappa$$\cdot$$\varepsilon$$^2$"),
        ("a − b → c", r"a $-$ b $\to$ c"),
        ("2–3 — ok…", r"2--3 --- ok\ldots{}"),
        ("naïve café", "naïve café"),  # other non-ASCII passes through (UTF-8 input)
        ("", ""),
    ],
)
def test_escape_hand_cases(text, latex):
    assert escape(text) == latex


def test_escape_rejects_non_strings():
    with pytest.raises(ValueError, match="text must be a str"):
        escape(3.0)


@settings(max_examples=200)
@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126)))
@example("\\\\_")
@example("}{")
def test_escape_law_ascii(text):
    # every special character becomes exactly one escape sequence; all else is unchanged,
    # so no bare special survives outside the escape forms
    out = escape(text)
    if not any(c in SPECIAL for c in text):
        assert out == text
    stripped = out
    for form in (r"$\backslash$", r"$\sim$", r"\^{}", "$<$", "$>$", "$|$"):
        stripped = stripped.replace(form, "")
    for ch in "&%$#_{}":
        stripped = stripped.replace("\\" + ch, "")
    assert not any(c in stripped for c in SPECIAL)


@pytest.mark.parametrize(
    ("value", "kwargs", "latex"),
    [
        (0.5, {}, "$0.50$"),
        (0.12345, {"digits": 3}, "$0.123$"),
        (0.7375, {"digits": 1, "scale": 100}, "$73.8$"),  # success rates in %
        (-6.94e-18, {}, r"$-6.9\times10^{-18}$"),  # tiny slacks keep their magnitude
        (2.1e-4, {"digits": 3}, r"$2.1\times10^{-4}$"),
        (0.0, {"digits": 3}, "$0.000$"),
        (-1e-9, {"digits": 2, "sci_below": 0}, "$0.00$"),  # never "-0.00"
        (float("nan"), {}, DASH),
        (None, {}, DASH),
        (float("inf"), {}, DASH),
    ],
)
def test_fmt_number(value, kwargs, latex):
    assert fmt_number(value, **kwargs) == latex


def test_fmt_number_rejects_negative_digits():
    with pytest.raises(ValueError, match="digits"):
        fmt_number(1.0, -1)


def test_fmt_estimate_three_seeds_hand_computed():
    # values 0.5, 0.7, 0.9: mean 0.7, s = 0.2, t(0.975, df=2) = 4.302653,
    # half = 4.302653 * 0.2 / sqrt(3) = 0.496828 -> 70.0 ± 49.7 in %
    est = mean_ci([0.5, 0.7, 0.9])
    assert est.mean == pytest.approx(0.7)
    assert est.half_width == pytest.approx(0.49682754235, rel=1e-9)
    assert (est.n, est.dropped) == (3, 0)
    assert fmt_estimate(est, 1, percent=True) == r"$70.0 \pm 49.7$"
    assert fmt_estimate(est, 3) == r"$0.700 \pm 0.497$"


def test_fmt_estimate_one_seed_has_no_interval_and_nan_is_dropped():
    # one finite value: no t-interval exists (df = 0); the NaN seed is counted as dropped
    est = mean_ci([0.25, float("nan")])
    assert est == Estimate(0.25, None, 1, 1)
    assert fmt_estimate(est, 2, percent=True) == "$25.00$"


def test_fmt_estimate_two_seeds_and_missing():
    # 0.1, 0.3: s = sqrt(0.02), t(0.975, 1) = 12.7062, half = 12.7062 * 0.1414 / 1.4142 = 1.2706
    est = mean_ci([0.1, 0.3])
    assert est.half_width == pytest.approx(1.27062047362, rel=1e-9)
    assert fmt_estimate(est) == r"$0.20 \pm 1.27$"
    assert mean_ci([float("nan")]) is None
    assert fmt_estimate(None) == DASH


def test_mean_ci_checks_level():
    with pytest.raises(ValueError, match="level"):
        mean_ci([1.0, 2.0], level=1.0)


def test_fmt_int_and_newcommand():
    assert fmt_int(10996) == r"$10\,996$"
    assert fmt_int(0) == "$0$"
    assert fmt_int(None) == DASH
    with pytest.raises(ValueError, match="int"):
        fmt_int(True)
    assert newcommand("TheoryViolations", "$0$") == r"\newcommand{\TheoryViolations}{$0$}"
    with pytest.raises(ValueError, match="control word"):
        newcommand("Theory2", "x")


def test_tabular_rows_rules_and_shape_checks():
    tex = tabular(
        ["a", "b"],
        [["1", "2"], r"\midrule", ["3", "4"]],
        "lr",
        caption="C",
        label="tab:x",
        note="n",
        size="footnotesize",
        colsep="3pt",
    )
    assert r"\begin{tabular}{lr}" in tex and r"\caption{C}\label{tab:x}" in tex
    assert "1 & 2 \\\\\n\\midrule\n3 & 4 \\\\" in tex
    assert r"\centering\footnotesize\setlength{\tabcolsep}{3pt}" in tex
    box = tex.index(r"\begin{adjustbox}{max width=\linewidth}")  # a wide table shrinks to fit
    assert (
        box
        < tex.index(r"\begin{tabular}")
        < tex.index(r"\end{tabular}")
        < tex.index(r"\end{adjustbox}")
    )
    assert tex.index(r"\bottomrule") < tex.index("n}") < tex.index(r"\end{table}")
    spec = tabular(["a", "b"], [], ["l", "p{3cm}"], caption="C", label="t")
    assert r"\begin{tabular}{lp{3cm}}" in spec
    with pytest.raises(ValueError, match="align has 1 columns"):
        tabular(["a", "b"], [], "l", caption="C", label="t")
    with pytest.raises(ValueError, match="has 1 cells"):
        tabular(["a", "b"], [["1"]], "lr", caption="C", label="t")
    with pytest.raises(ValueError, match="size"):
        tabular(["a"], [], "l", caption="C", label="t", size="huge")


def test_span_row():
    row = span_row(["SFT", "GRPO"], r"\textit{not yet run}", 4, ["48.75"])
    assert row == r"SFT & GRPO & \multicolumn{4}{c}{\textit{not yet run}} & 48.75 \\"
    with pytest.raises(ValueError, match="span"):
        span_row([], "x", 0)


def test_fmt_estimate_nan_mean_is_dash():
    assert fmt_estimate(Estimate(math.nan, None, 1)) == DASH
