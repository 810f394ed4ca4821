"""Tests of course_utils.plots: returned artists, labels, annotations, errors, update paths."""
import matplotlib

matplotlib.use("Agg")

import pathlib  # noqa: E402
import warnings  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.container import BarContainer  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.image import AxesImage  # noqa: E402
from matplotlib.path import Path  # noqa: E402

from course_utils import style  # noqa: E402
from course_utils.lessons.data import ARTICLE_SCORES, ARTICLE_TOKENS, ARTICLE_VALUES  # noqa: E402
from course_utils.masks import causal_mask  # noqa: E402
from course_utils.plots import (  # noqa: E402
    Heatmap,
    attention_heatmap,
    attention_row_bars,
    cell_text_colour,
    contrasting_text_colour,
    convex_hull,
    update_heatmap,
    update_row_bars,
    update_value_hull,
    value_hull_plot,
    weight_colorbar,
)
from course_utils.softmax import softmax  # noqa: E402

ARTICLE_WEIGHTS = softmax(ARTICLE_SCORES)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture
def ax():
    return Figure().add_subplot()


def random_weights(t_q, t_k, seed=0):
    return softmax(np.random.default_rng(seed).normal(size=(t_q, t_k)), axis=-1)


def tick_texts(axis):
    return [label.get_text() for label in axis.get_ticklabels()]


# --------------------------------------------------------------------------- heatmap
def test_heatmap_returns_image_with_labels_on_both_axes(ax):
    weights = random_weights(2, 3)
    heatmap = attention_heatmap(weights, ["q0", "q1"], ["a", "b", "c"], ax=ax, title="t")
    assert isinstance(heatmap, Heatmap) and isinstance(heatmap.image, AxesImage)
    image = heatmap.image
    assert heatmap.ax is ax and list(ax.images) == [image]
    assert heatmap.shape == (2, 3) and heatmap.blocked_patches == ()
    np.testing.assert_array_equal(image.get_array(), weights)
    assert tick_texts(ax.xaxis) == ["a", "b", "c"]
    assert tick_texts(ax.yaxis) == ["q0", "q1"]
    assert "key" in ax.get_xlabel() and "attended to" in ax.get_xlabel()
    assert "query" in ax.get_ylabel() and "attending" in ax.get_ylabel()
    assert ax.get_title() == "t"
    assert image.get_cmap().name == "cividis" == style.HEATMAP_CMAP
    assert image.norm.vmin == 0.0 and image.norm.vmax == 1.0
    assert repr(heatmap) == "Heatmap(2 x 3, 0 blocked cells)"  # no memory address, for a notebook cell


def test_heatmap_returns_its_numbers_and_keeps_no_state_on_the_image(ax):
    """Issue 11: the numbers and hatched cells were private attributes set on the AxesImage."""
    weights = random_weights(2, 3)
    heatmap = attention_heatmap(weights, ax=ax)
    assert heatmap.cell_texts.shape == (2, 3)
    assert [t.get_text() for t in heatmap.cell_texts.ravel()] == [f"{w:.2f}" for w in weights.ravel()]
    assert set(heatmap.cell_texts.ravel()) == set(ax.texts)
    plain = Figure().add_subplot().imshow(weights)
    assert set(vars(heatmap.image)) == set(vars(plain))  # nothing added to matplotlib's object
    with pytest.raises(AttributeError):  # frozen: the heatmap always describes what was drawn
        heatmap.cell_texts = None
    assert (attention_heatmap(weights, ax=Figure().add_subplot(), annotate=False).cell_texts == None).all()  # noqa: E711

def test_heatmap_default_labels_are_positions(ax):
    attention_heatmap(random_weights(3, 4), ax=ax)
    assert tick_texts(ax.xaxis) == ["0", "1", "2", "3"]
    assert tick_texts(ax.yaxis) == ["0", "1", "2"]


def test_heatmap_annotates_small_matrices_with_values(ax):
    weights = random_weights(3, 4)
    attention_heatmap(weights, ax=ax)
    assert len(ax.texts) == 12
    printed = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text() for t in ax.texts}
    assert printed[(1, 2)] == f"{weights[1, 2]:.2f}"


def test_heatmap_annotation_colour_contrasts_with_cell(ax):
    attention_heatmap(np.array([[0.0, 1.0]]), ax=ax)  # cividis: 0 is dark blue, 1 is light yellow
    colours = {round(t.get_position()[0]): t.get_color() for t in ax.texts}
    assert colours == {0: "white", 1: "black"}


@pytest.mark.parametrize("shape", [(11, 11), (3, 11), (11, 2)])
def test_heatmap_no_annotation_when_larger_than_ten(ax, shape):
    attention_heatmap(random_weights(*shape), ax=ax)
    assert len(ax.texts) == 0


def test_heatmap_annotate_flag_overrides_default(ax):
    attention_heatmap(random_weights(12, 12), ax=ax, annotate=True)
    assert len(ax.texts) == 144
    other = Figure().add_subplot()
    attention_heatmap(random_weights(2, 2), ax=other, annotate=False)
    assert len(other.texts) == 0


def test_heatmap_label_length_mismatch_names_lengths_and_shape(ax):
    with pytest.raises(ValueError, match=r"query_labels has 3 labels.*2 rows.*\(2, 4\)"):
        attention_heatmap(random_weights(2, 4), ["a", "b", "c"], None, ax=ax)
    with pytest.raises(ValueError, match=r"key_labels has 2 labels.*4 columns.*\(2, 4\)"):
        attention_heatmap(random_weights(2, 4), None, ["a", "b"], ax=ax)


@pytest.mark.parametrize("shape", [(3,), (2, 3, 3)])
def test_heatmap_rejects_non_2d_naming_the_shape(ax, shape):
    with pytest.raises(ValueError, match=r"2-D.*" + re_shape(shape)):
        attention_heatmap(np.zeros(shape), ax=ax)


def re_shape(shape):
    return str(tuple(shape)).replace("(", r"\(").replace(")", r"\)")


def test_heatmap_mask_hatches_blocked_cells_and_skips_their_numbers(ax):
    mask = causal_mask(4)  # 6 blocked cells above the diagonal
    weights = np.where(mask, random_weights(4, 4), 0.0)
    heatmap = attention_heatmap(weights, ax=ax, mask=mask)
    hatched = [p for p in ax.patches if p.get_hatch()]
    assert len(hatched) == 1  # one hatched patch draws every blocked square (issue 14)
    assert {(round(p.get_x() + 0.5), round(p.get_y() + 0.5)) for p in heatmap.blocked_patches} == {
        (j, i) for i in range(4) for j in range(4) if j > i
    }
    assert list(hatched[0].cells) == list(heatmap.blocked_patches)
    blocked_grey = matplotlib.colors.to_rgb(style.BLOCKED_CELL_STYLE["facecolor"])
    assert all(p.get_facecolor()[:3] == blocked_grey for p in [*hatched, *heatmap.blocked_patches])
    assert len(ax.texts) == 10
    np.testing.assert_array_equal(heatmap.cell_texts == None, ~mask)  # noqa: E711  (no number in a blocked cell)
    assert "masked" in ax.get_xlabel()
    assert heatmap.image.get_array().shape == (4, 4)
    assert repr(heatmap) == "Heatmap(4 x 4, 6 blocked cells)"


def test_heatmap_float_mask_and_broadcast_mask(ax):
    float_mask = np.array([0.0, -np.inf, 0.0])  # broadcasts over the 2 query rows
    heatmap = attention_heatmap(random_weights(2, 3), ax=ax, mask=float_mask)
    assert [(round(p.get_y() + 0.5), round(p.get_x() + 0.5)) for p in heatmap.blocked_patches] == [(0, 1), (1, 1)]


def test_heatmap_mask_shape_error_names_both_shapes(ax):
    with pytest.raises(ValueError, match=r"\(2, 2\).*\(3, 3\)"):
        attention_heatmap(random_weights(3, 3), ax=ax, mask=np.ones((2, 2), bool))
    with pytest.raises(TypeError, match="int"):
        attention_heatmap(random_weights(3, 3), ax=ax, mask=np.ones((3, 3), int))


def test_heatmap_colorbar_option(ax):
    attention_heatmap(random_weights(2, 2), ax=ax, colorbar=True)
    assert len(ax.figure.axes) == 2
    assert ax.figure.axes[1].get_ylabel() == "attention weight"


def test_weight_colorbar_one_bar_for_several_heatmaps():
    fig, axes = plt.subplots(2, 3, layout="constrained")
    for seed, ax in enumerate(axes.flat):
        attention_heatmap(random_weights(3, 3, seed), ax=ax)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no layout warning, and the figure draws
        bar = weight_colorbar(axes)
        fig.canvas.draw()
    assert len(fig.axes) == 7  # six heatmaps, one bar
    assert bar.ax.get_ylabel() == "attention weight"
    assert (bar.mappable.norm.vmin, bar.mappable.norm.vmax) == (0.0, 1.0)
    assert bar.mappable.get_cmap().name == "cividis"
    # the bar sits right of every panel
    right_edge = max(ax.get_position().x1 for ax in axes.flat)
    assert bar.ax.get_position().x0 > right_edge


def test_weight_colorbar_takes_the_heatmaps_too():
    fig, axes = plt.subplots(1, 2, layout="constrained")
    heatmaps = [attention_heatmap(random_weights(2, 2, seed), ax=ax) for seed, ax in enumerate(axes)]
    bar = weight_colorbar(heatmaps)
    assert len(fig.axes) == 3 and bar.mappable is heatmaps[0].image


def test_weight_colorbar_errors_name_the_problem():
    fig, axes = plt.subplots(1, 2)
    attention_heatmap(random_weights(2, 2), ax=axes[0])
    with pytest.raises(ValueError, match="axes number 1 of 2 holds no heatmap"):
        weight_colorbar(axes)
    attention_heatmap(random_weights(2, 2), ax=axes[1], vmax=0.5)
    with pytest.raises(ValueError, match="2 different colour scales"):
        weight_colorbar(axes)


NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parent.parent / "solutions").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_heatmap_in_the_notebooks_has_a_colour_bar(path):
    """Issue 10: heatmaps drawn without a colour bar gave colours no scale (02, 03, 04, 05)."""
    import nbformat

    missing = []
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "code" and "attention_heatmap(" in cell.source:
            if "colorbar=True" not in cell.source and "weight_colorbar(" not in cell.source:
                missing.append(cell.get("id"))
    assert not missing, f"{path.name}: cells {missing} draw heatmaps without a colour bar (weight_colorbar)"


def test_notebook_01_hull_figure_keeps_its_dots_grey_and_its_title_on_the_plot(capsys):
    """Issue 10: the 10,000 grey dots sat under the hull's orange fill (they rendered olive), and the
    title floated far above the plot. Runs the notebook's own cell and measures its figure."""
    import nbformat
    from matplotlib.patches import Polygon

    path = pathlib.Path(__file__).resolve().parent.parent / "solutions" / "01-one-attention-row.ipynb"
    cells = {cell.get("id"): cell.source for cell in nbformat.read(path, as_version=4).cells}
    namespace = {}
    exec(cells["nb01-setup"], namespace)
    exec(cells["nb01-imports"], namespace)
    exec(cells["nb01-hull"].replace("plt.show()", ""), namespace)
    fig, ax = namespace["fig"], namespace["ax"]
    (cloud,) = [c for c in ax.collections if len(c.get_offsets()) == 10_000]
    (hull,) = [patch for patch in ax.patches if isinstance(patch, Polygon)]
    assert cloud.get_zorder() > hull.get_zorder()  # drawn over the fill, so grey stays grey
    red, green, blue, _ = cloud.get_facecolor()[0]
    assert max(red, green, blue) - min(red, green, blue) < 0.05  # a grey
    fig.canvas.draw()
    title = ax.title.get_window_extent()
    assert ax.get_title().startswith("10,000 random score rows")
    gap_inches = (title.y0 - ax.get_window_extent().y1) / fig.dpi
    assert 0 < gap_inches < 0.5  # just above the output's coordinates line, not floating above it
    capsys.readouterr()


def test_heatmap_without_ax_makes_a_new_figure_and_leaves_current_axes_alone():
    fig, current = plt.subplots()
    heatmap = attention_heatmap(random_weights(2, 2))
    assert heatmap.ax is not current and heatmap.ax.figure is not fig
    assert len(current.images) == 0


def test_update_heatmap_changes_data_and_numbers(ax):
    heatmap = attention_heatmap(np.array([[1.0, 0.0]]), ax=ax)
    image, texts = heatmap.image, list(heatmap.cell_texts.ravel())
    assert update_heatmap(heatmap, np.array([[0.25, 0.75]])) is heatmap
    np.testing.assert_array_equal(image.get_array(), [[0.25, 0.75]])
    assert sorted(t.get_text() for t in ax.texts) == ["0.25", "0.75"]
    assert heatmap.image is image and list(heatmap.cell_texts.ravel()) == texts  # in place
    assert [t.get_color() for t in texts] == ["white", "black"]  # cividis: 0.25 dark, 0.75 light
    with pytest.raises(ValueError, match=r"\(2, 2\).*\(1, 2\)"):
        update_heatmap(heatmap, np.zeros((2, 2)))
    with pytest.raises(TypeError, match="needs the Heatmap.*got AxesImage"):
        update_heatmap(image, np.zeros((1, 2)))


def test_update_heatmap_keeps_blocked_cells_blank(ax):
    mask = causal_mask(3)
    heatmap = attention_heatmap(np.where(mask, 0.5, 0.0), ax=ax, mask=mask)
    update_heatmap(heatmap, np.where(mask, 0.25, 0.0))
    assert sorted(t.get_text() for t in ax.texts) == ["0.25"] * 6
    assert len(heatmap.blocked_patches) == 3 and all(p.get_visible() for p in heatmap.blocked_patches)


def test_text_colour_contrasts_with_any_colour():
    assert contrasting_text_colour((0.0, 0.0, 0.0, 1.0)) == "white"
    assert contrasting_text_colour((1.0, 1.0, 1.0)) == "black"
    assert contrasting_text_colour(matplotlib.colors.to_rgba(style.BLUE)) == "white"
    image = Figure().add_subplot().imshow(np.zeros((1, 1)), cmap=style.HEATMAP_CMAP, vmin=0, vmax=1)
    assert (cell_text_colour(image, 0.0), cell_text_colour(image, 1.0)) == ("white", "black")
    values = np.linspace(0, 1, 400).reshape(20, 20)  # a dashboard's grid: one call gives each cell's own choice
    grid = cell_text_colour(image, values)
    assert grid.shape == (20, 20) and {str(c) for c in grid.flat} == {"black", "white"}
    assert all(grid[i, j] == cell_text_colour(image, float(values[i, j])) for i, j in np.ndindex(20, 20))


# --------------------------------------------------------------------------- row bars
def test_row_bars_heights_labels_values_and_range(ax):
    bars = attention_row_bars(ARTICLE_WEIGHTS, ARTICLE_TOKENS, ax=ax, title="one row")
    assert isinstance(bars, BarContainer)
    np.testing.assert_allclose([b.get_height() for b in bars], ARTICLE_WEIGHTS)
    assert tick_texts(ax.xaxis) == list(ARTICLE_TOKENS)
    assert ax.get_ylim() == (0.0, 1.0)
    assert [t.get_text() for t in bars.value_labels] == ["0.665", "0.245", "0.090"]
    for bar, label in zip(bars, bars.value_labels):
        assert label.xy[1] == pytest.approx(bar.get_height())  # printed above its bar


def test_update_row_bars_sets_heights_and_text(ax):
    bars = attention_row_bars(ARTICLE_WEIGHTS, ax=ax)
    new = softmax(np.array([0.0, 0.0, 3.0]))
    assert update_row_bars(bars, new) is bars
    np.testing.assert_allclose([b.get_height() for b in bars], new)
    assert [t.get_text() for t in bars.value_labels] == [f"{w:.3f}" for w in new]
    assert [label.xy[1] for label in bars.value_labels] == pytest.approx(new)


def test_row_bars_errors_name_shapes(ax):
    with pytest.raises(ValueError, match=r"1-D.*\(2, 3\)"):
        attention_row_bars(np.zeros((2, 3)), ax=ax)
    with pytest.raises(ValueError, match=r"labels has 2 labels.*\(3,\)"):
        attention_row_bars(ARTICLE_WEIGHTS, ["a", "b"], ax=ax)
    bars = attention_row_bars(ARTICLE_WEIGHTS, ax=ax)
    with pytest.raises(ValueError, match=r"4 entries but there are 3 bars"):
        update_row_bars(bars, np.full(4, 0.25))


# --------------------------------------------------------------------------- value hull
def test_value_hull_plot_artists(ax):
    artists = value_hull_plot(ARTICLE_VALUES, ARTICLE_WEIGHTS, ARTICLE_TOKENS, ax=ax)
    assert {"points", "point_labels", "hull", "spokes", "output", "output_label", "values"} <= set(artists)
    np.testing.assert_allclose(artists["points"].get_offsets(), ARTICLE_VALUES)
    assert [t.get_text().splitlines()[0] for t in artists["point_labels"]] == list(ARTICLE_TOKENS)
    hull_xy = artists["hull"].get_xy()[:-1]  # closed polygon repeats its first vertex
    assert {tuple(p) for p in hull_xy} == {tuple(v) for v in ARTICLE_VALUES}  # the triangle
    x, y = artists["output"].get_data()
    np.testing.assert_allclose([x[0], y[0]], ARTICLE_WEIGHTS @ ARTICLE_VALUES)
    assert "(0.935, 0.579)" in artists["output_label"].get_text()
    assert len(artists["spokes"]) == 3


def test_update_value_hull_moves_the_output_inside_the_triangle(ax):
    artists = value_hull_plot(ARTICLE_VALUES, ARTICLE_WEIGHTS, ax=ax)
    new = softmax(np.array([-3.0, 0.5, 4.0]))
    output = update_value_hull(artists, new)
    np.testing.assert_allclose(output, new @ ARTICLE_VALUES)
    x, y = artists["output"].get_data()
    np.testing.assert_allclose([x[0], y[0]], output)
    assert f"({output[0]:.3f}, {output[1]:.3f})" in artists["output_label"].get_text()
    assert Path(convex_hull(ARTICLE_VALUES)).contains_point(output)
    widths = [s.get_linewidth() for s in artists["spokes"]]
    assert widths[2] > widths[1] > widths[0]  # heavier weight, wider spoke


def test_value_hull_errors_name_shapes(ax):
    with pytest.raises(ValueError, match=r"\(T, 2\).*\(3, 3\)"):
        value_hull_plot(np.zeros((3, 3)), ARTICLE_WEIGHTS, ax=ax)
    with pytest.raises(ValueError, match=r"weights has 2 entries.*T=3"):
        value_hull_plot(ARTICLE_VALUES, np.array([0.5, 0.5]), ax=ax)
    with pytest.raises(ValueError, match=r"labels has 1 labels"):
        value_hull_plot(ARTICLE_VALUES, ARTICLE_WEIGHTS, ["x"], ax=ax)


def test_convex_hull_drops_interior_points_and_handles_degenerate_input():
    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 0.5]])
    assert {tuple(p) for p in convex_hull(square)} == {(0, 0), (1, 0), (1, 1), (0, 1)}
    assert len(convex_hull([[0, 0], [1, 1], [2, 2]])) == 2  # collinear: a segment
    assert len(convex_hull([[1, 1], [1, 1]])) == 1


def test_softmax_mixtures_lie_in_the_hull_of_random_values():
    rng = np.random.default_rng(1)
    for _ in range(50):
        values = rng.normal(size=(5, 2))
        output = softmax(rng.normal(scale=3, size=5)) @ values
        assert Path(convex_hull(values)).contains_point(output)


def test_plots_on_a_given_ax_create_no_pyplot_figure(ax):
    before = plt.get_fignums()
    attention_heatmap(random_weights(2, 2), ax=ax)
    attention_row_bars(ARTICLE_WEIGHTS, ax=Figure().add_subplot())
    value_hull_plot(ARTICLE_VALUES, ARTICLE_WEIGHTS, ax=Figure().add_subplot())
    assert plt.get_fignums() == before


def test_blocked_cell_grid_draws_its_visible_squares_hatched_as_one_patch():
    """Dashboards show a blocked cell by making its square visible; one hatched patch draws them all (issue 14)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from course_utils.plots import blocked_cell_grid

    fig = Figure(figsize=(3, 3), dpi=100)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(-0.5, 2.5)
    ax.set_ylim(2.5, -0.5)
    ax.set_axis_off()
    cells = blocked_cell_grid(ax, 3)
    hatched = [p for p in ax.patches if p.get_hatch()]
    assert cells.shape == (3, 3) and len(hatched) == 1  # one patch in the axes, the squares are its model
    assert hatched[0].get_facecolor()[:3] == pytest.approx(matplotlib.colors.to_rgb(style.LIGHT_GREY))

    def cell_colours():
        canvas.draw()
        pixels = np.asarray(canvas.buffer_rgba())[..., :3]  # (300, 300, 3), 100 px per cell
        return [[len(np.unique(pixels[100 * i + 10:100 * i + 90, 100 * j + 10:100 * j + 90].reshape(-1, 3), axis=0))
                 for j in range(3)] for i in range(3)]

    assert cell_colours() == [[1] * 3] * 3  # nothing shown: white
    cells[0, 2].set_visible(True)
    cells[2, 0].set_visible(True)
    shown = cell_colours()
    assert shown[0][2] > 2 and shown[2][0] > 2  # grey face and dark hatch lines (with their antialiasing)
    assert all(shown[i][j] == 1 for i in range(3) for j in range(3) if (i, j) not in {(0, 2), (2, 0)})
    cells[0, 2].set_visible(False)
    assert cell_colours()[0][2] == 1


def test_heatmap_numbers_are_not_measured_by_a_layout_or_a_tight_crop(monkeypatch):
    """A cell's number lies inside the axes: constrained layout and the tight box skip it (issue 14: ~100 texts per
    figure of three heatmaps were measured several times each)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    fig = Figure(figsize=(8, 3), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 2)
    heatmaps = [attention_heatmap(random_weights(4, 4), ax=ax, mask=causal_mask(4)) for ax in axes]
    numbers = {id(t) for h in heatmaps for t in h.cell_texts.flat if t is not None}
    assert len(numbers) == 20 and all(not t.get_in_layout() for h in heatmaps for t in h.cell_texts.flat if t)
    measured = []
    extent = Text.get_window_extent

    def spy(self, *args, **kwargs):
        if id(self) in numbers:
            measured.append(self)
        return extent(self, *args, **kwargs)

    monkeypatch.setattr(Text, "get_window_extent", spy)
    fig.get_layout_engine().execute(fig)
    fig.get_tightbbox(fig.canvas.get_renderer())
    assert measured == []


def test_heatmap_blocked_cells_are_painted_hatched_as_one_path():
    """A masked heatmap paints its blocked cells, hatched grey, and only those, through one patch."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = Figure(figsize=(3, 3), dpi=100)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    mask = causal_mask(3)
    heatmap = attention_heatmap(np.where(mask, 1.0, 0.0), ax=ax, mask=mask, annotate=False)
    assert sum(1 for p in ax.patches if p.get_hatch()) == 1 and len(heatmap.blocked_patches) == 3
    canvas.draw()
    pixels = np.asarray(canvas.buffer_rgba())[..., :3]  # (300, 300, 3), 100 px per cell
    colours = [[len(np.unique(pixels[100 * i + 10:100 * i + 90, 100 * j + 10:100 * j + 90].reshape(-1, 3), axis=0))
                for j in range(3)] for i in range(3)]
    assert all((colours[i][j] > 2) == (j > i) for i in range(3) for j in range(3))  # hatch lines only above
