"""The object a checker returns: one of three outcomes, shown as text or as a small coloured box."""
import html
import re

from course_utils.style import CHECK_BOX_COLOURS, INK

NOT_ATTEMPTED = "not attempted"
WRONG = "wrong"
CORRECT = "correct"
STATUSES = (NOT_ATTEMPTED, WRONG, CORRECT)

# status -> (label the message starts with, border colour, background colour).
# The label word, not the colour, is the primary cue; the colours only repeat it.
_LABELS = {CORRECT: "Correct", WRONG: "Not yet right", NOT_ATTEMPTED: "Not attempted yet"}
_STYLE = {status: (label, *CHECK_BOX_COLOURS[status]) for status, label in _LABELS.items()}

_BOX_STYLE = (
    "border:1px solid {border};border-left:6px solid {border};background:{background};"
    "color:" + INK + ";padding:8px 12px;margin:4px 0;border-radius:4px;"
    "font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;font-size:14px;line-height:1.45"
)
_PRE_STYLE = (
    "margin:6px 0 0 0;padding:0;background:transparent;color:" + INK + ";"
    "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px;"
    "white-space:pre-wrap"
)
_CODE_STYLE = "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:rgba(0,0,0,0.06);padding:0 2px"


class CheckResult:
    """Outcome of one checker run.

    status : ``"not attempted"``, ``"wrong"`` or ``"correct"``.
    message : the plain-text report without the hint. Its first line starts with "Correct",
        "Not yet right" or "Not attempted yet"; detail lines follow.
    hint : advice for the mistake recognised (or a generic one); None when correct.
    passed : the number of cases passed before the first failure (all of them when correct).
    total : the number of cases the checker has.
    case : a description of the failing case (its number, label and input), None otherwise.
    mistake : the name of the known mistake the hint names (``KnownMistake.name``), or None when the
        hint is a generic one (or there is no hint). For tests and maintainers; not shown.
    level : for a wrong result of an exercise checker, which failed check of that exercise it is (1 to 4,
        ``_levels``); None otherwise.
    more : the (label, text) of each level after the first that ``level`` reaches: shown after the hint.

    ``repr(result)`` and ``str(result)`` give the message followed by ``Hint: ...`` and a line per level;
    ``bool(result)`` is True only when the status is ``"correct"``.
    """

    __slots__ = ("status", "message", "hint", "passed", "total", "case", "mistake", "level", "more", "_shown")

    def __init__(self, status, message, hint=None, passed=0, total=0, case=None, mistake=None, level=None, more=()):
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}; got {status!r}")
        self.status = status
        self.message = message
        self.hint = hint
        self.passed = passed
        self.total = total
        self.case = case
        self.mistake = mistake
        self.level = level
        self.more = tuple(more)
        self._shown = False

    @property
    def text(self):
        """The whole plain-text report: message, then the hint if there is one, then the further levels."""
        lines = [self.message, *([f"Hint: {self.hint}"] if self.hint else []), *(f"{k}: {t}" for k, t in self.more)]
        return "\n".join(lines)

    def __repr__(self):
        return self.text

    __str__ = __repr__

    def __bool__(self):
        return self.status == CORRECT

    def show(self):
        """Display the report in a notebook, once (nothing outside a Jupyter kernel). A checker called from a
        learner's cell does it as it returns, so that a check that is not its cell's last line shows too (a line
        added below it, checks in a loop); the cell's own display of the returned result is then skipped."""
        if not self._shown and _in_a_kernel():
            self._shown = True
            from IPython.display import display

            display({"text/plain": self.text, "text/html": self._repr_html_()}, raw=True)

    def _ipython_display_(self):
        self.show()

    def _repr_html_(self):
        label, border, background = _STYLE[self.status]
        headline, _, details = self.message.partition("\n")
        rest = headline[len(label):].lstrip(":").strip() if headline.startswith(label) else headline
        parts = [
            f'<div style="{_BOX_STYLE.format(border=border, background=background)}" '
            f'data-check-status="{html.escape(self.status)}">',
            f"<strong>{html.escape(label)}</strong>"
            + (f": {_inline_code(rest)}" if rest else ""),
        ]
        if details.strip():
            parts.append(f'<pre style="{_PRE_STYLE}">{html.escape(details)}</pre>')
        for label, text in ((("Hint", self.hint),) if self.hint else ()) + self.more:
            parts.append(f'<div style="margin-top:6px"><strong>{label}:</strong> {_inline_code(text)}</div>')
        parts.append("</div>")
        return "\n".join(parts)


def _in_a_kernel():
    """True in a Jupyter kernel (IPython with a kernel attached), where a result can be displayed."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return getattr(get_ipython(), "kernel", None) is not None


def _inline_code(text):
    """Escape text for HTML and turn `backticked` spans into <code> elements."""
    pieces = re.split(r"`([^`]+)`", text)  # the odd pieces were in backticks
    return "".join(f'<code style="{_CODE_STYLE}">{html.escape(piece)}</code>' if i % 2 else html.escape(piece)
                   for i, piece in enumerate(pieces))
