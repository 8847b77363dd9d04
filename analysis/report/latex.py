"""LaTeX primitives of the report generator: escaping, number formatting, booktabs tables.

Every string that comes from data (run names, captions, notes of the theory report) goes
through :func:`escape`; every number through :func:`fmt_number` / :func:`fmt_estimate`, so a
table can never show a number with more digits than it supports, and a missing value is
always rendered as the same dash.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from analysis.stats import Estimate

SIZES = ("normalsize", "small", "footnotesize", "scriptsize")
DASH = "--"
"""A value that does not exist (e.g. a metric that is NaN for every seed)."""

# TeX's ten special characters, escaped for text mode, and the three that the default OT1
# text font would print as other glyphs (< as ¡, > as ¿, |). The forms avoid the TS1
# (textcomp) encoding, whose Computer Modern fonts exist only as bitmaps without cm-super.
_SPECIALS = {
    "\\": r"$\backslash$",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"$\sim$",
    "^": r"\^{}",
    "<": r"$<$",
    ">": r"$>$",
    "|": r"$|$",
}
UNICODE_MATH = {
    "α": r"\alpha",
    "β": r"\beta",
    "γ": r"\gamma",
    "δ": r"\delta",
    "Δ": r"\Delta",
    "ε": r"\varepsilon",
    "κ": r"\kappa",
    "μ": r"\mu",
    "π": r"\pi",
    "ρ": r"\rho",
    "σ": r"\sigma",
    "τ": r"\tau",
    "θ": r"\theta",
    "∇": r"\nabla",
    "≥": r"\geq",
    "≤": r"\leq",
    "≠": r"\neq",
    "≈": r"\approx",
    "≫": r"\gg",
    "≪": r"\ll",
    "±": r"\pm",
    "×": r"\times",
    "·": r"\cdot",
    "→": r"\to",
    "←": r"\leftarrow",
    "∞": r"\infty",
    "−": "-",
    "‖": r"\|",
    "√": r"\surd",
    "∈": r"\in",
    "Σ": r"\Sigma",
    "²": "^2",
    "½": r"\tfrac12",
    "′": "'",  # gate names H′, C′, G4′
    "″": "''",
}
"""Unicode maths symbols of this project's captions, notes and gate names -> the maths-mode
form :func:`escape` writes between ``$...$``. ``paper/main.tex`` declares each character
with the same form (``\\DeclareUnicodeCharacter``, inside ``\\ensuremath``), so hand-written
prose may use them too; ``tests/unit/report/test_paper_characters.py`` keeps the two equal."""
UNICODE_TEXT = {"–": "--", "—": "---", "…": r"\ldots{}", "‘": "`", "’": "'", "“": "``", "”": "''"}
"""Unicode punctuation -> its text-mode form (declared alike in ``paper/main.tex``)."""
_PATTERN = re.compile(
    "[" + re.escape("".join(_SPECIALS) + "".join(UNICODE_MATH) + "".join(UNICODE_TEXT)) + "]"
)


def escape(text: str) -> str:
    """``text`` as LaTeX text-mode source: specials escaped, maths symbols as ``$...$``.

    ``escape("50% of a_b")`` -> ``50\\% of a\\_b``; ``escape("σ ≥ 0")`` ->
    ``$\\sigma$ $\\geq$ 0``. Other non-ASCII characters pass through (UTF-8 input: pdflatex
    sets accented letters such as é, but stops on a symbol it was not given; add one to
    :data:`UNICODE_MATH` and to ``paper/main.tex``).
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a str, got {type(text).__name__}")

    def sub(m: re.Match) -> str:
        ch = m.group(0)
        if ch in _SPECIALS:
            return _SPECIALS[ch]
        if ch in UNICODE_TEXT:
            return UNICODE_TEXT[ch]
        return f"${UNICODE_MATH[ch]}$"

    return _PATTERN.sub(sub, text)


def _finite(x: float | None) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def fmt_number(x: float | None, digits: int = 2, *, scale: float = 1.0, sci_below=1e-3) -> str:
    """A number in maths mode with ``digits`` decimals; :data:`DASH` for None / NaN / inf.

    Magnitudes below ``sci_below`` (but not 0) use a mantissa and a power of ten so tiny
    slacks stay readable: ``fmt_number(-6.9e-18)`` -> ``$-6.9\\times10^{-18}$``.
    """
    if digits < 0:
        raise ValueError(f"digits must be >= 0, got {digits}")
    if not _finite(x):
        return DASH
    v = float(x) * scale
    if v != 0 and abs(v) < sci_below:
        mantissa, exponent = f"{v:.1e}".split("e")
        return f"${mantissa}\\times10^{{{int(exponent)}}}$"
    text = f"{v:.{digits}f}"
    if text.lstrip("-").strip("0.") == "":
        text = text.lstrip("-")  # no "-0.00"
    return f"${text}$"


def fmt_estimate(est: Estimate | None, digits: int = 2, *, percent: bool = False) -> str:
    r"""``$m \pm h$`` (95% half-width over seeds), ``$m$`` for one seed, :data:`DASH` if none.

    ``percent`` multiplies by 100 (success rates are reported in % as in the paper).
    """
    if est is None or not _finite(est.mean):
        return DASH
    scale = 100.0 if percent else 1.0
    mean = fmt_number(est.mean, digits, scale=scale, sci_below=0)
    if est.half_width is None or not _finite(est.half_width):
        return mean
    half = fmt_number(est.half_width, digits, scale=scale, sci_below=0)
    return f"${mean[1:-1]} \\pm {half[1:-1]}$"


def fmt_int(n: int | None) -> str:
    r"""An integer with thin-space thousands separators: 10996 -> ``$10\,996$``."""
    if n is None:
        return DASH
    if isinstance(n, bool) or not isinstance(n, int):
        raise ValueError(f"n must be an int or None, got {n!r}")
    return "$" + f"{n:,}".replace(",", r"\,") + "$"


def newcommand(name: str, value: str) -> str:
    r"""``\newcommand{\name}{value}``; ``name`` must be letters only (a TeX control word)."""
    if not re.fullmatch(r"[A-Za-z]+", name):
        raise ValueError(f"name must be ASCII letters only (a TeX control word), got {name!r}")
    return f"\\newcommand{{\\{name}}}{{{value}}}"


def tabular(
    header: Sequence[str],
    rows: Sequence[Sequence[str] | str],
    align: str | Sequence[str],
    *,
    caption: str,
    label: str,
    note: str | None = None,
    size: str = "small",
    colsep: str | None = None,
) -> str:
    r"""A ``table`` float with a booktabs ``tabular``; cells are LaTeX already.

    ``align`` is one letter per column (``"lrr"``) or a list of column specs
    (``["l", "p{3cm}"]``). A row given as a plain ``str`` is emitted verbatim (e.g.
    ``\midrule`` or a ``\multicolumn`` row); a table wider than the text is scaled down to
    its width (``adjustbox``'s ``max width``). ``note`` goes below the table in small type;
    ``size`` is a font size command name, ``colsep`` a ``\tabcolsep`` length (e.g. "3pt").
    """
    if size not in SIZES:
        raise ValueError(f"size must be one of {SIZES}, got {size!r}")
    specs = list(align)
    if len(specs) != len(header):
        raise ValueError(f"align has {len(specs)} columns, header has {len(header)}")
    lines = [
        r"\begin{table}[t]",
        f"\\centering\\{size}" + (f"\\setlength{{\\tabcolsep}}{{{colsep}}}" if colsep else ""),
        f"\\caption{{{caption}}}\\label{{{label}}}",
        r"\begin{adjustbox}{max width=\linewidth}",
        f"\\begin{{tabular}}{{{''.join(specs)}}}",
        r"\toprule",
        " & ".join(header) + r" \\",
        r"\midrule",
    ]
    for row in rows:
        if isinstance(row, str):
            lines.append(row)
            continue
        if len(row) != len(header):
            raise ValueError(f"row {list(row)} has {len(row)} cells, header has {len(header)}")
        lines.append(" & ".join(row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{adjustbox}"]
    if note:
        lines.append(f"\\par\\smallskip\\parbox{{0.95\\linewidth}}{{\\footnotesize {note}}}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def span_row(lead: Sequence[str], text: str, span: int, after: Sequence[str] = ()) -> str:
    r"""A row: ``lead`` cells, ``text`` centred across the next ``span`` columns, ``after``."""
    if span < 1:
        raise ValueError(f"span must be >= 1, got {span}")
    cells = [*lead, f"\\multicolumn{{{span}}}{{c}}{{{text}}}", *after]
    return " & ".join(cells) + r" \\"
