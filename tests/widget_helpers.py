"""Shared pieces of the dashboard tests (tests/test_widgets*.py)."""
import base64
import functools


class RecordingHandle:
    """Stands in for IPython's DisplayHandle: renders what it is given, as a front end would.

    ``bundles`` holds each update's display data (text/html ``<img alt>`` and image/png), ``pngs`` its PNG bytes.
    """

    def __init__(self):
        self.bundles, self.pngs = [], []

    def update(self, obj):
        bundle = obj._repr_mimebundle_()
        self.bundles.append(bundle)
        self.pngs.append(base64.b64decode(bundle["image/png"]))


@functools.cache
def small_training_run():
    """(run, probe_tokens): 60 steps of notebook 06's head with a snapshot every 10 steps, two probe tickets.

    Made once per test session (about 0.1 s); the dashboards only read it.
    """
    from course_utils.lessons import training as tr

    tokens, query_pos, labels = tr.make_tickets(256, seed=0)
    probe = tr.make_tickets(5, seed=1)
    run = tr.train(tr.init_params(seed=0), tokens, query_pos, labels, steps=60, probe=probe[:2],
                   snapshot_every=10)
    return run, probe[0]


def dashboard_classes():
    """Every Dashboard subclass that course_utils.widgets exports, in the order of its __all__."""
    import inspect

    import course_utils.widgets as widgets

    return [cls for cls in (getattr(widgets, name) for name in widgets.__all__)
            if inspect.isclass(cls) and issubclass(cls, widgets.Dashboard) and cls is not widgets.Dashboard]


def _training_dashboard():
    from course_utils.widgets import TrainingDashboard

    return TrainingDashboard(*small_training_run())


#: How to build the dashboards whose constructor needs arguments (by class name).
NEEDS_ARGUMENTS = {"TrainingDashboard": _training_dashboard}


def make_dashboard(cls):
    """A dashboard of class ``cls`` at its default values (those that need arguments get NEEDS_ARGUMENTS')."""
    return NEEDS_ARGUMENTS[cls.__name__]() if cls.__name__ in NEEDS_ARGUMENTS else cls()
