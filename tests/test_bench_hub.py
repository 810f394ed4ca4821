"""benchmarks/hub.py, the room of learners on a real JupyterHub (`make bench`, part hub), without a hub.

What is checked here, on made-up figures worked out by hand: the summary of a room (spreads, largest peaks, a failed
learner left out and counted), the figures handed to benchmarks/sizing.py, how many kernels a learner keeps when
memory is short, the paths replayed from a browser's requests, the kernel protocol's reply handling (on a fake
websocket: a dead kernel noticed, a quiet one waited on), a notebook whose kernel died opened once more, the old
flow's terminal command (on a fake terminal) and the report's goal verdict.
"""
import json
import sys
import threading
from pathlib import Path

import pytest
import websocket

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import hub  # noqa: E402

MIB = 1024 * 1024


def kernel(nb, peak_mib, start=0.5, run=2.0, moves=0.1):
    return {"notebook": nb, "status": "ok", "moved": 1, "peak": peak_mib * MIB, "start_cpu": start, "run_cpu": run,
            "run_wall": 3.0, "moves_cpu": moves}


def learner(name, flow, m1_cpu, server_peak_mib, peaks, run=2.0, pip=0.0):
    return {"name": name, "flow": flow, "status": "ok", "phases": {}, "server_peak": server_peak_mib * MIB,
            "server_cpu": 4.0, "pip_cpu": pip or None,
            "minute_one": {"cpu": m1_cpu, "server_cpu": 3.0, "kernel_cpu": m1_cpu - 3.0 - pip, "pip_cpu": pip,
                           "wall": 20.0},
            "kernels": [kernel("00-a", peaks[0], run=run), kernel("01-b", peaks[1], run=2 * run)]}


def room():
    """Two new-flow and two old-flow learners, and one that failed (left out of every figure)."""
    learners = [learner("learner-01", "new", 4.0, 130, (110, 140)),
                learner("learner-02", "old", 9.0, 150, (112, 141), pip=4.0),
                learner("learner-03", "new", 6.0, 140, (111, 139), run=4.0),
                learner("learner-04", "old", 11.0, 135, (113, 138), pip=5.0),
                {"name": "learner-05", "flow": "new", "status": "error: RuntimeError: spawn failed", "kernels": []}]
    at = {"hub": {"peak": 100 * MIB, "cpu": 2.0}, "proxy": {"peak": 60 * MIB, "cpu": 1.0}}
    return {"learners": learners, "hub_at_start": at,
            "hub_at_minute_one": {"hub": {"peak": 110 * MIB, "cpu": 7.0}, "proxy": {"peak": 65 * MIB, "cpu": 6.0}},
            "hub_at_end": {"hub": {"peak": 120 * MIB, "cpu": 9.0}, "proxy": {"peak": 70 * MIB, "cpu": 8.0}},
            "room_seconds": 100.0, "total_seconds": 130.0, "lowest_available": 8 * 2**30, "lab_replay": ["a", "b"],
            "machine": ["- processor: test", "- BLAS: numpy.show_config: x; SIMD found: X86_V3, X86_V4"],
            "settings": {"learners": 5, "notebooks": ["00-a", "01-b"], "moves": 2, "keep_kernels": None,
                         "stagger": 1.0, "available_at_start": 10 * 2**30, "jupyterhub": "6.1.1",
                         "nbgitpuller": "1.3.0", "jupyterlab": "4.6.6"}}


def test_spread_of_a_few_numbers():
    assert hub.spread([3.0, 1.0, 2.0, None]) == {"median": 2.0, "min": 1.0, "max": 3.0, "mean": 2.0, "n": 3}
    assert hub.spread([None]) is None


def test_the_summary_takes_each_flow_apart_and_leaves_a_failed_learner_out():
    summary = hub.summarise(room())
    assert (summary["learners"], summary["ok"]) == (5, 4)
    new, old = summary["minute_one"]["new"], summary["minute_one"]["old"]
    assert new["cpu"] == {"median": 5.0, "min": 4.0, "max": 6.0, "mean": 5.0, "n": 2}
    assert old["cpu"]["median"] == 10.0 and old["pip_cpu"]["median"] == 4.5
    assert summary["server_peak"]["max"] == 150 * MIB
    assert summary["kernels"]["01"]["peak"]["max"] == 141 * MIB
    assert summary["kernels"]["01"]["run_cpu"]["mean"] == pytest.approx((4 + 4 + 8 + 4) / 4)  # learner-03 ran 2x
    # hub and proxy from their start to the room's minute one: (7 - 2) + (6 - 1) = 10 CPU s over 5 learners
    assert summary["hub_proxy_minute_one_cpu"] == pytest.approx(2.0)
    assert summary["hub_peak"] + summary["proxy_peak"] == 190 * MIB


def test_the_sizing_figures_are_the_largest_peaks_and_the_mean_cpu():
    figures = hub.sizing_figures(hub.summarise(room()), room()["machine"])
    assert figures["server_peak"] == 150 * MIB
    assert figures["kernel_peaks"] == {"00": 113 * MIB, "01": 141 * MIB}
    assert figures["notebook_cpu"]["00"] == pytest.approx(0.5 + 2.5)  # kernel start + mean Run All (2, 2, 4, 2)
    assert figures["minute_one_cpu"] == {"new": 5.0, "old": 10.0}
    assert figures["minute_one_wall"] == {"median": 20.0, "max": 20.0}  # the new flow's: every made-up wall is 20 s
    assert figures["hub_proxy_peak"] == 190 * MIB
    assert "X86_V4" in figures["machine"]


def test_kernels_kept_fit_the_available_memory():
    # 10 learners, 22 GiB: 0.7 x 22528 / 10 - 160 = 1417 MiB each, 9 kernels of 150 MiB: all of 7 fit
    assert hub.choose_keep(10, 7, 22 * 2**30) is None
    # 30 learners: 0.7 x 22528 / 30 - 160 = 365.7 MiB each -> 2 kernels
    assert hub.choose_keep(30, 7, 22 * 2**30) == 2
    with pytest.raises(RuntimeError, match="fewer --learners"):
        hub.choose_keep(300, 7, 22 * 2**30)


def test_the_replayed_paths_are_the_gets_after_the_lab_page_under_the_learners_prefix():
    prefix = "http://127.0.0.1:8000/user/probe/"
    seen = [("GET", "http://127.0.0.1:8000/hub/login"), ("GET", prefix + "git-pull?repo=x"),
            ("GET", prefix + "lab/tree/course/notebooks/00.ipynb"), ("GET", prefix + "static/lab/main.js?v=1"),
            ("POST", prefix + "api/sessions"), ("GET", "http://elsewhere.example/x.js"), ("GET", prefix + "api/me")]
    assert hub.lab_paths(seen, prefix) == ["static/lab/main.js?v=1", "api/me"]


class FakeSocket:
    """Replies queued for a Learner._request: each message's parent is the request just sent."""

    def __init__(self, replies):
        self.replies, self.sent = list(replies), []

    def send(self, text):
        self.sent.append(json.loads(text))

    def recv(self):
        if isinstance(self.replies[0], Exception):
            raise self.replies.pop(0)
        kind, content, own = self.replies.pop(0)
        parent = self.sent[-1]["header"]["msg_id"] if own else "another"
        return json.dumps({"msg_type": kind, "content": content, "parent_header": {"msg_id": parent}})


def fake_learner():
    learner = hub.Learner.__new__(hub.Learner)  # no HTTP session: only the kernel protocol is used
    learner.name, learner.session_id, learner.stop, learner.timeout = "learner-01", "s", threading.Event(), 600
    return learner


def test_a_cell_returns_what_it_printed_once_replied_and_idle():
    ws = FakeSocket([("stream", {"name": "stdout", "text": "not ours\n"}, False),
                     ("status", {"execution_state": "busy"}, True),
                     ("stream", {"name": "stdout", "text": "42\n"}, True),
                     ("execute_reply", {"status": "ok"}, True),
                     ("status", {"execution_state": "idle"}, True)])
    assert fake_learner().run(ws, ["print(42)"]) == "42\n"
    assert ws.sent[0]["header"]["msg_type"] == "execute_request"


def test_a_cell_that_raises_stops_the_run_naming_the_error():
    ws = FakeSocket([("execute_reply", {"status": "error", "ename": "NameError", "evalue": "x"}, True),
                     ("status", {"execution_state": "idle"}, True)])
    with pytest.raises(RuntimeError, match="NameError: x"):
        fake_learner().run(ws, ["x", "print('never sent')"])
    assert len(ws.sent) == 1


def test_the_goal_verdict_follows_the_largest_new_flow_learner():
    summary = hub.summarise(room())
    assert "goal met" in hub.goal_sentence(summary)  # largest new-flow minute one: 6.0 <= 8
    assert "2.0x the new" in hub.goal_sentence(summary)  # old median 10 / new median 5
    slow = room()
    slow["learners"][2]["minute_one"]["cpu"] = 8.5
    assert "not met" in hub.goal_sentence(hub.summarise(slow))


def test_the_report_has_both_flows_every_learner_and_the_machine():
    raw = room()
    text = hub.report(raw, hub.summarise(raw), {})
    assert "| new | 2 | 5.0 (4.0-6.0) |" in text
    assert "| old | 2 | 10.0 (9.0-11.0) |" in text and "4.5 (4.0-5.0)" in text  # pip's CPU, old flow only
    assert "learner-05" in text and "spawn failed" in text
    assert "SIMD found: X86_V3, X86_V4" in text
    assert "4 of 5 learners" in text
    assert "Check of the HTTP driver" not in text  # no browser here: no comparison
    assert "No kernel died." in text
    raw["learners"][1]["kernels"][1]["restarts"] = 1
    assert "1 kernel(s) died" in hub.report(raw, hub.summarise(raw), {})
    raw["learners"][1]["kernels"][1]["reasons"] = ["error: KernelDied: gone | server log: [W ...]"]
    assert "(learner-02: 01, error: KernelDied: gone)" in hub.report(raw, hub.summarise(raw), {})


def test_the_report_puts_a_browser_learners_minute_one_beside_the_http_learners():
    raw = room()
    for row in raw["learners"][:4]:
        row["minute_one"]["server_peak"] = (135 if row["flow"] == "new" else 150) * MIB
    raw["browser_probe"] = {"paths": ["a"], "server_peak": 137 * MIB, "server_cpu": 3.5, "kernel_cpu": 1.75,
                            "minute_one_cpu": 5.25, "wall": 12.0}
    text = hub.report(raw, hub.summarise(raw), {})
    assert "minute one 5.2 CPU s (server 3.5, kernel 1.8) in 12 s, server peak 137 MiB" in text
    assert "server peak at notebook 00 done 135 (135-135) MiB" in text  # the new flow's learners only


def test_a_kernel_that_restarts_under_a_cell_is_reported_as_dead_not_waited_for():
    ws = FakeSocket([("status", {"execution_state": "busy"}, True),
                     ("status", {"execution_state": "restarting"}, False),  # the server's, with no parent
                     ("execute_reply", {"status": "ok"}, True)])
    with pytest.raises(hub.KernelDied, match="restarting"):
        fake_learner().run(ws, ["print(1)"])


def test_a_quiet_websocket_is_waited_on_while_the_kernel_is_there():
    ws = FakeSocket([websocket.WebSocketTimeoutException("quiet"),  # a long cell: no kernel id, nothing to ask
                     ("execute_reply", {"status": "ok"}, True), ("status", {"execution_state": "idle"}, True)])
    assert fake_learner().run(ws, ["long()"]) == ""


def test_a_notebook_whose_kernel_died_is_opened_once_more(monkeypatch):
    class Learner:
        def __init__(self):
            self.opened, self.shut = [], []

        def open_notebook(self, rel):
            self.opened.append(rel)
            return {"id": f"session-{len(self.opened)}", "kernel": {"id": f"kernel-{len(self.opened)}"}}

        def shut_down(self, session_id, missing_ok=False):
            self.shut.append((session_id, missing_ok))

    tries = []

    def run_in_kernel(learner, hub_, name, clone, stem, moves, kernel_id):
        tries.append(kernel_id)
        if len(tries) == 1:
            raise hub.KernelDied("the kernel went dead")
        return {"notebook": stem, "status": "ok"}

    monkeypatch.setattr(hub, "run_in_kernel", run_in_kernel)
    sessions, learner = [], Learner()
    row = hub.run_notebook(learner, None, "learner-01", Path("/x/course"), "03-masks", 2, sessions, keep=None)
    assert row["status"] == "ok" and row["restarts"] == 1
    assert row["reasons"] == ["error: KernelDied: the kernel went dead | server log: -"]
    assert tries == ["kernel-1", "kernel-2"] and learner.shut == [("session-1", True)] and sessions == ["session-2"]
    tries.clear()
    monkeypatch.setattr(hub, "run_in_kernel", lambda *args: (_ for _ in ()).throw(hub.KernelDied("dead again")))
    failed = hub.run_notebook(Learner(), None, "learner-01", Path("/x/course"), "03-masks", 2, [], keep=None)
    assert failed["status"].startswith("error: KernelDied") and failed["restarts"] == 1


class FakeTerminal:
    """A terminal's websocket: what it shows, in pieces; the command typed is kept."""

    def __init__(self, pieces):
        self.pieces, self.typed = list(pieces), []

    def send(self, text):
        self.typed.append(json.loads(text))

    def recv(self):
        if isinstance(self.pieces[0], Exception):
            raise self.pieces.pop(0)
        return json.dumps(self.pieces.pop(0))


def test_a_terminal_command_ends_at_the_marker_with_its_exit_status():
    echoed = f"$ pip install -e .; echo {hub.DONE}$?\r\n"  # the terminal echoes the command: $?, not a status
    term = FakeTerminal([["setup", {}], ["stdout", echoed], ["stdout", "Successfully installed\r\n"],
                         ["stdout", f"{hub.DONE}"], ["stdout", "0\r\n$ "], ["stdout", "never read"]])
    status, shown = fake_learner().type_command(term, "pip install -e .")
    assert status == 0 and "Successfully installed" in shown
    assert term.typed == [["stdin", f"pip install -e .; echo {hub.DONE}$?\r"]]
    assert term.pieces == [["stdout", "never read"]]
    failed = FakeTerminal([["stdout", f"ERROR\r\n{hub.DONE}1\r\n"]])
    assert fake_learner().type_command(failed, "pip install -e .")[0] == 1
    quiet = FakeTerminal([websocket.WebSocketTimeoutException("pip is building"), ["stdout", f"{hub.DONE}0"]])
    assert fake_learner().type_command(quiet, "pip install -e .")[0] == 0
    closed = FakeTerminal([["disconnect", 1]])
    with pytest.raises(RuntimeError, match="terminal closed"):
        fake_learner().type_command(closed, "pip install -e .")
