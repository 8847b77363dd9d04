"""``python -m rcgrpo version``: the package version and the versions it runs against."""

from __future__ import annotations

import importlib.metadata as md
import platform


def versions() -> dict[str, str]:
    """Versions of rcgrpo and of the libraries whose behaviour the results depend on."""
    out = {"rcgrpo": md.version("rcgrpo"), "python": platform.python_version()}
    for dist in ("torch", "transformers", "tokenizers", "numpy", "bfcl-eval"):
        try:
            out[dist] = md.version(dist)
        except md.PackageNotFoundError:
            out[dist] = "not installed"
    return out


def main(argv: list[str]) -> int:
    if argv and argv[0] in ("-h", "--help"):
        print("usage: python -m rcgrpo version\n\nPrint rcgrpo's version and its key dependencies.")
        return 0
    for name, version in versions().items():
        print(f"{name} {version}")
    return 0
