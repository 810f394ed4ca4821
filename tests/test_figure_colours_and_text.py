"""Colour and text size of every figure, measured (issue 12).

Figures: every dashboard of ``course_utils.widgets`` (at its defaults, then after moving its controls: every
combination of the controls' ends, and each slider's middle; ``dashboard_states``; the training dashboard from
tests/widget_helpers.py's small training run), every drawing function of ``course_utils.plots`` (new figures and
updated ones), and every figure of every solved notebook, recorded in a fresh kernel by a small hook
(``figure_audit.install_notebook_hook``) at ``plt.show()`` or at the end of its cell, and each dashboard at the end of
the cell that built it. When nbval runs the solved notebooks in the same session (``make test``), conftest.py puts
the hook in their kernels (the figures are then drawn and shown as usual) and this module, run after them, reads
what it recorded: no notebook runs twice. A notebook the session did not run in full runs here (nbclient, as
``make solutions`` runs it, nothing saved, figures recorded without rendering their pictures), in the background,
two kernels at a time, while the dashboards and plots are measured.

1. Colour. A figure's categories are the distinct colours that mean different things in it; the rule (what counts,
   what does not: shades of a continuous map, black text, hatched blocked cells, neutral reference lines) is in
   ``tests/figure_audit.py``'s docstring. Every two categories of a figure must differ by a CIEDE2000 of at least
   ``MIN_DELTA_E`` (10) with normal vision and as simulated for protanopia, deuteranopia and tritanopia (Machado,
   Oliveira and Fernandes 2009, severity 1.0, in linear RGB; ``tests/colour_vision.py``, whose CIEDE2000 is checked
   here against the 34 published pairs of Sharma, Wu and Dalal 2005). Continuous colour maps must be in the
   viridis family (viridis, cividis, plasma, inferno, magma). The smallest difference of each figure under each
   deficiency is printed (``pytest -s``) and written to ``test-artifacts/colour/min_delta_e.md``.
2. Text size. Every text a figure draws (titles, axis and tick labels, annotations, legends, cell numbers, colour-bar
   labels) is at least ``MIN_FONT_PT`` (8) points at the figure's dpi (the picture shown at 100 %).

Run time alone: about 20 to 30 s on a 2-core machine, nearly all of it the notebooks (``pytest -s`` prints it).
"""
import matplotlib

matplotlib.use("Agg")

import asyncio  # noqa: E402
import functools  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import ipywidgets  # noqa: E402
import matplotlib.colors as mcolors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from colour_vision import DEFICIENCIES, ciede2000, simulate, srgb_to_lab  # noqa: E402  (tests/colour_vision.py)
from figure_audit import CONTINUOUS_FAMILY, audit, categories  # noqa: E402  (tests/figure_audit.py)
from matplotlib.figure import Figure  # noqa: E402
from widget_helpers import dashboard_classes, make_dashboard  # noqa: E402  (tests/widget_helpers.py)

import course_utils as cu  # noqa: E402
from course_utils import plots, style  # noqa: E402
from course_utils.lessons.data import ARTICLE_SCORES, ARTICLE_TOKENS, ARTICLE_VALUES  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
SOLVED = sorted((ROOT / "solutions").glob("*.ipynb"))
REPORT_PATH = ROOT / "test-artifacts" / "colour" / "min_delta_e.md"

#: The smallest CIEDE2000 difference allowed between two categories of a figure, under every deficiency.
MIN_DELTA_E = 10.0
#: The smallest text allowed, in points at the figure's dpi.
MIN_FONT_PT = 8.0
#: Vision simulated: normal (None), then the three dichromacies.
VISIONS = (None, *DEFICIENCIES)
#: Notebook kernels run at once (the machines that run the tests have two cores or more).
KERNELS_AT_ONCE = 2
#: Functions of course_utils.plots that draw nothing (the rest must be covered by plot_figures).
PLOTS_THAT_DRAW_NOTHING = {"Heatmap", "cell_text_colour", "contrasting_text_colour", "convex_hull",
                           "describe", "description"}  # the last two: a figure's alt text

COLOUR_NAMES = {mcolors.to_hex(getattr(style, name)).upper(): name for name in style.__all__
                if isinstance(getattr(style, name), str) and getattr(style, name).startswith("#")}
COLOUR_NAMES.update({"#000000": "black", "#FFFFFF": "white"})

#: CIEDE2000 test data of Sharma, Wu and Dalal (2005), table 1: L1, a1, b1, L2, a2, b2, delta E 2000.
SHARMA_2005 = np.array([
    (50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425),
    (50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615),
    (50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412),
    (50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669),
    (50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461),
    (50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065),
    (50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492),
    (50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977),
    (50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030),
    (50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000),
    (60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644),
    (63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630),
    (61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731),
    (35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645),
    (22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373),
    (36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146),
    (90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441),
    (90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381),
    (6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377),
    (2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082),
])


# --------------------------------------------------------------------------- the measures
def colour_name(hex_colour):
    return COLOUR_NAMES.get(hex_colour, hex_colour)


def closest_pair(hex_colours, vision):
    """(delta E, colour a, colour b): the two categories closest under ``vision`` (None for normal vision)."""
    rgb = np.array([mcolors.to_rgb(c) for c in hex_colours])  # (n, 3)
    lab = srgb_to_lab(simulate(rgb, vision))  # (n, 3)
    return min((float(ciede2000(lab[i], lab[j])), hex_colours[i], hex_colours[j])
               for i, j in itertools.combinations(range(len(hex_colours)), 2))


def colour_rows(record):
    """{vision: (delta E, a, b)} for a figure with two categories or more, else {}."""
    colours = sorted(record["categories"])
    if len(colours) < 2:
        return {}
    return {vision: closest_pair(colours, vision) for vision in VISIONS}


# --------------------------------------------------------------------------- the figures
def control_values(control):
    """(ends, middles) of a control: a slider's minimum and maximum, and its middle; every option of a toggle;
    both states of a checkbox."""
    if isinstance(control, ipywidgets.Checkbox):
        return [False, True], []
    if isinstance(control, ipywidgets.ToggleButtons):
        return list(control._options_values), []
    if isinstance(control, ipywidgets.SelectionSlider):
        options = list(control._options_values)
        return [options[0], options[-1]], [options[len(options) // 2]]
    if isinstance(control, (ipywidgets.IntSlider, ipywidgets.FloatSlider)):
        middle = control.min + (control.max - control.min) / 2
        if isinstance(control, ipywidgets.IntSlider):
            middle = int(round(middle))
        else:
            middle = round(round(middle / control.step) * control.step, 10)
        return [control.min, control.max], [middle]
    raise AssertionError(f"no moves known for a {type(control).__name__}")


def dashboard_states(dashboard):
    """Control settings to measure: the defaults; every combination of the controls' ends (each slider at its
    minimum or maximum, each toggle option, each checkbox state); each slider's middle with the others at their
    defaults. Applied control by control, in the dashboard's order, each value clamped into the range the
    control has then (the head slider's maximum follows the number of heads)."""
    defaults = dashboard.values
    ends, middles = {}, {}
    for name, control in dashboard.controls.items():
        ends[name], middles[name] = control_values(control)
    states = [dict(defaults)]
    states += [dict(zip(ends, combination)) for combination in itertools.product(*ends.values())]
    states += [{**defaults, name: value} for name, values in middles.items() for value in values]
    return states


def apply_state(dashboard, state):
    for name, value in state.items():
        control = dashboard.controls[name]
        if hasattr(control, "min") and hasattr(control, "max"):
            value = min(max(value, control.min), control.max)
        dashboard.set(**{name: value})


def dashboard_figures(cls):
    """Audits of a dashboard at each distinct setting of dashboard_states."""
    dashboard = make_dashboard(cls)
    try:
        defaults = dashboard.values
        records, seen = [], set()
        for state in dashboard_states(dashboard):
            apply_state(dashboard, state)
            values = dashboard.values
            key = tuple(sorted((name, repr(value)) for name, value in values.items()))
            if key in seen:
                continue
            seen.add(key)
            moved = ", ".join(f"{name}={value}" for name, value in values.items() if value != defaults[name])
            records.append(audit(dashboard.fig, moved or "defaults"))
        return records
    finally:
        dashboard.close()


def plot_figures():
    """Audits of a figure made by each drawing function of course_utils.plots (and of its update in place)."""
    causal = cu.causal_mask(4)  # (4, 4)
    weights = cu.softmax(np.where(causal, np.arange(16.0).reshape(4, 4) / 4, -np.inf))  # (4, 4)
    tokens = ["my", "charger", "is", "missing"]
    records = []

    def keep(fig, name):
        records.append(audit(fig, name))
        plt.close(fig)

    heatmap = plots.attention_heatmap(weights, tokens, tokens, mask=causal, colorbar=True, title="masked")
    keep(heatmap.ax.figure, "attention_heatmap(mask=..., colorbar=True)")
    heatmap = plots.attention_heatmap(cu.softmax(np.random.default_rng(0).normal(size=(12, 12))), title="12 x 12")
    plots.update_heatmap(heatmap, cu.softmax(np.random.default_rng(1).normal(size=(12, 12))))
    keep(heatmap.ax.figure, "attention_heatmap (12 x 12, no numbers), update_heatmap")
    fig = Figure(figsize=(9, 3.6), layout="constrained")
    axes = fig.subplots(1, 2)
    plots.attention_heatmap(weights, tokens, tokens, ax=axes[0], title="left")
    plots.attention_heatmap(weights.T, tokens, tokens, ax=axes[1], title="right")
    plots.weight_colorbar(axes)
    keep(fig, "weight_colorbar (two heatmaps)")
    fig = Figure(figsize=(4, 4))
    ax = fig.add_subplot()
    ax.imshow(np.zeros((3, 3)), cmap=style.HEATMAP_CMAP, vmin=0, vmax=1)
    plots.blocked_cell_grid(ax, 3)[0, 2].set_visible(True)
    ax.add_patch(plots.blocked_cell_patch(1, 2))
    keep(fig, "blocked_cell_patch, blocked_cell_grid")
    bars = plots.attention_row_bars(cu.softmax(ARTICLE_SCORES), ARTICLE_TOKENS, title="one row")
    plots.update_row_bars(bars, cu.softmax(-np.asarray(ARTICLE_SCORES)))
    keep(bars.patches[0].axes.figure, "attention_row_bars, update_row_bars")
    hull = plots.value_hull_plot(ARTICLE_VALUES, cu.softmax(ARTICLE_SCORES), ARTICLE_TOKENS)
    plots.update_value_hull(hull, cu.softmax(-np.asarray(ARTICLE_SCORES)))
    keep(hull["ax"].figure, "value_hull_plot, update_value_hull")
    return records


PLOT_FUNCTIONS_COVERED = {"attention_heatmap", "update_heatmap", "weight_colorbar", "blocked_cell_patch",
                          "blocked_cell_grid", "attention_row_bars", "update_row_bars", "value_hull_plot",
                          "update_value_hull"}


# --------------------------------------------------------------------------- the notebooks, in their kernels
HOOK = """import sys
sys.path.insert(0, {tests!r})
import figure_audit  # tests/figure_audit.py: records every figure's categories, colour maps and texts
sys.path.remove({tests!r})
figure_audit.install_notebook_hook()"""


def cell_ids(nb):
    """{source: id} of a notebook's code cells (the first cell of a source)."""
    ids = {}
    for cell in nb.cells:
        if cell.cell_type == "code":
            ids.setdefault(cell.source, cell.get("id"))
    return ids


def named_records(records, ids):
    """The kernel's figure records, each named by its cell's id and its number in that cell."""
    for record in records:
        record["cell"] = ids.get(record.pop("cell_source"), "?")
        record["figure"] = f"{record['cell']} #{record['index']}" + (
            f" ({record['figure']})" if record["figure"] != "figure" else "")
    return records


def run_notebooks(paths, out_dir):
    """{notebook stem: list of figure records, or the error text}: each solved notebook run in a fresh kernel."""
    import build
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    manager_class = build._current_env_kernel_manager_class()
    results = {}

    async def run(path, gate):
        nb = nbformat.read(path, as_version=4)
        ids = cell_ids(nb)
        out = Path(out_dir) / f"{path.stem}.json"
        nb.cells.insert(0, nbformat.v4.new_code_cell(HOOK.format(tests=str(TESTS))))
        nb.cells.append(nbformat.v4.new_code_cell(f"figure_audit.dump_records({str(out)!r})"))
        client = NotebookClient(nb, timeout=build.CELL_TIMEOUT, kernel_name=build.KERNEL_NAME,
                                kernel_manager_class=manager_class, record_timing=False,
                                resources={"metadata": {"path": str(path.parent)}})
        async with gate:
            try:
                await client.async_execute()
            except (CellExecutionError, CellTimeoutError, DeadKernelError) as err:
                results[path.stem] = f"the notebook failed: {str(err)[-2000:]}"
                return
        results[path.stem] = named_records(json.loads(out.read_text(encoding="utf-8")), ids)

    async def main():
        gate = asyncio.Semaphore(KERNELS_AT_ONCE)
        # the longest first, so that the two kernels finish together
        order = sorted(paths, key=lambda p: p.stem.startswith(("07", "05", "04", "03")), reverse=True)
        await asyncio.gather(*(run(path, gate) for path in order))

    asyncio.run(main())
    return results


class NotebookRun:
    """The figures of the solved notebooks: those of the session's nbval run when it ran them in full (conftest.py
    records them, drawn as usual, in the same kernels: no notebook runs twice), the others run here in a background
    thread, started by the first test that needs them."""

    def __init__(self):
        self.thread = None
        self.results = None
        self.error = None
        self.seconds = None
        self.session = {}  # stem -> figure records of nbval's run, or the failure text

    def take_from_session(self, runs):
        """Take the figures nbval's run of each solved notebook recorded (``runs``: conftest's OfflineKernels)."""
        for path in SOLVED:
            found = runs.figure_records(path)
            if found is None:
                continue
            record = runs.record(path)
            if record["failed"]:
                self.session[path.stem] = ("the notebook failed under nbval in this session:\n"
                                           + "\n".join(record["failed"])[-2000:])
            else:
                ids = cell_ids(nbformat.read(path, as_version=4))
                self.session[path.stem] = named_records(json.loads(found.read_text(encoding="utf-8")), ids)

    def start(self):
        if self.thread is not None:
            return
        missing = [path for path in SOLVED if path.stem not in self.session]

        def target():
            start = time.perf_counter()
            try:
                with tempfile.TemporaryDirectory() as out_dir:
                    self.results = run_notebooks(missing, out_dir) if missing else {}
            except Exception as err:  # reported by the tests that need the results
                self.error = err
            self.seconds = time.perf_counter() - start if missing else None

        self.thread = threading.Thread(target=target, daemon=True)
        self.thread.start()

    def wait(self):
        if self.thread is not None:
            self.thread.join()  # also at the end of the module: no kernel is left behind

    def records(self, stem):
        if stem in self.session:
            result = self.session[stem]
        else:
            self.start()
            self.wait()
            if self.error is not None:
                raise self.error
            result = self.results[stem]
        if isinstance(result, str):
            pytest.fail(f"{stem}: {result}")
        return result


NOTEBOOKS = NotebookRun()
SOURCES = ([f"dashboard {cls.__name__}" for cls in dashboard_classes()] + ["plots"]
           + [f"notebook {path.stem}" for path in SOLVED])


@functools.cache
def figures_of(source):
    """The audits of one source's figures."""
    kind, _, name = source.partition(" ")
    if kind == "dashboard":
        (cls,) = [cls for cls in dashboard_classes() if cls.__name__ == name]
        return dashboard_figures(cls)
    if kind == "plots":
        return plot_figures()
    return NOTEBOOKS.records(name)


REPORT = {}  # source -> [(figure, {vision: (delta E, a, b)}, categories)]


@pytest.fixture(scope="module", autouse=True)
def notebooks_in_the_background(request, offline_kernels):
    """Take the figures of the notebooks nbval ran in this session; start the others at once when any notebook
    figure is tested; write the report at the end."""
    NOTEBOOKS.take_from_session(offline_kernels)
    if any("notebook " in item.name for item in request.session.items
           if getattr(item, "module", None) is request.module):  # notebook cells have no module
        NOTEBOOKS.start()
    start = time.perf_counter()
    yield
    NOTEBOOKS.wait()
    if REPORT:
        write_report(time.perf_counter() - start)


def format_delta(row):
    delta, a, b = row
    return f"{delta:.1f}"


def write_report(seconds):
    lines = [
        "# Smallest CIEDE2000 difference between two categories of a figure",
        "",
        f"Written by tests/test_figure_colours_and_text.py. Each figure's category colours (rule: tests/figure_audit.py) "
        f"compared pairwise with normal vision and as simulated for each dichromacy (Machado et al. 2009, severity 1.0); "
        f"required: at least {MIN_DELTA_E:g}. A dashboard's row is its smallest value over its defaults and every "
        f"control move measured; '-' means fewer than two categories.",
        "",
        "| figure | categories | normal | protanopia | deuteranopia | tritanopia | closest pair (its deficiency) |",
        "|---|---|---|---|---|---|---|",
    ]
    summary = []
    for source in SOURCES:
        if source not in REPORT:
            continue
        figures = REPORT[source]
        if source.startswith(("dashboard", "plots")):
            rows = [fig for fig in figures if fig[1]]
            colours = sorted({c for fig in figures for c in fig[2]})
            if source.startswith("dashboard"):
                merged = {vision: min(fig[1][vision] for fig in rows) for vision in VISIONS} if rows else {}
                figures = [(f"all {len(REPORT[source])} states", merged, colours)]
        for name, rows, colours in figures:
            cells = [format_delta(rows[vision]) if rows else "-" for vision in VISIONS]
            if rows:
                worst = min(DEFICIENCIES, key=lambda vision: rows[vision][0])
                _, a, b = rows[worst]
                pair = f"{colour_name(a)} / {colour_name(b)} ({worst})"
            else:
                pair = ""
            label = f"{source}: {name}"
            lines.append(f"| {label} | {', '.join(colour_name(c) for c in colours)} | " + " | ".join(cells) + f" | {pair} |")
            summary.append((label, cells))
    notebooks = f" (the notebooks, in the background: {NOTEBOOKS.seconds:.1f} s)" if NOTEBOOKS.seconds else ""
    if NOTEBOOKS.session:
        notebooks += f" ({len(NOTEBOOKS.session)} notebooks' figures recorded in nbval's run of this session)"
    lines += ["", f"Measured in {seconds:.1f} s{notebooks}."]
    REPORT_PATH.parent.mkdir(parents=True, exist_ok=True)
    REPORT_PATH.write_text("\n".join(lines) + "\n", encoding="utf-8")
    width = max(len(label) for label, _ in summary)
    print(f"\n\nSmallest CIEDE2000 between two categories (written to {REPORT_PATH.relative_to(ROOT)}):")
    print(f"{'figure':<{width}}  {'normal':>7} {'protan':>7} {'deutan':>7} {'tritan':>7}")
    for label, cells in summary:
        print(f"{label:<{width}}  " + " ".join(f"{cell:>7}" for cell in cells))
    print(f"(measured in {seconds:.1f} s{notebooks})")


# --------------------------------------------------------------------------- the colour science, checked
def test_ciede2000_gives_the_published_differences_of_sharma_wu_and_dalal():
    lab1, lab2, expected = SHARMA_2005[:, :3], SHARMA_2005[:, 3:6], SHARMA_2005[:, 6]
    np.testing.assert_allclose(ciede2000(lab1, lab2), expected, atol=1e-4)  # the table gives 4 decimals
    np.testing.assert_allclose(ciede2000(lab2, lab1), expected, atol=1e-4)  # and the formula is symmetric
    assert ciede2000(lab1[16], lab1[16]) == 0.0


def test_cielab_of_known_colours():
    np.testing.assert_allclose(srgb_to_lab([1.0, 1.0, 1.0]), [100.0, 0.0, 0.0], atol=1e-3)
    np.testing.assert_allclose(srgb_to_lab([0.0, 0.0, 0.0]), [0.0, 0.0, 0.0], atol=1e-9)
    np.testing.assert_allclose(srgb_to_lab([1.0, 0.0, 0.0]), [53.24, 80.09, 67.20], atol=0.05)  # sRGB red, D65
    np.testing.assert_allclose(srgb_to_lab([0.0, 0.0, 1.0]), [32.30, 79.19, -107.86], atol=0.05)
    np.testing.assert_allclose(srgb_to_lab([0.5, 0.5, 0.5])[1:], [0.0, 0.0], atol=1e-3)  # a grey stays neutral


def test_the_simulations_keep_greys_and_confuse_red_with_green():
    for vision in DEFICIENCIES:
        np.testing.assert_allclose(simulate([[1.0, 1.0, 1.0], [0.6, 0.6, 0.6]], vision),
                                   [[1.0, 1.0, 1.0], [0.6, 0.6, 0.6]], atol=2e-3)
    red, green = "#E66100", "#00A000"  # a red-orange and a green of about one lightness: apart, until red-green CVD
    assert closest_pair([red, green], None)[0] > 40
    assert closest_pair([red, green], "deuteranopia")[0] < MIN_DELTA_E
    assert closest_pair([red, green], "protanopia")[0] < MIN_DELTA_E
    assert closest_pair([style.BLUE, style.YELLOW], "tritanopia")[0] > MIN_DELTA_E


def test_the_category_rule_finds_bars_legend_lines_and_coloured_text_and_skips_ink_and_hatching():
    fig = Figure()
    ax = fig.add_subplot()
    ax.bar([0, 1, 2], [1, 2, 3], color=[style.BLUE, style.ORANGE, style.LIGHT_GREY])
    ax.plot([0, 2], [1, 1], color=style.GREY, label="theory")  # a grey in a legend: a category
    ax.axhline(0.5, color=style.DARK_GREY)  # a neutral reference line: ink
    ax.axhspan(0, 0.2, color=style.LIGHT_GREY, zorder=0)  # a background span: ink
    ax.add_patch(plots.blocked_cell_patch(0, 0))  # hatched: its pattern carries the meaning
    ax.text(0, 3, "no key", color=style.VERMILLION)
    ax.text(0, 2, "note", color=style.DARK_GREY)  # grey text: ink
    ax.imshow(np.eye(3), cmap=style.HEATMAP_CMAP)  # shades of a continuous map: not categories
    ax.legend()
    found = categories(fig)
    assert set(found) == {style.BLUE, style.ORANGE, style.LIGHT_GREY, style.GREY, style.VERMILLION}, found


def test_a_red_green_figure_fails_the_measure():
    fig = Figure()
    ax = fig.add_subplot()
    ax.plot([0, 1], color="#E66100", label="loss")
    ax.plot([1, 0], color="#00A000", label="accuracy")
    ax.legend()
    rows = colour_rows(audit(fig, "red and green"))
    assert rows[None][0] > MIN_DELTA_E and rows["deuteranopia"][0] < MIN_DELTA_E


# --------------------------------------------------------------------------- coverage of the figures
def test_every_drawing_function_of_plots_is_measured():
    public = set(plots.__all__)
    assert PLOT_FUNCTIONS_COVERED <= public
    assert not public - PLOTS_THAT_DRAW_NOTHING - PLOT_FUNCTIONS_COVERED, "add the new function to plot_figures"


# --------------------------------------------------------------------------- 1. colour
@pytest.mark.parametrize("source", SOURCES)
def test_categories_stay_apart_with_every_colour_vision_deficiency(source):
    figures, failures = [], []
    for record in figures_of(source):
        rows = colour_rows(record)
        figures.append((record["figure"], rows, sorted(record["categories"])))
        for vision, (delta, a, b) in rows.items():
            if delta < MIN_DELTA_E:
                failures.append(f"{record['figure']}: {colour_name(a)} ({'; '.join(record['categories'][a][:2])}) vs "
                                f"{colour_name(b)} ({'; '.join(record['categories'][b][:2])}): delta E {delta:.1f} "
                                f"with {vision or 'normal vision'}")
    REPORT[source] = figures
    measured = [rows for _, rows, _ in figures if rows]
    if measured:
        lows = "  ".join(f"{vision or 'normal'} {min(rows[vision][0] for rows in measured):.1f}" for vision in VISIONS)
        print(f"\n{source}: {len(figures)} figures, smallest delta E: {lows}")
    assert not failures, "categories too close:\n" + "\n".join(failures)


@pytest.mark.parametrize("source", SOURCES)
def test_continuous_colour_maps_are_in_the_viridis_family(source):
    family = set(CONTINUOUS_FAMILY) | {f"{name}_r" for name in CONTINUOUS_FAMILY}
    others = sorted({(name, f"{record['figure']}: {where}") for record in figures_of(source)
                     for name, where in record["colour_maps"] if name not in family})
    assert not others, f"colour maps outside {CONTINUOUS_FAMILY}: {others}"


# --------------------------------------------------------------------------- 2. text size
@pytest.mark.parametrize("source", SOURCES)
def test_no_text_is_smaller_than_8_points(source):
    records = figures_of(source)
    assert all(record["texts"] for record in records), "a figure drew no text: the measure saw nothing"
    small = sorted({(size, f"{record['figure']}: {where}: {text!r}") for record in records
                    for text, size, where, _ in record["texts"] if size < MIN_FONT_PT})
    assert not small, f"text below {MIN_FONT_PT:g} pt:\n" + "\n".join(f"{size:g} pt  {what}" for size, what in small[:30])


# --------------------------------------------------------------------------- the notebooks' figures, all measured
@pytest.mark.parametrize("path", SOLVED, ids=lambda p: p.stem)
def test_every_plotting_cell_of_a_solved_notebook_is_measured(path):
    plotting = [cell.get("id") for cell in nbformat.read(path, as_version=4).cells
                if cell.cell_type == "code" and ("plt.show()" in cell.source or "Dashboard(" in cell.source)]
    measured = {record["cell"] for record in figures_of(f"notebook {path.stem}")}
    assert plotting and set(plotting) <= measured, f"not measured: {sorted(set(plotting) - measured)}"


@pytest.mark.parametrize("source", [source for source in SOURCES if source.startswith("dashboard")])
def test_no_dashboard_text_is_cut_at_the_edge_of_its_picture(source):
    """A dashboard's picture has the figure's fixed size (no tight bounding box): a text beyond it is cut."""
    cut = []
    for record in figures_of(source):
        width, height = record["size_px"]
        for text, _, where, (x0, y0, x1, y1) in record["texts"]:
            if x0 < -1 or y0 < -1 or x1 > width + 1 or y1 > height + 1:
                cut.append(f"{record['figure']}: {where}: {text!r} at x {x0:.0f}..{x1:.0f}, y {y0:.0f}..{y1:.0f} "
                           f"of {width:.0f} x {height:.0f} px")
    assert not cut, "texts cut by the picture's edge:\n" + "\n".join(cut[:20])


def test_the_mask_explorers_numbers_fit_their_cells_at_8_points():
    """Issue 12: its cell numbers grew from 7 to 8 pt; at the largest T each still takes at most 55 % of its cell."""
    from course_utils.widgets import MaskExplorerDashboard

    dashboard = MaskExplorerDashboard(length=6, padding=4, causal=False)  # T = 10: 10 x 6 cells printed
    try:
        dashboard.fig.canvas.draw()
        renderer = dashboard.fig.canvas.get_renderer()
        ax = dashboard.ax_weights
        cell_px = ax.transData.transform((1, 0))[0] - ax.transData.transform((0, 0))[0]
        texts = [text for text in dashboard.cell_texts.flat if text.get_text()]
        assert len(texts) == 60 and {text.get_fontsize() for text in texts} == {style.FONT_CELL_DENSE} == {8}
        widest = max(text.get_window_extent(renderer).width for text in texts)
        tallest = max(text.get_window_extent(renderer).height for text in texts)
        assert widest <= 0.55 * cell_px and tallest <= 0.55 * cell_px, (widest, tallest, cell_px)
    finally:
        dashboard.close()


# --------------------------------------------------------------------------- notebook 05's contribution plot
#: The cells notebook 05's contribution plot needs, in order, and the plot's own cell.
NB05_CONTRIB_CELLS = ("nb05-setup", "nb05-imports", "nb05-contrib", "nb05-contrib-vector", "nb05-contrib-plot")


def nb05_contribution_figure(monkeypatch):
    """The figure of solutions/05's cell nb05-contrib-plot, drawn by running its cells here (plt.show left out)."""
    cells = {cell.get("id"): cell.source for cell in nbformat.read(ROOT / "solutions" / "05-reading-attention-plots.ipynb",
                                                                   as_version=4).cells}
    monkeypatch.setattr(plt, "show", lambda *args, **kwargs: None)
    namespace = {}
    plt.close("all")
    for cell_id in NB05_CONTRIB_CELLS:
        exec(compile(cells[cell_id], cell_id, "exec"), namespace)  # the course's own notebook
    return plt.gcf(), namespace


def test_nb05_the_output_is_told_from_every_contribution_arrow_by_its_colour(monkeypatch, capsys):
    """A new learner could not tell the output's star from the 'please' arrow (both vermillion): the output's marker
    has a colour of its own, apart from every arrow's by a CIEDE2000 of at least 10 with every colour vision, and
    the legend shows it."""
    fig, namespace = nb05_contribution_figure(monkeypatch)
    try:
        (ax,) = fig.axes
        arrows = [text.arrow_patch for text in ax.texts if getattr(text, "arrow_patch", None) is not None]
        assert len(arrows) == len(namespace["EXPERIMENT_TOKENS"]) == 5
        arrow_colours = {mcolors.to_hex(arrow.get_edgecolor()).upper() for arrow in arrows}
        arrow_colours |= {mcolors.to_hex(arrow.get_facecolor()).upper() for arrow in arrows}
        (output,) = [line for line in ax.lines if line.get_label().startswith("output")]
        np.testing.assert_allclose(np.ravel(output.get_data()), namespace["output"])
        output_colour = mcolors.to_hex(output.get_markerfacecolor()).upper()
        assert output_colour not in arrow_colours, f"the output's {colour_name(output_colour)} is an arrow's colour"
        for vision in VISIONS:
            for arrow_colour in arrow_colours:
                delta, _, _ = closest_pair([output_colour, arrow_colour], vision)
                assert delta >= MIN_DELTA_E, (colour_name(output_colour), colour_name(arrow_colour), vision, delta)
        handles = {text.get_text(): handle for text, handle in zip(ax.get_legend().get_texts(),
                                                                    ax.get_legend().legend_handles)}
        (label,) = [label for label in handles if label.startswith("output")]
        assert mcolors.to_hex(handles[label].get_markerfacecolor()).upper() == output_colour
        assert handles[label].get_marker() == output.get_marker()
        # the words for learners who cannot see the figure say the same: the output's colour and each arrow's
        words = cu.plots.description(fig)
        assert output_colour == mcolors.to_hex(style.YELLOW).upper() and "a yellow star outlined in black" in words
        assert "charger blue, please vermillion, the others grey" in words
    finally:
        plt.close(fig)
