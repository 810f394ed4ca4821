"""Accessible names for the slider handles of a dashboard (what ipywidgets 8.1.9 leaves out).

ipywidgets draws a slider with noUiSlider. The element that takes the keyboard focus is the slider's handle
(``<div class="noUi-handle" role="slider">``), and ipywidgets gives it no name: a screen reader announces
"slider, 0.5" without saying which one, and axe-core reports ``aria-input-field-name`` (serious) on every
handle (measured in JupyterLab 4.6.6 and Notebook 7.6.5: one per slider). noUiSlider can put attributes on its
handles (its ``handleAttributes`` option), but ipywidgets does not pass that option, and no Python setting of
the slider reaches the handle.

So every dashboard's box carries one more, invisible, widget: an anywidget whose ES module (``_ESM`` below,
sent inline with the widget: nothing is downloaded) names each slider handle of that box after the slider's own
visible label, with ``aria-labelledby`` (the name is exactly the words a sighted learner reads, and follows
them if the label changes). A slider without a description gets ``aria-label`` from Python instead (its
control's name in words). It names the handles again whenever the frontend re-renders a slider (a
MutationObserver on the box) and stops when the box goes away. Where no widget renders (a static view) it
shows nothing; its text stand-in is empty.
"""
import anywidget
import ipywidgets
import traitlets

from course_utils.alt_text import plain

__all__ = ["SLIDERS", "SliderHandleNames", "slider_names"]

#: The ipywidgets sliders drawn with noUiSlider (each has one handle, ``.noUi-handle``, inside ``.widget-slider``).
SLIDERS = (ipywidgets.IntSlider, ipywidgets.FloatSlider, ipywidgets.FloatLogSlider, ipywidgets.SelectionSlider)

#: The browser side. ``root``: the outermost widget box around this widget inside its output (a dashboard may
#: nest an HBox of controls in its VBox). Slider i of the box, in document order, is names[i] from Python.
_ESM = r"""
let counter = 0;

function outermostBox(el) {
  let root = el.parentElement || el;
  for (let node = el.parentElement; node; node = node.parentElement) {
    if (node.classList.contains('widget-box')) { root = node; }
    if (node.classList.contains('jp-OutputArea-output')) { break; }
  }
  return root;
}

function nameHandles(root, names) {
  root.querySelectorAll('.widget-slider').forEach((slider, i) => {
    const handle = slider.querySelector('.noUi-handle');
    if (!handle) { return; }
    const label = slider.querySelector('.widget-label');
    if (label && label.textContent.trim()) {
      if (!label.id) { label.id = `course-slider-label-${Date.now().toString(36)}-${counter++}`; }
      if (handle.getAttribute('aria-labelledby') !== label.id) {
        handle.setAttribute('aria-labelledby', label.id);
      }
    } else if (names[i] && handle.getAttribute('aria-label') !== names[i]) {
      handle.setAttribute('aria-label', names[i]);
    }
  });
}

export default {
  render({ model, el }) {
    // The frontend renders a box's children before it attaches them: wait until this widget is in the page.
    let observer = null, timer = null, tries = 0;
    const run = () => observer && nameHandles(observer.root, model.get('names'));
    const start = () => {
      if (!el.isConnected) {
        if (tries++ < 600) { timer = setTimeout(start, 50); }  // gives up after 30 s (a view never shown)
        return;
      }
      observer = new MutationObserver(run);
      observer.root = outermostBox(el);
      observer.observe(observer.root, { childList: true, subtree: true });
      run();
    };
    start();
    model.on('change:names', run);
    return () => { clearTimeout(timer); if (observer) { observer.disconnect(); } model.off('change:names', run); };
  },
};
"""


class SliderHandleNames(anywidget.AnyWidget):
    """An invisible widget that names the slider handles of the box it is in (see the module's docstring).

    ``names``: each slider's name, in the order the sliders appear; used for a slider whose label is empty (one with
    a description is named by its label).
    """

    _esm = traitlets.Unicode(_ESM).tag(sync=True)
    names = traitlets.List(traitlets.Unicode()).tag(sync=True)

    def __init__(self, names=(), **kwargs):
        kwargs.setdefault("layout", ipywidgets.Layout(display="none"))
        super().__init__(names=list(names), **kwargs)

    def __repr__(self):  # its text stand-in in a static view: nothing to say
        return ""


def slider_names(controls):
    """The accessible name of each slider (``SLIDERS``) among ``controls`` (a dashboard's, by name, in the order
    shown), in order: its description, else its key in words."""
    return [plain(control.description or "") or name.replace("_", " ")
            for name, control in controls.items() if isinstance(control, SLIDERS)]
