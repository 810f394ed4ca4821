"""course_utils.lessons.measure: the timing and memory helpers of notebook 07 and benchmarks/."""
import tracemalloc

import pytest
from alone import run_alone

from course_utils.lessons.measure import peak_bytes, time_call


def test_time_call_counts_the_warm_up_and_orders_median_and_p95():
    calls = []
    median, p95 = time_call(lambda: calls.append(1), repeats=4)
    assert len(calls) == 5  # one warm-up + 4 timed
    assert 0 <= median <= p95
    calls.clear()
    time_call(lambda: calls.append(1), repeats=3, warmup=False)
    assert len(calls) == 3


def test_peak_bytes_sees_a_numpy_allocation():
    """Run alone (tests/alone.py): in pytest's own process another thread's allocations would count too."""
    peak = run_alone("import json, numpy as np\nfrom course_utils.lessons.measure import peak_bytes\n"
                     "print(json.dumps(peak_bytes(lambda: np.ones(1_000_000))))")  # 8 MB of float64
    assert 8_000_000 <= peak < 16_000_000


def test_peak_bytes_stops_tracing_even_when_the_call_fails():
    def fails():
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        peak_bytes(fails)
    assert not tracemalloc.is_tracing()
