"""Sizing for a JupyterHub, from a room measured on a real hub (benchmarks/hub.py): the per-user memory limit and
guarantee, the room table for 30, 100 and 300 learners, and docs/instructor-guide.md's sizing block written from
them, every number marked measured (on the hub, by benchmarks/hub.py), documented (a hub's documentation) or
assumed.

Also what the hub run reads and runs: a process's peak memory and CPU from /proc, and the code that moves every
dashboard's controls in a learner's kernel.

    python benchmarks/hub.py --from-json    # the guide's block (and hub.md) again from benchmarks/results/hub.json

Until issue 21 this file measured on its own (a kernel per notebook with nbclient, and one learner on ``jupyter lab``,
no hub); the hub run measures both on the hub itself, so those measurements and their results (sizing.md,
sizing.json) went.
"""
from __future__ import annotations

import ast
import math
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

from course_utils.content import notebooks  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = Path(__file__).resolve().parent
GUIDE = ROOT / "docs" / "instructor-guide.md"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
MIB = 1024 * 1024

#: The course's notebooks and its optional follow-ups, by number (course_utils/content/notebooks.toml): the workshop's
#: are the others. A measurement of a notebook the course no longer lists (a fork that dropped it) is left out.
LISTED = tuple(notebook.number for notebook in notebooks())
OPTIONAL = tuple(notebook.number for notebook in notebooks() if notebook.optional)


# -- reading a process ---------------------------------------------------------------------------------------

def proc_status(pid):
    """VmHWM (peak resident) and VmRSS (resident now) of a process, in bytes, from /proc/<pid>/status."""
    values = {}
    with open(f"/proc/{pid}/status", encoding="utf-8") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmHWM", "VmRSS"):
                values[key] = int(rest.split()[0]) * 1024  # reported in kB
    return values


def cpu_parts(pid):
    """(own, children): user + system CPU seconds of a process, and of its children it has waited for
    (/proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    utime, stime, cutime, cstime = (int(v) for v in fields[11:15])  # fields 14-17 of proc(5)
    return (utime + stime) / CLOCK_TICKS, (cutime + cstime) / CLOCK_TICKS


def cpu_seconds(pid):
    """User + system CPU seconds of a process and of its children it has waited for (/proc/<pid>/stat)."""
    return sum(cpu_parts(pid))


# -- moving every dashboard ----------------------------------------------------------------------------------

def _function_source(path, name):
    """The source of a top-level function of a file and of the top-level functions it calls, in file order (so
    the kernel runs the benchmarks' own helper, whatever helpers it is made of)."""
    text = path.read_text(encoding="utf-8")
    functions = {n.name: n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)}
    needed, todo = set(), [name]
    while todo:
        current = todo.pop()
        if current in needed:
            continue
        needed.add(current)
        todo += [n.id for n in ast.walk(functions[current]) if isinstance(n, ast.Name) and n.id in functions]
    nodes = sorted((functions[n] for n in needed), key=lambda node: node.lineno)
    return "\n\n".join(ast.get_source_segment(text, node) for node in nodes)


def move_code(moves):
    """Code run in the kernel after Run All: every live Dashboard gets each control moved ``moves`` times
    (between its value and benchmarks/widgets.py's ``other_value``), each move redrawing and updating the
    displayed picture; prints a JSON list of the controls moved."""
    return "\n".join([
        "import gc as _gc, json as _json",
        "from course_utils.widgets import Dashboard as _Dashboard",
        _function_source(BENCHMARKS / "widgets.py", "other_value"),
        "_moved = []",
        "for _d in [_o for _o in _gc.get_objects() if isinstance(_o, _Dashboard)]:",
        "    for _name, _control in list(_d.controls.items()):",
        "        _first, _second = _control.value, other_value(_control)",
        "        if _second is None:",
        "            continue",
        f"        for _i in range({moves}):",
        "            _control.value = _second if _i % 2 == 0 else _first",
        "        _control.value = _first",
        "        _moved.append(type(_d).__name__ + '.' + _name)",
        "print(_json.dumps(_moved))",
    ])


# -- from measurements to sizes ------------------------------------------------------------------------------

def short_error(exc):
    """One line for a table cell: the exception's type and the first line of its message."""
    name, text = getattr(exc, "ename", None) or type(exc).__name__, getattr(exc, "evalue", None) or str(exc)
    first = (text.strip().splitlines() or [""])[0].replace("|", "/")
    return f"error: {name}: {first[:80]}"


def mib(value):
    return f"{value / MIB:.0f}"


def round_up(value_bytes, step_mib=128):
    """Bytes rounded up to a multiple of ``step_mib`` MiB, in MiB."""
    return int(math.ceil(value_bytes / MIB / step_mib) * step_mib)


HEADROOM = 0.3  # on top of the measured peaks (TLJH's documentation suggests 20-40 %)

#: Assumptions of the sizing table, each stated in the results and in docs/instructor-guide.md.
ROOM_SIZES = (30, 100, 300)
TLJH_MAX_USERS = 100  # The Littlest JupyterHub's documentation: "1-100 users on a single server"
TLJH_OVERHEAD_MIB = 128  # TLJH's resource-estimation page: 128 MB for TLJH and its services
Z2JH_HUB_MIB = 512  # JupyterHub's capacity-planning page: ~500 MB is generous for the hub and the proxy
OS_MIB = 1024  # the operating system and page cache of a machine or node (assumed)
CONCURRENCY = 1.0  # a live workshop: every learner at once (TLJH suggests 40-60 % for a term-long class)
BURST_SECONDS = 30  # the whole room presses Run All at once: done within this many seconds (assumed target)
MINUTE_ONE_SECONDS = 60  # the whole room clicks the link at once: notebook 00 done within a minute (assumed target)


def plan(figures, headroom=HEADROOM):
    """Per-user memory for the workshop notebooks ("core": 00-05 and 08) and, when measured, with the optional 06-07.

    ``figures`` (benchmarks/hub.py's ``sizing_figures``): ``server_peak`` (bytes, the largest single-user server
    peak over the learners) and ``kernel_peaks`` ({"00": bytes, ...}, each notebook's largest kernel peak).
    Two ways a learner's session ends:

    - nothing closed: the server and every kernel of the session alive at its peak (JupyterLab keeps a kernel
      when its tab closes); x (1 + headroom), rounded up to 128 MiB, is the **limit** to set;
    - closing as they go (File > Close and Shut Down Notebook, or kernels culled): the server and the two
      largest kernels (the notebook in use and the previous one); x (1 + headroom), rounded up, is the
      **guarantee** to set.
    """
    peaks = {n: peak for n, peak in figures["kernel_peaks"].items() if n in LISTED}
    server_peak = figures["server_peak"]
    out = {}
    for name, keep in (("core", lambda n: n not in OPTIONAL), ("core + optional", lambda n: True)):
        if name != "core" and not any(n in OPTIONAL for n in peaks):
            continue
        chosen = sorted((p for n, p in peaks.items() if keep(n)), reverse=True)
        if not chosen:
            continue
        out[name] = {
            "notebooks": sorted(n for n in peaks if keep(n)),
            "server_peak": server_peak,
            "all_alive": server_peak + sum(chosen),
            "two_alive": server_peak + sum(chosen[:2]),
            "limit_mib": round_up((server_peak + sum(chosen)) * (1 + headroom)),
            "guarantee_mib": round_up((server_peak + sum(chosen[:2])) * (1 + headroom)),
        }
    return out


def overhead(learners, figures):
    """The hub's own memory in a room of ``learners``: (MiB, "measured" or "documented"), the larger of the hub and
    proxy measured (``hub_proxy_peak``) and what the hub's documentation gives (TLJH up to 100 learners, else Zero to
    JupyterHub's hub and proxy)."""
    documented = TLJH_OVERHEAD_MIB if learners <= TLJH_MAX_USERS else Z2JH_HUB_MIB
    measured = figures.get("hub_proxy_peak")
    if measured is not None and round(measured / MIB) >= documented:
        return round(measured / MIB), "measured"
    return documented, "documented"


def heaviest(figures):
    """The workshop notebook whose kernel start + Run All costs the most CPU (the optional ones do not count)."""
    return max((n for n in figures["notebook_cpu"] if n in LISTED and n not in OPTIONAL),
               key=lambda n: figures["notebook_cpu"][n])


def table(figures, sizes):
    """The sizing rows for 30, 100 and 300 learners (workshop notebooks), from the per-user figures.

    memory = concurrent users x per-user memory (limit: nothing closed; guarantee: closing as they go)
             + the hub and proxy (:func:`overhead`) + the OS.
    CPU cores, the larger of two bursts of the whole room at once:
    - minute one: (minute one CPU s of the new flow + the hub's and proxy's share) x users within MINUTE_ONE_SECONDS;
    - Run All: the heaviest workshop notebook's kernel start + Run All CPU s x users within BURST_SECONDS.
    """
    core = sizes.get("core")
    if not core:
        return []
    top = heaviest(figures)
    minute_one = figures["minute_one_cpu"]["new"] + figures["hub_proxy_minute_one_cpu"]
    rows = []
    for learners in ROOM_SIZES:
        users = math.ceil(learners * CONCURRENCY)
        hub_mib, hub_mark = overhead(learners, figures)
        cores_minute_one = math.ceil(users * minute_one / MINUTE_ONE_SECONDS)
        cores_run_all = math.ceil(users * figures["notebook_cpu"][top] / BURST_SECONDS)
        rows.append({
            "learners": learners, "users": users,
            "hub": "The Littlest JupyterHub, one machine" if learners <= TLJH_MAX_USERS else "Zero to JupyterHub (Kubernetes)",
            "nothing_closed_gib": (users * core["limit_mib"] + hub_mib + OS_MIB) / 1024,
            "closing_gib": (users * core["guarantee_mib"] + hub_mib + OS_MIB) / 1024,
            "overhead_mib": hub_mib, "overhead_mark": hub_mark,
            "cores_minute_one": cores_minute_one, "cores_run_all": cores_run_all,
            "cores": max(2, cores_minute_one, cores_run_all),
            "heaviest": top, "heaviest_cpu": figures["notebook_cpu"][top], "minute_one_cpu": minute_one,
        })
    return rows


GUIDE_BEGIN = "<!-- sizing: generated by benchmarks/hub.py (benchmarks/sizing.py) from benchmarks/results/hub.json -->"
GUIDE_END = "<!-- sizing: end -->"


def _gib(mib_value):
    return f"{mib_value / 1024:.0f} GiB" if mib_value >= 10 * 1024 else f"{mib_value / 1024:.1f} GiB"


def _kernels(figures, group):
    chosen = [figures["kernel_peaks"][n] for n in group["notebooks"]]
    return f"{len(chosen)} kernels, {mib(min(chosen))}-{mib(max(chosen))} MiB each"


def per_user_rows(figures, sizes):
    rows = []
    for name, group in sizes.items():
        label = ("workshop notebooks " + ", ".join(group["notebooks"]) if name == "core" else
                 "with the optional " + ", ".join(n for n in group["notebooks"] if n in OPTIONAL))
        rows.append([label, f"{mib(group['server_peak'])} MiB", _kernels(figures, group),
                     f"**{group['limit_mib']} MiB**", f"**{group['guarantee_mib']} MiB**"])
    return rows


def guide_block(figures, sizes):
    """The sizing section's tables for docs/instructor-guide.md, every number marked measured (on the hub),
    documented (a hub's documentation) or assumed. Empty when the figures are incomplete."""
    rows = table(figures, sizes)
    if not rows:
        return ""
    core, first = sizes["core"], rows[0]
    names = figures.get("notebook_names", {})
    room = [[r["learners"], r["hub"], f"{r['users']}", _gib(r["nothing_closed_gib"] * 1024), _gib(r["closing_gib"] * 1024),
             f"{r['overhead_mib']} MiB ({r['overhead_mark']})", f"{r['cores_minute_one']}", f"{r['cores_run_all']}",
             f"**{r['cores']}**"] for r in rows]
    return "\n".join([
        f"Per learner (measured on a JupyterHub with {figures['learners']} learners at once, {figures['machine']}: the "
        "single-user server and one kernel per notebook, Run All of the solved notebooks and every dashboard moved; the "
        f"largest peak over the learners; +{HEADROOM:.0%} headroom, assumed, as TLJH's documentation advises 20-40 %):",
        "",
        _common.markdown_table(
            ["notebooks", "single-user server (measured)", "kernels (measured)", "limit: server + every kernel",
             "guarantee: server + 2 kernels"], per_user_rows(figures, sizes)),
        "",
        "For the room: the concurrent learners are all of them (assumed, a live workshop). Memory = concurrent x per "
        f"learner + the hub and proxy (the larger of {mib(figures['hub_proxy_peak'])} MiB measured with "
        f"{figures['learners']} learners and the documented {TLJH_OVERHEAD_MIB} MiB of TLJH or {Z2JH_HUB_MIB} MiB of "
        f"Zero to JupyterHub) + {OS_MIB // 1024} GiB for the system (assumed). CPU cores: the larger of two bursts of "
        f"the whole room at once, minute one (the click to notebook 00 done: {first['minute_one_cpu']:.1f} CPU s per "
        f"learner, measured, the hub's and proxy's share included) done within {MINUTE_ONE_SECONDS} s, and Run All of "
        f"{names.get(first['heaviest'], first['heaviest'])} ({first['heaviest_cpu']:.1f} CPU s per learner with its "
        f"kernel's start, measured) done within {BURST_SECONDS} s (both targets assumed):",
        "",
        _common.markdown_table(
            ["learners", "hub", "concurrent (assumed)", "memory, nothing closed (limit)",
             "memory, closing as they go (guarantee)", "hub + proxy", "cores: minute one", "cores: Run All",
             "CPU cores"], room),
        "",
        minute_one_sentence(figures),
        "",
        "Settings for the workshop notebooks (M = MiB in both):",
        "",
        "```text",
        "# The Littlest JupyterHub: a limit only (no guarantee: the machine's memory is what users share)",
        f"sudo tljh-config set limits.memory {core['limit_mib']}M",
        "sudo tljh-config reload",
        "",
        "# Zero to JupyterHub: config.yaml",
        "singleuser:",
        "  memory:",
        f"    limit: {core['limit_mib']}M",
        f"    guarantee: {core['guarantee_mib']}M",
        "```",
    ])


def minute_one_sentence(figures):
    """Minute one as the measuring room lived it (its wall seconds) and, when measured, the old flow's CPU beside
    today's."""
    wall, cpu = figures.get("minute_one_wall") or {}, figures["minute_one_cpu"]
    text = ""
    if wall.get("median") is not None:
        text = (f"With {figures['learners']} learners clicking at once on the measuring machine, minute one (the click "
                f"to notebook 00 done) took {wall['median']:.0f} s for the median learner and {wall['max']:.0f} s for "
                "the slowest.")
    if cpu.get("old") is not None:
        text += (f"{' ' if text else ''}With the old step 3 of this guide (each learner typing `pip install -e .` "
                 f"into a terminal), minute one cost {cpu['old']:.1f} CPU s per learner, against {cpu['new']:.1f} today "
                 "(means, measured in the same run, every other learner doing the old step; the hub's share not "
                 "included).")
    return text


def replace_block(text, block):
    """``text`` (the guide) with what lies between GUIDE_BEGIN (or an older begin marker of this block) and GUIDE_END
    replaced by ``block``. ValueError when the markers are missing."""
    match = re.search(r"<!-- sizing: generated by [^\n]*-->\n(.*?)" + re.escape(GUIDE_END), text, re.DOTALL)
    if not match:
        raise ValueError(f"no '<!-- sizing: generated by ... -->' ... '{GUIDE_END}' block")
    return text[:match.start()] + GUIDE_BEGIN + "\n" + block.strip() + "\n" + text[match.end() - len(GUIDE_END):]


def guide_section(text):
    """The block between the guide's markers (stripped), or None."""
    start, end = text.find(GUIDE_BEGIN), text.find(GUIDE_END)
    if not 0 <= start < end:
        return None
    return text[start + len(GUIDE_BEGIN):end].strip()


def write_guide(figures, sizes, path=GUIDE):
    """Write the sizing block into the guide between its markers (the rest of the guide is left as it is)."""
    text = path.read_text(encoding="utf-8")
    path.write_text(replace_block(text, guide_block(figures, sizes)), encoding="utf-8")
    print(f"wrote the sizing block of {path}")
