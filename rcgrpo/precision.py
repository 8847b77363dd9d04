"""Automatic training precision: bf16 autocast only where bf16 arithmetic is native.

bf16 autocast roughly halves a Stage-1 step on a CPU with native bf16 (AVX512-BF16 or AMX),
but a CPU without it (AVX2 only, as most laptops and many cloud AMD cores) emulates every
bf16 matmul and the step gets ~10x SLOWER than fp32 (``benchmarks/bench_sft_step.py``).
``auto`` therefore resolves, on the device the model trains on, to

    cuda   bf16 if ``torch.cuda.is_bf16_supported()``, else fp32
    cpu    bf16 if torch dispatches AVX512 kernels (``torch.backends.cpu.get_cpu_capability()``)
           AND the CPU reports ``avx512_bf16`` or ``amx_bf16`` (``/proc/cpuinfo`` flags;
           AVX512 alone, e.g. Skylake, has no bf16 instructions), else fp32

An explicit ``bf16``, ``fp32`` or ``none`` (no autocast = fp32 for float32 parameters) is
kept as given. :func:`resolve_amp` is pure; :func:`probe_host` reads the machine.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

AMP_CHOICES = ("auto", "bf16", "fp32", "none")
"""Values of ``sft.amp``: auto (this module) | bf16 (autocast) | fp32 | none (no autocast)."""
BF16_CPU_FLAGS = ("amx_bf16", "avx512_bf16")
"""CPU flags of native bf16 dot products (Linux ``/proc/cpuinfo`` names)."""
BF16_CPU_CAPABILITIES = ("AVX512",)
"""ATen CPU capabilities whose kernels use those instructions."""


@dataclass(frozen=True)
class Host:
    """What :func:`resolve_amp` needs to know about the machine."""

    device: str
    """Device type the model trains on: cpu | cuda."""
    cuda_bf16: bool = False
    """cuda: ``torch.cuda.is_bf16_supported()``."""
    cpu_capability: str = ""
    """cpu: ``torch.backends.cpu.get_cpu_capability()`` (e.g. AVX2, AVX512, DEFAULT)."""
    cpu_flags: frozenset[str] | None = None
    """cpu: the CPU's feature flags; None = unknown (no ``/proc/cpuinfo``)."""


@dataclass(frozen=True)
class Precision:
    """A resolved precision choice: what was asked, what is used, and why."""

    requested: str
    """The configured value (one of :data:`AMP_CHOICES`)."""
    amp: str
    """The value training uses: bf16 | fp32 | none (``auto`` resolved)."""
    reason: str
    """One line: why ``amp`` was chosen."""

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def _cpu_choice(host: Host) -> tuple[str, str]:
    cap = host.cpu_capability or "unknown"
    if cap not in BF16_CPU_CAPABILITIES:
        return "fp32", f"cpu capability {cap}: no native bf16 (bf16 would be emulated, slower)"
    if host.cpu_flags is None:
        return "fp32", f"cpu capability {cap} but its flags are unknown: fp32 is the safe choice"
    native = [f for f in BF16_CPU_FLAGS if f in host.cpu_flags]
    if not native:
        return "fp32", f"cpu capability {cap} without {' / '.join(BF16_CPU_FLAGS)}: no native bf16"
    return "bf16", f"cpu capability {cap} with {' + '.join(native)}: native bf16"


def resolve_amp(requested: str, host: Host) -> Precision:
    """The precision of ``requested`` on ``host`` (module docstring)."""
    if requested not in AMP_CHOICES:
        raise ValueError(f"amp must be one of {AMP_CHOICES}, got {requested!r}")
    if requested != "auto":
        return Precision(requested, requested, "set explicitly")
    if host.device == "cuda":
        if host.cuda_bf16:
            return Precision(requested, "bf16", "cuda device with bf16 support")
        return Precision(requested, "fp32", "cuda device without bf16 support")
    if host.device != "cpu":
        return Precision(requested, "fp32", f"device {host.device}: no bf16 rule, fp32")
    amp, reason = _cpu_choice(host)
    return Precision(requested, amp, reason)


def cpu_flags(cpuinfo: str) -> frozenset[str]:
    """The feature flags of the first ``flags`` line of a ``/proc/cpuinfo`` text."""
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()


def probe_host(device: str, cpuinfo: Path = Path("/proc/cpuinfo")) -> Host:
    """The :class:`Host` of this process for ``device`` (cpu | cuda)."""
    import torch

    if device == "cuda":
        return Host("cuda", cuda_bf16=bool(torch.cuda.is_bf16_supported()))
    flags = cpu_flags(cpuinfo.read_text()) if cpuinfo.is_file() else None
    return Host(device, cpu_capability=torch.backends.cpu.get_cpu_capability(), cpu_flags=flags)
