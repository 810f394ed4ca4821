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


# ---------------------------------------------------------------------------------------------
# Blanks, the interval the claims refer to, and the item analysis (issue 26)
# ---------------------------------------------------------------------------------------------


def chosen_from(right, blank=()):
    """Items whose index is in ``right`` answered right, those in ``blank`` left blank, the others with choice 1."""
    return {item.key: None if k in blank else inv.CORRECT if k in right else item.choices[1].key
            for k, item in enumerate(inv.ITEMS)}


def item_line(out, number):
    (line,) = [line for line in out.splitlines() if line.startswith(f"{number:2d}. {inv.ITEMS[number - 1].topic}")
               and "difficulty" not in line]
    return line


def test_a_question_left_blank_is_reported_as_blank(tmp_path, capsys):
    """The report printed "0 % -> 0 %" for a question no one answered: now "blank", and the blanks are counted."""
    for name in ("Ada", "Bo", "Cy"):
        inv.save(inv.make_record(name, "pre", chosen_from({0}, blank={1}), now=MORNING), tmp_path)
        blank_after = {1} if name == "Ada" else set()
        inv.save(inv.make_record(name, "post", chosen_from({0, 1}, blank=blank_after),
                                 now=MORNING + timedelta(hours=3)), tmp_path)
    assert report_tool.main([str(tmp_path), "--figure", str(tmp_path / "f.png")]) == 0
    out = capsys.readouterr().out
    line = item_line(out, 2)
    assert "blank ->  67 %" in line and "left blank: 3 of 3 before, 1 of 3 after" in line
    assert "0 %" not in line.split("->")[0]
    assert "left blank" not in item_line(out, 1) and "100 % -> 100 %" in item_line(out, 1)
    result = report_tool.make_report(*report_tool.collect([tmp_path]))
    assert result.blanks[1] == (3, 1) and result.blanks[0] == (0, 0)


def test_the_claims_refer_to_the_interval_printed_or_to_none(room, tmp_path, capsys):
    """The limits said "see the interval" when no interval was printed (one learner with both attempts)."""
    assert report_tool.main([str(room), "--figure", str(tmp_path / "f.png")]) == 0
    out = capsys.readouterr().out
    assert "(95 % bootstrap interval over learners: " in out and "see the 95 % interval above" in out
    alone = tmp_path / "alone"
    alone.mkdir()
    inv.save(inv.make_record("Ada", "pre", answers(3), now=MORNING), alone)
    inv.save(inv.make_record("Ada", "post", answers(9), now=MORNING + timedelta(hours=3)), alone)
    assert report_tool.main([str(alone), "--figure", str(tmp_path / "g.png")]) == 0
    out = capsys.readouterr().out
    assert "<g> = (<post> - <pre>) / (100 - <pre>) = 0.67" in out
    assert "interval" not in out.lower()


#: Eleven learners before, each right on these items (0-based): distinct total scores 1 to 11, the bottom three
#: (scores 1-3) the only ones right on the last item. Nine of them after.
ANALYSED = {f"L{i:02d}": set(range(i)) | {N - 1} if i < 3 else set(range(i + 1)) for i in range(11)}


def test_with_ten_or_more_learners_each_item_gets_its_difficulty_and_discrimination(tmp_path, capsys):
    for name, right in ANALYSED.items():
        inv.save(inv.make_record(name, "pre", chosen_from(right), now=MORNING), tmp_path)
    for name, right in list(ANALYSED.items())[:9]:
        inv.save(inv.make_record(name, "post", chosen_from(right | {N - 2}), now=MORNING + timedelta(hours=3)),
                 tmp_path)
    # by hand: 27 % of 11 is 3 learners a group; scores are distinct, so the groups are L00-L02 and L08-L10
    scores = {name: len(right) for name, right in ANALYSED.items()}
    assert sorted(scores.values()) == list(range(1, 12))
    ranked = sorted(ANALYSED, key=scores.get)
    lower, upper = ranked[:3], ranked[-3:]
    assert lower == ["L00", "L01", "L02"] and upper == ["L08", "L09", "L10"]
    expected = []
    for k in range(N):
        difficulty = sum(k in right for right in ANALYSED.values()) / 11
        discrimination = (sum(k in ANALYSED[n] for n in upper) - sum(k in ANALYSED[n] for n in lower)) / 3
        expected.append((difficulty, discrimination))
    assert expected[0][1] == pytest.approx(1 / 3) and expected[5][1] == 1 and expected[N - 1][1] == -1

    result = report_tool.make_report(*report_tool.collect([tmp_path]))
    analysis = result.item_analysis["pre"]
    assert analysis["group"] == 3 and "post" not in result.item_analysis   # 9 learners after: too few
    for (difficulty, discrimination), (want_d, want_disc) in zip(analysis["items"], expected):
        assert difficulty == pytest.approx(want_d) and discrimination == pytest.approx(want_disc)

    assert report_tool.main([str(tmp_path), "--figure", str(tmp_path / "f.png")]) == 0
    out = capsys.readouterr().out
    assert "Item analysis before (11 learners)" in out and "top 27 % by total score (3 learners)" in out
    assert "Item analysis after: not computed (9 learners, fewer than 10)." in out
    last = [line for line in out.splitlines() if line.startswith(f"{N:2d}. ") and "difficulty" in line]
    assert last == [f"{N:2d}. {inv.ITEMS[-1].topic:<42s} difficulty {3 / 11:4.2f}   discrimination -1.00   <- low"]
    sixth = [line for line in out.splitlines() if line.startswith(" 6. ") and "difficulty" in line]
    assert sixth[0].endswith("discrimination +1.00")


def test_with_fewer_than_ten_learners_there_is_no_item_analysis(room, tmp_path, capsys):
    assert report_tool.main([str(room), "--figure", str(tmp_path / "f.png")]) == 0
    out = capsys.readouterr().out
    assert "Item analysis (difficulty, discrimination): not computed; it needs at least 10 learners" in out
    assert "(5 before, 4 after)" in out and "discrimination +" not in out


def test_the_delayed_retake_is_reported_per_item_beside_the_first_answers_after(tmp_path, capsys):
    """Issue 27: immediate versus delayed per item (what was forgotten), the days between, and the claims."""
    after = MORNING + timedelta(hours=3)
    for name, (right_after, right_later, days) in {"Ada": (9, 6, 4), "Bo": (9, 9, 2)}.items():
        inv.save(inv.make_record(name, "pre", answers(3), now=MORNING), tmp_path)
        inv.save(inv.make_record(name, "post", answers(right_after), now=after), tmp_path)
        inv.save(inv.make_record(name, inv.DELAYED, answers(right_later), now=after + timedelta(days=days)), tmp_path)
    inv.save(inv.make_record("Cy", inv.DELAYED, answers(12), now=after), tmp_path)  # no "post" to compare with
    report = report_tool.make_report(*report_tool.collect([tmp_path]))
    assert report.retained == ["ada", "bo"] and sorted(report.delay_days) == [2.0, 4.0]
    # items 1-6 right for both; 7-9 right for both just after, for Bo alone days later; 10-12 for neither
    assert report.retention == [(100.0, 100.0)] * 6 + [(100.0, 50.0)] * 3 + [(0.0, 0.0)] * 3
    assert report_tool.main([str(tmp_path), "--figure", str(tmp_path / "f.png")]) == 0
    out = capsys.readouterr().out
    assert "Delayed retake: 2 learners answered notebook 08 again, 2.0 to 4.0 days (median 3.0)" in out
    assert f" 7. {inv.ITEMS[6].topic:<42s} 100 % ->  50 %   <- forgotten by some" in out
    assert f" 1. {inv.ITEMS[0].topic:<42s} 100 % -> 100 %\n" in out
    assert "Mean score of these 2: 75.0 % just after, 62.5 % days later." in out
    assert all(claim in out for claim in report_tool.DELAYED_CLAIMS)


def test_without_a_delayed_retake_the_report_says_how_one_is_made(room, capsys):
    assert report_tool.main([str(room), "--figure", str(room / "f.png")]) == 0
    assert "Delayed retake: none in these files" in capsys.readouterr().out
