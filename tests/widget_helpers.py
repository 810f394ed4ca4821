"""Shared pieces of the dashboard tests (tests/test_widgets*.py)."""


class RecordingHandle:
    """Stands in for IPython's DisplayHandle: renders what it is given, as a front end would."""

    def __init__(self):
        self.pngs = []

    def update(self, obj):
        self.pngs.append(obj._repr_png_())
