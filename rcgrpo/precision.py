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

A run records what was asked (``sft.amp`` in ``config.json``, e.g. ``auto``) apart from what
this machine resolved it to (``summary.json``: ``precision`` = requested, amp, reason and the
host facts): the same command is the same run spec on every machine, and the precision it
trained in is a fact about the run.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

AMP_CHOICES = ("auto", "bf16", "fp32", "none")
"""Values of ``sft.amp``: auto (this module) | bf16 (autocast) | fp32 | none (no autocast)."""
BF16_CPU_FLAGS = ("amx_bf16", "avx512_bf16")
"""CPU flags of native bf16 dot products (Linux ``/proc/cpuinfo`` names)."""
BF16_CPU_CAPABILITIES = ("AVX512",)
"""ATen CPU capabilities whose kernels use those instructions."""
RECORDED_FLAGS = ("avx2", "avx512f", *BF16_CPU_FLAGS)
"""The CPU flags a run's precision record keeps (:meth:`Host.facts`)."""


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
    cpu_model: str = ""
    """cpu: the CPU's model name (``/proc/cpuinfo``), for the record only."""

    def facts(self) -> dict[str, object]:
        """The facts the choice rests on, for a run's record (JSON-ready; the flags that
        matter, not the whole list)."""
        out: dict[str, object] = {"device": self.device}
        if self.device == "cuda":
            out["cuda_bf16"] = self.cuda_bf16
            return out
        out["cpu_capability"] = self.cpu_capability
        out["cpu_model"] = self.cpu_model
        flags = None if self.cpu_flags is None else sorted(set(RECORDED_FLAGS) & self.cpu_flags)
        out["cpu_flags"] = flags
        return out


@dataclass(frozen=True)
class Precision:
    """A resolved precision choice: what was asked, what is used, and why."""

    requested: str
    """The configured value (one of :data:`AMP_CHOICES`)."""
    amp: str
    """The value training uses: bf16 | fp32 | none (``auto`` resolved)."""
    reason: str
    """One line: why ``amp`` was chosen."""
    host: dict = field(default_factory=dict)
    """:meth:`Host.facts` of the machine that resolved it."""

    def as_dict(self) -> dict[str, object]:
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
    amp, reason = _choice(requested, host)
    return Precision(requested, amp, reason, host.facts())


def _choice(requested: str, host: Host) -> tuple[str, str]:
    if requested != "auto":
        return requested, "set explicitly"
    if host.device == "cuda":
        if host.cuda_bf16:
            return "bf16", "cuda device with bf16 support"
        return "fp32", "cuda device without bf16 support"
    if host.device != "cpu":
        return "fp32", f"device {host.device}: no bf16 rule, fp32"
    return _cpu_choice(host)


def cpu_flags(cpuinfo: str) -> frozenset[str]:
    """The feature flags of the first ``flags`` line of a ``/proc/cpuinfo`` text."""
    return frozenset(_cpuinfo_field(cpuinfo, ("flags", "Features")).split())


def cpu_model(cpuinfo: str) -> str:
    """The first ``model name`` of a ``/proc/cpuinfo`` text ("" if none)."""
    return _cpuinfo_field(cpuinfo, ("model name",)).strip()


def _cpuinfo_field(cpuinfo: str, keys: tuple[str, ...]) -> str:
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in keys:
            return value
    return ""


def probe_host(device: str, cpuinfo: Path = Path("/proc/cpuinfo")) -> Host:
    """The :class:`Host` of this process for ``device`` (cpu | cuda)."""
    import torch

    if device == "cuda":
        return Host("cuda", cuda_bf16=bool(torch.cuda.is_bf16_supported()))
    text = cpuinfo.read_text() if cpuinfo.is_file() else None
    return Host(
        device,
        cpu_capability=torch.backends.cpu.get_cpu_capability(),
        cpu_flags=None if text is None else cpu_flags(text),
        cpu_model="" if text is None else cpu_model(text),
    )
