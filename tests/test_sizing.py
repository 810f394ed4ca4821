"""The hub sizing (benchmarks/sizing.py, `make bench`) and the guide's sizing section that comes from it.

No kernel is run here (that is `make bench`): the arithmetic from measured figures to limits, guarantees and the
room table is checked on made-up figures whose answer is worked out by hand, and the guide's block must be the one
the last measurement produced (benchmarks/results/sizing.json).
"""
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import sizing  # noqa: E402

MIB = 1024 * 1024


def kernel(nb, peak_mib, cpu=1.0, status="ok"):
    return {"notebook": nb, "peak": peak_mib * MIB, "start_hwm": 50 * MIB, "start_cpu": 0.3, "cpu": cpu,
            "seconds": 1.0, "moved": [], "status": status}


def server_rows(*pairs):
    return {"idle_peak": 60 * MIB, "server_cpu": 1.0,
            "rows": [{"notebook": nb, "server_peak": peak * MIB, "kernel_peak": None, "kernels_alive": 1,
                      "session_rss": 0, "moved": 0, "status": "ok"} for nb, peak in pairs]}


KERNELS = [kernel("00-a", 100, cpu=1.0), kernel("01-b", 120, cpu=4.0), kernel("02-c", 110, cpu=2.0),
           kernel("07-opt", 300, cpu=9.0)]
SERVER = server_rows(("00-a", 80), ("01-b", 85), ("02-c", 90), ("07-opt", 95))


def test_limit_and_guarantee_from_the_peaks():
    sizes = sizing.plan(KERNELS, SERVER, headroom=0.3)
    core = sizes["core"]
    assert core["notebooks"] == ["00", "01", "02"]
    assert core["server_peak"] == 90 * MIB  # the optional notebook's server peak is not the core's
    assert core["all_alive"] == (90 + 100 + 120 + 110) * MIB  # 420 MiB
    assert core["limit_mib"] == 640  # 420 x 1.3 = 546 -> 640 (next multiple of 128)
    assert core["two_alive"] == (90 + 120 + 110) * MIB  # 320 MiB
    assert core["guarantee_mib"] == 512  # 416 -> 512
    everything = sizes["core + optional"]
    assert everything["all_alive"] == (95 + 100 + 120 + 110 + 300) * MIB  # 725 -> x1.3 = 942.5 -> 1024
    assert everything["limit_mib"] == 1024
    assert everything["guarantee_mib"] == 768  # (95 + 300 + 120) x 1.3 = 669.5 -> 768


def test_no_sizes_from_an_incomplete_session():
    failed = KERNELS[:1] + [kernel("01-b", 120, status="error: NameError: x")] + KERNELS[2:]
    assert sizing.plan(failed, SERVER) == {}
    assert sizing.guide_block(failed, {}) == ""


def test_the_room_table_multiplies_and_switches_hub_beyond_100():
    sizes = sizing.plan(KERNELS, SERVER, headroom=0.3)
    rows = sizing.table(KERNELS, sizes)
    assert [r["learners"] for r in rows] == [30, 100, 300]
    by_size = {r["learners"]: r for r in rows}
    tljh, z2jh = sizing.TLJH_OVERHEAD_MIB + sizing.OS_MIB, sizing.Z2JH_HUB_MIB + sizing.OS_MIB
    assert by_size[30]["nothing_closed_gib"] == pytest.approx((30 * 640 + tljh) / 1024)
    assert by_size[100]["closing_gib"] == pytest.approx((100 * 512 + tljh) / 1024)
    assert by_size[100]["hub"].startswith("The Littlest JupyterHub")
    assert by_size[300]["hub"].startswith("Zero to JupyterHub")
    assert by_size[300]["closing_gib"] == pytest.approx((300 * 512 + z2jh) / 1024)
    # the heaviest workshop notebook (01, 4 CPU s; the optional 07 does not count), done within 30 s
    assert by_size[30]["heaviest"] == "01-b"
    assert by_size[30]["cores"] == 4  # 30 x 4 / 30 = 4
    assert by_size[300]["cores"] == 40


def test_the_guide_block_names_every_figure_as_measured_documented_or_assumed():
    block = sizing.guide_block(KERNELS, sizing.plan(KERNELS, SERVER))
    for word in ("measured", "documented", "assumed"):
        assert word in block
    assert "**640 MiB**" in block and "**512 MiB**" in block


def test_the_kernel_runs_the_benchmarks_own_helper_with_what_it_calls():
    source = sizing._function_source(ROOT / "benchmarks" / "widgets.py", "other_value")
    namespace = {}
    exec(compile(source, "other_value", "exec"), namespace)  # defines other_value and every helper it calls

    class Slider:
        value, min, max, step = 1.0, 0.0, 2.0, 0.5

    assert namespace["other_value"](Slider()) == 1.5


def test_the_guides_sizing_section_is_the_last_measurements():
    raw_path = ROOT / "benchmarks" / "results" / "sizing.json"
    if not raw_path.exists():
        pytest.skip("no benchmarks/results/sizing.json yet: run make bench")
    raw = json.loads(raw_path.read_text(encoding="utf-8"))
    block = sizing.guide_block(raw["kernels"], sizing.plan(raw["kernels"], raw["server"]))
    assert block, "the last measurement failed for some notebook (see benchmarks/results/sizing.md)"
    guide = (ROOT / "docs" / "instructor-guide.md").read_text(encoding="utf-8")
    start, end = guide.find(sizing.GUIDE_BEGIN), guide.find(sizing.GUIDE_END)
    assert 0 <= start < end, f"docs/instructor-guide.md has no {sizing.GUIDE_BEGIN} ... {sizing.GUIDE_END} block"
    in_guide = guide[start + len(sizing.GUIDE_BEGIN):end].strip()
    assert in_guide == block.strip(), ("the guide's sizing tables differ from the last measurement: copy the block "
                                       "between the markers in benchmarks/results/sizing.md into the guide")
