"""Automatic precision: bf16 only where it is native, with the capability mocked both ways."""

from __future__ import annotations

import pytest
import torch

from rcgrpo.precision import AMP_CHOICES, Host, cpu_flags, cpu_model, probe_host, resolve_amp

EPYC_AVX2 = "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma\nbogomips\t: 4000\n"
SAPPHIRE = (
    "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\n"
    "flags\t\t: avx2 avx512f avx512_bf16 amx_bf16 amx_tile\n"
)
SKYLAKE = "processor\t: 0\nflags\t\t: avx2 avx512f avx512bw avx512vl\n"


def test_avx2_only_cpu_trains_in_fp32():
    host = Host("cpu", cpu_capability="AVX2", cpu_flags=cpu_flags(EPYC_AVX2))
    p = resolve_amp("auto", host)
    assert (p.requested, p.amp) == ("auto", "fp32")
    assert "AVX2" in p.reason and "\n" not in p.reason


def test_avx512_with_native_bf16_trains_in_bf16():
    host = Host("cpu", cpu_capability="AVX512", cpu_flags=cpu_flags(SAPPHIRE))
    p = resolve_amp("auto", host)
    assert p.amp == "bf16" and "amx_bf16 + avx512_bf16" in p.reason
    only_avx512_bf16 = Host("cpu", cpu_capability="AVX512", cpu_flags=frozenset({"avx512_bf16"}))
    assert resolve_amp("auto", only_avx512_bf16).amp == "bf16"


def test_avx512_without_bf16_flags_or_unknown_flags_is_fp32():
    skylake = Host("cpu", cpu_capability="AVX512", cpu_flags=cpu_flags(SKYLAKE))
    assert resolve_amp("auto", skylake).amp == "fp32"
    unknown = Host("cpu", cpu_capability="AVX512", cpu_flags=None)  # no /proc/cpuinfo
    assert resolve_amp("auto", unknown).amp == "fp32"
    # the flags alone are not enough when torch dispatches AVX2 kernels
    forced_avx2 = Host("cpu", cpu_capability="AVX2", cpu_flags=cpu_flags(SAPPHIRE))
    assert resolve_amp("auto", forced_avx2).amp == "fp32"


def test_cuda_follows_bf16_support():
    assert resolve_amp("auto", Host("cuda", cuda_bf16=True)).amp == "bf16"
    assert resolve_amp("auto", Host("cuda", cuda_bf16=False)).amp == "fp32"


def test_explicit_choices_are_kept_whatever_the_host():
    hosts = [
        Host("cpu", cpu_capability="AVX2", cpu_flags=frozenset()),
        Host("cpu", cpu_capability="AVX512", cpu_flags=frozenset({"amx_bf16"})),
        Host("cuda", cuda_bf16=True),
    ]
    for host in hosts:
        for amp in ("bf16", "fp32", "none"):
            p = resolve_amp(amp, host)
            assert (p.requested, p.amp, p.reason) == (amp, amp, "set explicitly")
    assert set(AMP_CHOICES) == {"auto", "bf16", "fp32", "none"}
    with pytest.raises(ValueError, match=r"amp must be one of \('auto'"):
        resolve_amp("fp16", hosts[0])


def test_cpu_flags_reads_the_first_flags_line():
    assert cpu_flags(EPYC_AVX2) == {"fpu", "sse2", "avx", "avx2", "fma"}
    assert cpu_flags("Features\t: fp asimd bf16\n") == {"fp", "asimd", "bf16"}  # arm64
    assert cpu_flags("processor : 0\n") == frozenset()


def test_probe_host_reads_torch_and_the_cpuinfo_file(tmp_path, monkeypatch):
    info = tmp_path / "cpuinfo"
    info.write_text(SAPPHIRE)
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "AVX512")
    host = probe_host("cpu", cpuinfo=info)
    model = "Intel(R) Xeon(R) Platinum 8480+"
    assert host == Host(
        "cpu", cpu_capability="AVX512", cpu_flags=cpu_flags(SAPPHIRE), cpu_model=model
    )
    assert probe_host("cpu", cpuinfo=tmp_path / "missing").cpu_flags is None
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: True)
    assert probe_host("cuda") == Host("cuda", cuda_bf16=True)


def test_the_choice_records_the_host_facts_it_rests_on():
    host = Host(
        "cpu", cpu_capability="AVX512", cpu_flags=cpu_flags(SAPPHIRE), cpu_model=cpu_model(SAPPHIRE)
    )
    p = resolve_amp("auto", host)
    assert p.as_dict() == {
        "requested": "auto",
        "amp": "bf16",
        "reason": "cpu capability AVX512 with amx_bf16 + avx512_bf16: native bf16",
        "host": {
            "device": "cpu",
            "cpu_capability": "AVX512",
            "cpu_model": "Intel(R) Xeon(R) Platinum 8480+",
            "cpu_flags": ["amx_bf16", "avx2", "avx512_bf16", "avx512f"],  # the ones that matter
        },
    }
    unknown = resolve_amp("fp32", Host("cpu", cpu_capability="AVX2", cpu_flags=None)).host
    assert unknown["cpu_flags"] is None and unknown["cpu_model"] == ""
    assert resolve_amp("auto", Host("cuda", cuda_bf16=True)).host == {
        "device": "cuda",
        "cuda_bf16": True,
    }
    assert cpu_model(EPYC_AVX2) == ""
