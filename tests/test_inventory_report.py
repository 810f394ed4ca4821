"""`python tools/inventory_report.py` on generated answer files whose gain is known.

The files are written the way the form writes them (``make_record`` + ``save``); the expected numbers are
computed here from the designed numbers of right answers, not by the report's code.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import inventory_report as report_tool
import pytest

from course_utils.lessons import inventory as inv

MORNING = datetime(2026, 12, 1, 9, 0, 0, tzinfo=timezone.utc)
N = len(inv.ITEMS)

# nickname -> (right before, right after) out of N: the first N_right items right, the rest a chosen distractor
DESIGN = {"Ada": (3, 9), "Bo": (6, 9), "Cy": (9, 12), "Di": (N, N)}
ONLY_BEFORE = {"Eve": 0}


def answers(n_right, wrong_choice=1):
    """The first ``n_right`` items right, every other item answered with its choice ``wrong_choice``."""
    return {item.key: inv.CORRECT if k < n_right else item.choices[wrong_choice].key
            for k, item in enumerate(inv.ITEMS)}


def write_room(folder):
    for name, (before, after) in DESIGN.items():
        inv.save(inv.make_record(name, "pre", answers(before), now=MORNING), folder)
        inv.save(inv.make_record(name.upper(), "post", answers(after), now=MORNING + timedelta(hours=3)), folder)
    for name, before in ONLY_BEFORE.items():
        inv.save(inv.make_record(name, "pre", answers(before, wrong_choice=2), now=MORNING), folder)
    # Ada again after the feedback: a perfect later attempt that must not count
    inv.save(inv.make_record("ada", "post", answers(N), now=MORNING + timedelta(hours=4)), folder)


def expected_gains():
    """The class <g> from mean scores, and the mean of individual gains, over learners not perfect before."""
    pairs = [(100 * b / N, 100 * a / N) for b, a in DESIGN.values() if b < N]
    mean_pre = sum(p for p, _ in pairs) / len(pairs)
    mean_post = sum(q for _, q in pairs) / len(pairs)
    individual = [(q - p) / (100 - p) for p, q in pairs]
    return (mean_post - mean_pre) / (100 - mean_pre), sum(individual) / len(individual), mean_pre, mean_post


@pytest.fixture
def room(tmp_path):
    folder = tmp_path / "handed-in"
    folder.mkdir()
    write_room(folder)
    (folder / "notes.json").write_text("[1, 2, 3]")
    return folder


def test_the_class_gain_and_the_individual_gains_are_the_designed_ones(room):
    records, skipped = report_tool.collect([room])
    result = report_tool.make_report(records, skipped)
    class_gain, mean_individual, mean_pre, mean_post = expected_gains()
    assert class_gain == pytest.approx(2 / 3) and mean_individual == pytest.approx((2 / 3 + 1 / 2 + 1) / 3)
    assert result.class_gain == pytest.approx(class_gain)
    assert result.mean_individual_gain == pytest.approx(mean_individual)
    assert (result.mean_pre, result.mean_post) == (pytest.approx(mean_pre), pytest.approx(mean_post))
    assert result.matched == ["ada", "bo", "cy", "di"] and result.perfect_pre == ["di"]
    assert result.extra_attempts == 1                       # Ada's second "post" is not counted
    low, high = result.class_gain_interval
    assert low <= class_gain <= high
    assert len(skipped) == 1 and "notes.json" in skipped[0]


def test_per_item_rates_and_the_most_chosen_misconception(room):
    result = report_tool.make_report(*report_tool.collect([room]))
    pre_right = [sum(k < b for b, _ in DESIGN.values()) + sum(k < b for b in ONLY_BEFORE.values())
                 for k in range(N)]
    post_right = [sum(k < a for _, a in DESIGN.values()) for k in range(N)]
    n_pre, n_post = len(DESIGN) + len(ONLY_BEFORE), len(DESIGN)
    for k, (before, after) in enumerate(result.item_rates):
        assert before == pytest.approx(100 * pre_right[k] / n_pre)
        assert after == pytest.approx(100 * post_right[k] / n_post)
    last = inv.ITEMS[-1]
    wrong_before, wrong_after = result.top_wrong[-1]
    # before: Ada, Bo, Cy chose choice 1 of the last item, Eve chose choice 2
    assert wrong_before.most_common(1)[0] == (last.choices[1].key, 3)
    assert wrong_before[last.choices[2].key] == 1
    assert wrong_after.most_common(1)[0] == (last.choices[1].key, 2)   # Ada and Bo


def test_the_printed_report_and_the_figure(room, tmp_path, capsys):
    figure = tmp_path / "out" / "report.png"
    assert report_tool.main([str(room), "--figure", str(figure)]) == 0
    out = capsys.readouterr().out
    class_gain, mean_individual, _, _ = expected_gains()
    assert f"<g> = (<post> - <pre>) / (100 - <pre>) = {class_gain:.2f}" in out
    assert f"Average of the individual gains (post_i - pre_i) / (100 - pre_i): {mean_individual:.2f}" in out
    assert "a perfect score before, nothing left to gain): 1." in out
    assert f"\u201c{inv.plain_name(inv.ITEMS[-1].choices[1].key)}\u201d (3 of 5)" in out
    assert "skipped:" in out and "notes.json" in out
    assert "same day" in out.lower() and "same questions twice" in out and "Hake" in out
    assert figure.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_without_a_matched_learner_the_gain_is_not_computed(tmp_path, capsys):
    inv.save(inv.make_record("Ada", "pre", answers(2), now=MORNING), tmp_path)
    inv.save(inv.make_record("Bo", "post", answers(8), now=MORNING), tmp_path)
    assert report_tool.main([str(tmp_path), "--figure", str(tmp_path / "f.png")]) == 0
    assert "not computed (no learner took both attempts" in capsys.readouterr().out


def test_no_answer_file_is_an_error(tmp_path, capsys):
    assert report_tool.main([str(tmp_path / "missing")]) == 2
    captured = capsys.readouterr()
    assert "no such file or folder" in captured.out and "No answer file" in captured.err


# ---------------------------------------------------------------------------------------------
# Hostile or broken files in the room's folder (issue 25): one bad file never costs the room's report
# ---------------------------------------------------------------------------------------------


def test_deep_nesting_a_fifo_and_a_huge_file_are_skipped_by_name(room, tmp_path):
    """The report: one deeply nested file (RecursionError) lost the whole report, and a FIFO named *.json hung it.
    Run as a command with a time limit, so a hang fails instead of stopping the tests."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    bad = {"nested.json": "[" * 200_000 + "]" * 200_000, "huge.json": " " * (inv.MAX_FILE_BYTES + 1)}
    for name, text in bad.items():
        (room / name).write_text(text)
    os.mkfifo(room / "pipe.json")
    tool = Path(__file__).resolve().parents[1] / "tools" / "inventory_report.py"
    done = subprocess.run([sys.executable, str(tool), str(room), "--figure", str(tmp_path / "f.png")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    for name, why in (("nested.json", "nested too deeply"), ("huge.json", "more than an answer file holds"),
                      ("pipe.json", "not a regular file")):
        assert any(name in line and why in line for line in done.stdout.splitlines()), (name, done.stdout)
    class_gain, _, _, _ = expected_gains()
    assert f"<g> = (<post> - <pre>) / (100 - <pre>) = {class_gain:.2f}" in done.stdout  # the room's report, whole


def test_make_passes_files_as_names_never_as_shell(tmp_path):
    """The report: FILES reached the shell unquoted (FILES='x; touch f' ran `touch f`). Now make's command line is
    run as make runs it, with a FILES holding a command, a quoted name with a space, and a real folder."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    made = tmp_path / "made-by-the-shell"
    folder = tmp_path / "my answers"
    folder.mkdir()
    files = f"x; touch {made} '{folder}'"
    lines = subprocess.run(["make", "-n", "--no-print-directory", "inventory-report", f"FILES={files}"], cwd=root,
                           capture_output=True, text=True).stdout  # the environment's lines, if any, are not run
    (command,) = [line for line in lines.splitlines() if "inventory_report.py" in line]
    done = subprocess.run(["sh", "-c", command.replace("tools/inventory_report.py", "tools/inventory_report.py "
                                                       f"--figure {tmp_path / 'f.png'}")],
                          cwd=root, capture_output=True, text=True, timeout=120)
    assert not made.exists(), "the shell ran a command from FILES"
    assert "x;: no such file or folder" in done.stdout + done.stderr
    assert "touch: no such file or folder" in done.stdout + done.stderr
    assert "No answer file was read" in done.stderr  # the folder was read as one name (it is empty)
    assert f"{folder}: no such file" not in done.stdout + done.stderr
