"""Safe executor: BFCL's result normalisation, fresh instances, cost guard, time limit."""

from __future__ import annotations

import signal
import time
from decimal import getcontext

import mpmath
import pytest

from rcgrpo.env.bfcl import backend_class
from rcgrpo.env.decode import Call
from rcgrpo.env.executor import (
    ERROR_PREFIX,
    InstanceFactory,
    Sandbox,
    is_error_result,
    normalise_result,
)
from rcgrpo.env.limits import MAX_POWER_BITS, cost_guard, time_limit


def call(name, **kwargs):
    return Call(name, kwargs, f"{name}(...)")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("plain", "plain"),
        ({"a": 1, "b": [1.5, None]}, '{"a": 1, "b": [1.5, null]}'),  # json.dumps
        ({"r": mpmath.mpf(2)}, "{'r': mpf('2.0')}"),  # not JSON-serialisable -> str()
        (["Error: x"], "['Error: x']"),
        (None, "None"),
        (3, "3"),
    ],
)
def test_normalise_result_is_bfcl_conversion(value, text):
    assert normalise_result(value) == text


def test_is_error_result():
    assert is_error_result(ERROR_PREFIX + "boom")
    assert is_error_result('{"error": "cd: no such directory"}')
    assert is_error_result("['Error: User not authenticated.']")
    assert not is_error_result('{"current_working_directory": "/"}')


FS_CONFIG = {
    "GorillaFileSystem": {
        "root": {
            "alice": {"type": "directory", "contents": {"a.txt": {"type": "file", "content": "hi"}}}
        }
    }
}


def test_every_fresh_copy_is_independent():
    factory = InstanceFactory(("GorillaFileSystem", "MathAPI"), FS_CONFIG, long_context=False)
    first, second = Sandbox(factory.fresh()), Sandbox(factory.fresh())
    assert first.run(call("touch", file_name="b.txt")) == "None"
    assert first.run(call("ls")) == '{"current_directory_content": ["a.txt", "b.txt"]}'
    assert second.run(call("ls")) == '{"current_directory_content": ["a.txt"]}'
    assert Sandbox(factory.fresh()).run(call("ls")) == '{"current_directory_content": ["a.txt"]}'


def test_long_context_module_globals_are_not_shared():
    """Long-context TravelAPI puts module-level credit-card dicts into its state; a booking
    in one episode must not change the balance another episode sees."""
    from bfcl_eval.eval_checker.multi_turn_eval.func_source_code import long_context

    card_id = next(iter(long_context.CREDIT_CARD_EXTENSION))
    before = dict(long_context.CREDIT_CARD_EXTENSION[card_id])
    factory = InstanceFactory(("TravelAPI",), {"TravelAPI": {}}, long_context=True)
    instances = factory.fresh()
    instances["TravelAPI"].credit_card_list[card_id]["balance"] = -1.0
    assert long_context.CREDIT_CARD_EXTENSION[card_id] == before
    assert factory.fresh()["TravelAPI"].credit_card_list[card_id] == before


def test_exceptions_become_error_observations():
    sandbox = Sandbox(InstanceFactory(("MathAPI",), {}, False).fresh())
    assert sandbox.run(call("add", a=1)) == (
        ERROR_PREFIX + "MathAPI.add() missing 1 required positional argument: 'b'"
    )
    assert sandbox.run(call("power", base=2.0, exponent=10**4)) == (
        ERROR_PREFIX + "(34, 'Numerical result out of range')"
    )
    assert sandbox.run(call("nope")) == ERROR_PREFIX + "function 'nope' is not available"


@pytest.mark.parametrize(
    ("method", "kwargs"),
    [
        ("power", {"base": 10, "exponent": 10**10}),
        ("power", {"base": 3, "exponent": MAX_POWER_BITS}),  # log2(3) > 1 bit per factor
        ("logarithm", {"value": 2, "base": 3, "precision": 10**9}),
        ("square_root", {"number": 2, "precision": 10**9}),
        ("round_number", {"number": 12345, "decimal_places": -(10**12)}),
    ],
)
def test_cost_guard_refuses_runaway_math_fast(method, kwargs):
    sandbox = Sandbox(InstanceFactory(("MathAPI",), {}, False).fresh(), call_timeout_s=None)
    start = time.perf_counter()
    text = sandbox.run(call(method, **kwargs))
    assert time.perf_counter() - start < 0.05
    assert text.startswith(ERROR_PREFIX + method + ":")


@pytest.mark.parametrize(
    ("method", "kwargs"),
    [
        ("power", {"base": 2, "exponent": MAX_POWER_BITS}),  # exactly at the limit
        ("power", {"base": 10**4000, "exponent": -3}),  # float result, cheap
        ("power", {"base": 1, "exponent": 10**100}),
        ("logarithm", {"value": 980.0, "base": 20, "precision": 10}),  # ground-truth size
        ("round_number", {"number": 1.5, "decimal_places": -(10**12)}),  # float: cheap
    ],
)
def test_cost_guard_lets_cheap_calls_through(method, kwargs):
    assert cost_guard("MathAPI", method, kwargs) is None
    assert cost_guard("GorillaFileSystem", method, kwargs) is None


def test_math_precision_does_not_leak_out_of_a_call():
    sandbox = Sandbox(InstanceFactory(("MathAPI",), {}, False).fresh())
    dps, prec = mpmath.mp.dps, getcontext().prec
    text = sandbox.run(call("logarithm", value=2, base=10, precision=40))
    # result formatted at the call's precision (as BFCL), global precision restored after
    assert text == "{'result': mpf('0.301029995663981195213738894724493026768186')}"
    sandbox.run(call("square_root", number=2, precision=300))
    assert (mpmath.mp.dps, getcontext().prec) == (dps, prec)


class _Slow:
    """A fake backend whose method loops in pure Python."""

    def spin(self, seconds: float) -> str:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass
        return "finished"

    def swallow(self) -> str:
        try:
            return self.spin(5.0)
        except Exception:  # a backend cannot catch the timeout
            return "caught"


def test_time_limit_interrupts_pure_python_and_restores_the_handler():
    sandbox = Sandbox({"Slow": _Slow()}, call_timeout_s=0.05)
    handler = signal.getsignal(signal.SIGALRM)
    assert sandbox.run(call("spin", seconds=0.0)) == "finished"
    start = time.perf_counter()
    assert sandbox.run(call("swallow")) == ERROR_PREFIX + "swallow exceeded the 0.05 s time limit"
    assert time.perf_counter() - start < 1.0
    assert signal.getsignal(signal.SIGALRM) is handler
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_time_limit_is_off_without_a_limit_and_when_another_timer_runs():
    with time_limit(None) as armed:
        assert not armed
    signal.setitimer(signal.ITIMER_REAL, 100.0)
    try:
        with time_limit(0.1) as armed:
            assert not armed
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 99.0  # the other timer untouched
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)


def test_stateless_math_is_not_loaded_and_unknown_classes_are_refused():
    assert isinstance(
        InstanceFactory(("MathAPI",), {"MathAPI": {"x": 1}}, False).fresh()["MathAPI"],
        backend_class("MathAPI"),
    )
    with pytest.raises(ValueError, match="class name must be one of"):
        InstanceFactory(("WebSearchAPI",), {}, False)
