"""benchmarks/attention.py (`make bench`): both sides in alternating rounds, medians and per-round ratios."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import attention as bench  # noqa: E402


def found(seconds, peak=2**20):
    key = f"float64 128 {bench.SDPA}"
    return {"course_utils": "x", "times": {key: seconds}, "peaks": {key: peak}, "long peak": 3 * 2**20}


def test_summary_gives_the_medians_and_the_ratio_of_each_round():
    (row,) = bench.summary([found(0.002), found(0.004), found(0.003)], [found(0.001), found(0.004), found(0.002)])
    assert row[:5] == ["float64", "128", bench.SDPA, "3.0", "1.00"]
    assert row[5:] == ["2.0", "1.00", "1.50", "1.50 (1.00-2.00)"]
    (alone,) = bench.summary([found(0.002)], [])
    assert alone == ["float64", "128", bench.SDPA, "2.0", "1.00"]


def test_the_rounds_alternate_which_side_goes_first_and_each_runs_in_its_own_process(monkeypatch, tmp_path):
    (tmp_path / "before" / "course_utils").mkdir(parents=True)  # a directory holding a course_utils: used as it is
    order = []

    def measure_in(tree, lengths, repeats, long):
        order.append(("after" if tree == bench._common.ROOT else "before", long))
        return found(0.001)

    monkeypatch.setattr(bench, "measure_in", measure_in)
    output = tmp_path / "attention.md"
    bench.main(["--rounds", "3", "--before", str(tmp_path / "before"), "--output", str(output)])
    assert order == [("before", True), ("after", True), ("after", False), ("before", False), ("before", False),
                     ("after", False)]
    text = output.read_text()
    assert "| float64 | 128 | scaled_dot_product_attention | 1.0 | 1.00 | 1.0 | 1.00 | 1.00 | 1.00 (1.00-1.00) |" in text
    assert "peak 3.0 MiB (before: 3.0 MiB)" in text
