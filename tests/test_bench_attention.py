"""benchmarks/attention.py's timing loop (`make bench`): interleaved rounds, and settled calls for short ones."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import attention as bench  # noqa: E402


def recording_calls(log, names):
    return {name: (lambda name=name: log.append(name)) for name in names}


def test_interleaved_calls_each_once_per_round_in_turn():
    log = []
    times = bench.interleaved(recording_calls(log, "abc"), 3)
    assert log == list("abc" * 3)
    assert {name: len(seconds) for name, seconds in times.items()} == {"a": 3, "b": 3, "c": 3}


def test_settled_calls_follow_an_untimed_call_of_themselves():
    """So that no implementation is timed right after another's (PyTorch's threads spin on after a call)."""
    log = []
    times = bench.interleaved(recording_calls(log, "abc"), 2, settle=True)
    assert log == list("aabbcc" * 2)
    assert all(len(seconds) == 2 for seconds in times.values())


def test_short_calls_are_settled_and_get_more_rounds():
    assert bench.SETTLE_MAX_T >= 1024  # where a call takes milliseconds
    assert bench.rounds_for(256, quick=False) > bench.rounds_for(1024, quick=False) >= bench.rounds_for(4096, quick=False)
    assert bench.rounds_for(256, quick=True) == 1
