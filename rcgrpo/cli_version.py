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


def kernels() -> dict[str, str]:
    """The CPU kernels this process dispatches to: torch's ATen capability and numpy's
    enabled SIMD dispatch targets (both change under ``make test-avx2``'s emulation)."""
    import torch

    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # numpy < 2
        from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    enabled = [t for t in __cpu_dispatch__ if __cpu_features__.get(t)]
    return {
        "torch cpu capability": torch.backends.cpu.get_cpu_capability(),
        "numpy dispatch": " ".join(enabled) or "baseline",
    }


def main(argv: list[str]) -> int:
    from rcgrpo.cli_options import OptionParser

    OptionParser(
        "python -m rcgrpo version",
        description="Print rcgrpo's version, its key dependencies' and the CPU kernels in use.",
    ).parse_args(argv)
    for name, version in versions().items():
        print(f"{name} {version}")
    for name, value in kernels().items():
        print(f"{name}: {value}")
    return 0
