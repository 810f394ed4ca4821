"""Static HTML of the solved notebooks, for a reader without Jupyter; it needs no network, then or later.

``python tools/html_pages.py`` writes ``build/html/NN-name.html`` for every notebook in ``solutions/``
and ``build/html/index.html`` linking them. Each page is one self-contained file: the stored figures (the
dashboards at their starting values included) are embedded pictures, the styles are inlined, and the maths
is MathML, converted from the notebooks' TeX when the page is written (``latex2mathml``). A page loads no
script at all, so it reads the same offline, from a USB stick or attached to an e-mail.

Why MathML and not MathJax: nbconvert's own HTML loads MathJax 2.7.7 and require.js from a CDN, so offline
the maths shows as raw TeX. Serving MathJax from a local folder would ship megabytes of JavaScript and fonts
beside every copy of the pages (jupyter-server-mathjax, the PyPI package holding MathJax 2.7.9, is 9.6 MB in
608 files) and keeps a page broken when it is moved without that folder. MathML is drawn by the browser
itself (Chromium and Edge since 109, Firefox, Safari), and screen readers read it as mathematics.
``latex2mathml`` is pure Python (MIT license, about 80 kB); require.js served no purpose here (it is only
for widget renderers, and a static page shows the dashboards as their stored pictures).

What differs from ``jupyter nbconvert --to html`` (the ``lab`` template, light theme):

* the template loads no script: neither MathJax, require.js, mermaid nor a widget renderer;
* ``$...$``, ``$$...$$``, ``\\(...\\)``, ``\\[...\\]`` and ``\\begin{env}...\\end{env}`` in markdown cells
  become ``<math>`` elements (with the TeX kept in ``alttext``); TeX that cannot be converted stops the
  export with the notebook, the cell and the expression named;
* saved widget state is dropped (there is no widget renderer; the stored picture below each dashboard is the
  picture a reader sees, and the dashboard's text stand-in is its ``text/plain`` output);
* links to another notebook (``02-queries-keys-values.ipynb``) point to its page, and other relative links
  (``../docs/troubleshooting.md``) to the file in the checkout;
* the page's title is the notebook's first heading;
* every markdown cell and every HTML, markdown or SVG output is cleaned by bleach (nbconvert's own sanitiser,
  installed with it) to the tags and attributes the course's pages use, none of which runs: a ``<script>``, an
  ``on...`` handler, a ``javascript:`` link or an ``<iframe>`` in a notebook shows as text (``clean_html``);
* the written page is checked: nothing in it may load a file from the network (raises ``RemoteResource``) nor run
  (raises ``LiveScript``).

Command line (from the repository root)::

    python tools/html_pages.py                 # every solved notebook -> build/html/
    python tools/html_pages.py 01 03           # only these (stem, file name or unique prefix)
    python tools/html_pages.py --out DIR       # another folder

Exit codes: 0 ok; 1 a notebook could not be exported (the message says which and why); 2 bad usage.
"""

from __future__ import annotations

import argparse
import copy
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from xml.etree.ElementTree import tostring
from xml.sax.saxutils import escape, quoteattr

from _checkout import REPO_ROOT

__all__ = [
    "OUT_DIR",
    "LiveScript",
    "MathConversionError",
    "RemoteResource",
    "StaticPage",
    "clean_html",
    "export_notebook",
    "export_all",
    "live_script",
    "main",
    "remote_loads",
    "tex_to_mathml",
]

SOLUTIONS_DIR = REPO_ROOT / "solutions"
OUT_DIR = REPO_ROOT / "build" / "html"

#: The lab template without any script: every block that adds one is emptied (they all load from a CDN).
TEMPLATE_NAME = "course_static.html.j2"
TEMPLATE = """\
{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block data_widget_view -%}{%- endblock data_widget_view -%}
{%- block extra_css -%}
<style type="text/css">
/* MathML drawn by the browser (no MathJax): display maths on its own line, a little larger, scrolls if wide */
.jp-RenderedMarkdown math[display="block"] { margin: 0.8em 0; font-size: 1.1em; overflow-x: auto; }
</style>
{%- endblock extra_css -%}
"""

_TEXT_ESCAPES = re.compile(r"\\([_%&#$])")  # \_ \% \& \# \$ inside \text{...}: the character itself
_TEXT_COMMAND = re.compile(r"\\text\{((?:[^{}]|\{[^{}]*\})*)\}")
_NOTEBOOK_LINK = re.compile(r"^(?P<stem>[\w.-]+)\.ipynb(?P<anchor>#.*)?$")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//|^#")


class MathConversionError(ValueError):
    """A TeX expression in a markdown cell that latex2mathml cannot convert."""


class RemoteResource(RuntimeError):
    """A written page would load a file from the network."""


class LiveScript(RuntimeError):
    """A written page holds something a browser would run."""


@dataclass(frozen=True)
class StaticPage:
    """One exported notebook.

    Attributes
    ----------
    notebook : Path
        The solved notebook.
    path : Path
        The page written (``<out>/<stem>.html``).
    title : str
        The page's title (the notebook's first heading).
    """

    notebook: Path
    path: Path
    title: str


def tex_to_mathml(tex: str, display: bool = False) -> str:
    """One TeX expression as a MathML ``<math>`` element (the TeX kept in its ``alttext``).

    Parameters
    ----------
    tex : str
        The expression, without its delimiters (``\\sqrt{d_k}``, not ``$\\sqrt{d_k}$``).
    display : bool, default False
        True for display maths (``$$...$$``): ``<math display="block">``.

    Returns
    -------
    str
        ``<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline|block" alttext="...">...</math>``.

    Raises
    ------
    MathConversionError
        If latex2mathml cannot convert the expression.

    Examples
    --------
    >>> print(tex_to_mathml("d_k"))  # doctest: +ELLIPSIS
    <math xmlns="http://www.w3.org/1998/Math/MathML" display="inline" alttext="d_k">...<msub><mi>d</mi><mi>k</mi></msub>...</math>
    >>> "<mtext>grad_output</mtext>" in tex_to_mathml(r"\\text{grad\\_output}")
    True
    """
    try:
        from latex2mathml.converter import Converter
    except ImportError as err:  # in requirements-dev.lock (`make html` installs it); missing from a learner's env
        raise ImportError("the static HTML needs the latex2mathml package (in requirements-dev.lock): run "
                          "`make env-dev`, or `pip install --no-deps -r requirements-dev.lock`") from err

    # latex2mathml keeps "\_" literally inside \text{}; TeX (and MathJax 3) print the character itself.
    source = _TEXT_COMMAND.sub(lambda m: r"\text{" + _TEXT_ESCAPES.sub(r"\1", m.group(1)) + "}", tex)
    try:
        math = Converter(display="block" if display else "inline").convert_to_element(source.strip())
    except Exception as err:  # latex2mathml raises its own exception types, and some plain ones
        raise MathConversionError(f"cannot convert the TeX {tex!r} to MathML: {type(err).__name__}: {err}") from err
    _as_tex_lays_out(math)
    if tex.strip():
        math.set("alttext", " ".join(tex.split()))
    # latex2mathml stores characters as entity text ("&#x02211;"); tostring escapes their "&", which is put back.
    # Any other "<" or "&" (typed in \text{...}) stays escaped.
    return tostring(math, encoding="unicode").replace("&amp;#x", "&#x")


#: Operators whose limits TeX sets below and above in display maths (\sum_j, \max_j), as latex2mathml writes them.
_LIMIT_OPERATORS = {"&#x02211;", "&#x0220F;", "&#x02210;", "&#x022C3;", "&#x022C2;", "max", "min", "lim", "sup",
                    "inf", "argmax", "argmin", "arg&#x02009;max", "arg&#x02009;min"}
_WORD = re.compile(r"^[A-Za-z]{2,}$")


def _as_tex_lays_out(math) -> None:
    r"""Two fixes to latex2mathml's tree, so browsers lay it out as TeX does.

    * ``\sum_j`` and ``\max_j`` come as ``msub``/``msubsup`` (limits always beside): they become
      ``munder``/``munderover`` with ``movablelimits``, which MathML draws below and above in display maths
      and beside in inline maths, as TeX does.
    * a word set as an operator (``\operatorname{softmax}``, ``\max`` without limits) comes as
      ``<mo>softmax</mo>``, which browsers pad as an unknown operator ("softmax (x)"): it becomes ``<mi>``,
      upright like a function name, without the padding.
    """
    for element in math.iter():
        if element.tag in ("msub", "msubsup") and len(element) and element[0].tag == "mo" \
                and element[0].text in _LIMIT_OPERATORS:
            element.tag = "munder" if element.tag == "msub" else "munderover"
            element[0].set("movablelimits", "true")
    for element in math.iter("mo"):
        if element.get("movablelimits") is None and _WORD.match(element.text or ""):
            element.tag = "mi"


def _renderer_class():
    """IPythonRenderer (nbconvert's markdown renderer) that writes MathML and rewrites relative links."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer

    class MathMLRenderer(IPythonRenderer):
        def __init__(self, *args, link_map=None, **kwargs):
            super().__init__(*args, **kwargs)
            self.link_map = link_map or (lambda url: url)

        def block_math(self, body):
            return tex_to_mathml(body, display=True)

        def inline_math(self, body):
            return tex_to_mathml(body, display=False)

        def latex_environment(self, name, body):
            return tex_to_mathml(f"\\begin{{{name}}}{body}\\end{{{name}}}", display=True)

        def multiline_math(self, text):  # mistune 2 only: the block, delimiters included
            stripped = text.strip()
            for left, right in (("$$", "$$"), ("\\[", "\\]")):
                if stripped.startswith(left) and stripped.endswith(right):
                    return tex_to_mathml(stripped[len(left):-len(right)], display=True)
            return tex_to_mathml(stripped, display=True)

        def link(self, text, url, title=None):
            return super().link(text, self.link_map(url), title)

        def heading(self, text, *args, **kwargs):
            # nbconvert adds the anchor through ElementTree, which writes maths in a heading as <ns0:math>:
            # not MathML to a browser (it showed "dk" for \sqrt{d_k}). An HTML page needs no namespace prefix.
            heading = super().heading(text, *args, **kwargs)
            heading = re.sub(r'\s+xmlns:(ns\d+)="http://www\.w3\.org/1998/Math/MathML"', "", heading)
            return re.sub(r"<(/?)ns\d+:", r"<\1", heading)

    return MathMLRenderer


def _exporter_class():
    """nbconvert's HTMLExporter with the script-free template and the MathML renderer."""
    import jinja2
    from nbconvert.exporters import HTMLExporter
    from nbconvert.filters.markdown_mistune import MarkdownWithMath

    renderer_class = _renderer_class()

    class StaticHTMLExporter(HTMLExporter):
        link_map = None  # set per notebook by export_notebook

        @jinja2.pass_context  # as HTMLExporter's own: the filter gets the template context (the cell)
        def markdown2html(self, context, source):
            cell = context.get("cell", {})
            where = f"cell {cell.get('id', '?')}"
            renderer = renderer_class(
                escape=False,
                attachments=cell.get("attachments", {}),
                embed_images=self.embed_images,
                path=context.get("resources", {}).get("metadata", {}).get("path", ""),
                anchor_link_text=self.anchor_link_text,
                exclude_anchor_links=self.exclude_anchor_links,
                link_map=self.link_map,
                **self.lexer_options,
            )
            try:
                return MarkdownWithMath(renderer=renderer).render(source)
            except MathConversionError as err:
                raise MathConversionError(f"{where}: {err}") from err

    return StaticHTMLExporter


def _make_exporter():
    import jinja2

    exporter = _exporter_class()(
        template_name="lab", theme="light", extra_loaders=[jinja2.DictLoader({TEMPLATE_NAME: TEMPLATE})],
        sanitize_html=True)  # the template then cleans cells and outputs, and leaves out javascript outputs
    exporter.template_file = TEMPLATE_NAME
    exporter.register_filter("clean_html", clean_html)
    return exporter


def _first_heading(nb, default: str) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
                if match:
                    return re.sub(r"[`*_]", "", match.group(1))
    return default


def _link_map(notebook_dir: Path, out_dir: Path, pages: set):
    """url -> url: a sibling notebook's .ipynb to its page, other relative files to their place in the checkout."""
    def link(url: str) -> str:
        if not url or _SCHEME.match(url):
            return url
        match = _NOTEBOOK_LINK.match(url)
        if match and match.group("stem") in pages:
            return f"{match.group('stem')}.html{match.group('anchor') or ''}"
        path, _, anchor = url.partition("#")
        target = (notebook_dir / path).resolve()
        if not target.exists():
            return url
        relative = Path(os.path.relpath(target, out_dir.resolve())).as_posix()
        return relative + (f"#{anchor}" if anchor else "")
    return link


# What may load a file: (tag, attribute). Plain <a href> links are fine: nothing breaks when they cannot be followed.
_LOADING_ATTRIBUTES = (("script", "src"), ("link", "href"), ("img", "src"), ("img", "srcset"), ("iframe", "src"),
                       ("source", "src"), ("source", "srcset"), ("video", "src"), ("video", "poster"),
                       ("audio", "src"), ("embed", "src"), ("object", "data"), ("input", "src"), ("track", "src"),
                       ("image", "href"), ("image", "xlink:href"), ("use", "href"), ("use", "xlink:href"))
_REMOTE_URL = re.compile(r"(?:^|[\s,])(?:https?:)?//", re.I)
_CSS_REMOTE = re.compile(r"(?:@import\s+(?:url\()?|\burl\()\s*[\"']?\s*(?:https?:)?//", re.I)


def remote_loads(page_html: str) -> list:
    """What in a page would load a file from the network (scripts, styles, images, frames, CSS imports, fonts).

    Parameters
    ----------
    page_html : str

    Returns
    -------
    list of str
        One description per finding (tag, attribute and the start of the URL); empty when none.

    Examples
    --------
    >>> remote_loads('<script src="https://cdn.example.com/x.js"></script><a href="https://example.com">ok</a>')
    ['<script src="https://cdn.example.com/x.js">']
    >>> remote_loads('<img src="data:image/png;base64,AAAA" alt="a figure">')
    []
    """
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page_html, "html.parser")
    found = []
    for tag, attribute in _LOADING_ATTRIBUTES:
        for element in soup.find_all(tag):
            value = element.get(attribute)
            if value and _REMOTE_URL.search(str(value)):
                found.append(f'<{tag} {attribute}="{str(value)[:100]}">')
    for element in soup.find_all(style=True):
        if _CSS_REMOTE.search(element["style"]):
            found.append(f"style attribute: {element['style'][:100]!r}")
    for element in soup.find_all("style"):
        for match in _CSS_REMOTE.finditer(element.get_text()):
            found.append(f"<style>: {element.get_text()[match.start():match.start() + 100]!r}")
    return found


# What a page's cells may hold: the tags and attributes the course's markdown, MathML and stored outputs use
# (tests/test_static_html.py: cleaning changes nothing in them), none of which runs a script.
_CLEAN_TAGS = frozenset({
    "a", "b", "blockquote", "br", "caption", "code", "dd", "del", "details", "div", "dl", "dt", "em", "h1", "h2",
    "h3", "h4", "h5", "h6", "hr", "i", "img", "kbd", "li", "ol", "p", "pre", "s", "span", "strong", "sub",
    "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul",
    # MathML, as latex2mathml writes it
    "math", "menclose", "merror", "mfrac", "mi", "mn", "mo", "mover", "mpadded", "mphantom", "mroot", "mrow", "ms",
    "mspace", "msqrt", "mstyle", "msub", "msubsup", "msup", "mtable", "mtd", "mtext", "mtr", "munder", "munderover",
    "semantics", "annotation",
})
_CLEAN_ATTRIBUTES = {
    "*": {"class", "id", "title", "style"},
    "a": {"href"}, "img": {"alt", "src", "width", "height"}, "ol": {"type", "start"}, "details": {"open"},
    "td": {"colspan", "rowspan", "align"}, "th": {"colspan", "rowspan", "align"}, "div": {"data-check-status"},
    "math": {"alttext", "display", "xmlns"}, "mi": {"mathvariant"}, "mn": {"mathvariant"},
    "mo": {"fence", "form", "largeop", "lspace", "maxsize", "minsize", "movablelimits", "rspace", "separator",
           "stretchy", "symmetric"},
    "mspace": {"width", "height", "depth"}, "mstyle": {"displaystyle", "scriptlevel", "mathvariant"},
    "mfrac": {"linethickness"}, "menclose": {"notation"}, "mpadded": {"width", "height", "depth", "lspace", "voffset"},
    "mtable": {"columnalign", "rowspacing", "columnspacing"}, "mtd": {"columnalign"}, "annotation": {"encoding"},
}
_CLEAN_CSS = ("background", "background-color", "border", "border-left", "border-radius", "color", "display",
              "font-family", "font-size", "font-style", "font-weight", "line-height", "margin", "padding",
              "text-align", "white-space")
_PICTURE_URL = re.compile(r"data:image/(?:png|jpeg|gif|webp|svg\+xml)[;,]", re.I)


def _clean_attribute(tag: str, name: str, value: str) -> bool:
    if name not in _CLEAN_ATTRIBUTES["*"] | _CLEAN_ATTRIBUTES.get(tag, set()):
        return False
    if tag == "img" and name == "src":  # a picture: embedded (remote ones are refused by remote_loads)
        return bool(_PICTURE_URL.match(value)) or not value.lower().startswith("data:")
    if name == "href":  # a link to follow, never a page made of the link itself (bleach refuses javascript:)
        return not value.strip().lower().startswith("data:")
    return True


def clean_html(fragment) -> str:
    """One cell's HTML with only what the course's pages use, nothing that runs (bleach, the library nbconvert
    sanitises with): anything else is shown as text, so a reader sees what was taken out.

    Examples
    --------
    >>> clean_html('<p onclick="steal()">hi <a href="javascript:steal()">link</a></p><script>steal()</script>')
    '<p>hi <a>link</a></p>&lt;script&gt;steal()&lt;/script&gt;'
    """
    import bleach
    from bleach.css_sanitizer import CSSSanitizer

    text = fragment.decode() if isinstance(fragment, bytes) else str(fragment)
    cleaner = bleach.Cleaner(tags=_CLEAN_TAGS, attributes=_clean_attribute, strip_comments=True,
                             protocols=["http", "https", "mailto", "data"],
                             css_sanitizer=CSSSanitizer(allowed_css_properties=_CLEAN_CSS))
    return cleaner.clean(text)


# What runs in a browser: elements, attributes whose name starts so, and URLs that start so.
_RUNNING_TAGS = ("script", "iframe", "frame", "object", "embed", "applet", "base", "form", "portal")
_RUNNING_URL = re.compile(r"^\s*(?:javascript|vbscript|data:text/html|data:application/xhtml)", re.I)
_URL_ATTRIBUTES = ("href", "src", "action", "formaction", "xlink:href", "data", "poster", "background")
_RUNNING_STYLE = re.compile(r"javascript:|vbscript:|expression\s*\(|-moz-binding|behavior\s*:", re.I)


def live_script(page_html: str) -> list:
    """What in a page a browser would run: script and frame elements, ``on...`` handlers, ``javascript:`` URLs (in
    links, sources and styles), a refreshing ``<meta>``; one description per finding, empty when none.

    >>> live_script('<p>fine</p><img src="x.png" onerror="steal()"><a href="javascript:steal()">x</a>')
    ['<img onerror="steal()">', '<a href="javascript:steal()">']
    """
    from bs4 import BeautifulSoup

    found = []
    for element in BeautifulSoup(page_html, "html.parser").find_all(True):
        if element.name in _RUNNING_TAGS:
            found.append(f"<{element.name}> element")
        if element.name == "meta" and str(element.get("http-equiv", "")).lower() == "refresh":
            found.append("<meta http-equiv=refresh>")
        for name, value in element.attrs.items():
            value = " ".join(value) if isinstance(value, list) else str(value)
            if (name.lower().startswith("on") or (name.lower() in _URL_ATTRIBUTES and _RUNNING_URL.match(value))
                    or (name.lower() == "style" and _RUNNING_STYLE.search(value))):
                found.append(f'<{element.name} {name}="{value[:100]}">')
    return found


def export_notebook(notebook, out_dir=None, *, pages=None, exporter=None) -> StaticPage:
    """Write one solved notebook as a self-contained, script-free page ``<out_dir>/<stem>.html``.

    Parameters
    ----------
    notebook : str or Path
        The notebook (its stored outputs are used as they are; nothing is executed).
    out_dir : str or Path, optional
        Default ``build/html`` in the checkout. Created when missing.
    pages : set of str, optional
        Stems of the notebooks that get a page beside this one (links to them are rewritten);
        default: every notebook in the same folder.
    exporter : optional
        An exporter from an earlier call (saves building a new one for each notebook).

    Returns
    -------
    StaticPage

    Raises
    ------
    MathConversionError
        If a TeX expression cannot be converted (the message names the cell and the expression).
    RemoteResource
        If the page would load anything from the network.
    LiveScript
        If the page holds anything a browser would run.
    """
    import nbformat

    notebook = Path(notebook)
    out_dir = Path(out_dir) if out_dir is not None else OUT_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    if pages is None:
        pages = {p.stem for p in notebook.parent.glob("*.ipynb")}
    nb = copy.deepcopy(nbformat.read(notebook, as_version=4))
    nb.metadata.pop("widgets", None)  # no widget renderer in a static page: the stored pictures stand in
    title = _first_heading(nb, notebook.stem)
    nb.metadata["title"] = title
    exporter = exporter or _make_exporter()
    exporter.link_map = _link_map(notebook.parent, out_dir, set(pages))
    resources = {"metadata": {"name": notebook.stem, "path": str(notebook.parent)}}
    try:
        body, _ = exporter.from_notebook_node(nb, resources=resources)
    except MathConversionError as err:
        raise MathConversionError(f"{notebook.name}, {err}") from err
    problems = remote_loads(body)
    if problems:
        raise RemoteResource(f"{notebook.name}: the page would load files from the network:\n  "
                             + "\n  ".join(problems))
    running = live_script(body)
    if running:
        raise LiveScript(f"{notebook.name}: the page holds what a browser would run:\n  " + "\n  ".join(running))
    path = out_dir / f"{notebook.stem}.html"
    path.write_text(body, encoding="utf-8")
    return StaticPage(notebook=notebook, path=path, title=title)


def _index(pages: list) -> str:
    # (stdlib html is not imported here: this module shares its name)
    items = "\n".join(f"<li><a href={quoteattr(p.path.name)}>{escape(p.title)}</a></li>" for p in pages)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Self-attention, hands-on: the solved notebooks</title>
<style>body {{ font-family: system-ui, sans-serif; max-width: 44em; margin: 2em auto; padding: 0 1em;
line-height: 1.5; }}</style>
</head>
<body>
<h1>Self-attention, hands-on: the solved notebooks</h1>
<p>Each page is a solved notebook as it was last run, with its figures at their starting values. To move
the sliders and try the exercises, open the notebooks in JupyterLab (<code>make lab</code>).</p>
<ul>
{items}
</ul>
</body>
</html>
"""


def _select(notebooks: list, names) -> list:
    if not names:
        return notebooks
    chosen = []
    for name in names:
        key = Path(name).name.removesuffix(".ipynb")
        matches = [p for p in notebooks if p.stem == key] or [p for p in notebooks if p.stem.startswith(key)]
        if len(matches) != 1:
            found = ", ".join(p.stem for p in matches) or "none"
            raise ValueError(f"{name!r} names {len(matches)} notebooks ({found}); give a stem or a unique prefix")
        chosen += [p for p in matches if p not in chosen]
    return chosen


def export_all(solutions_dir=None, out_dir=None, names=None) -> list:
    """Write a page for each solved notebook (or those named) and ``index.html`` linking them.

    Parameters
    ----------
    solutions_dir : str or Path, optional
        Default ``solutions/`` in the checkout.
    out_dir : str or Path, optional
        Default ``build/html`` in the checkout.
    names : list of str, optional
        Only these notebooks (stem, file name or unique prefix such as ``"01"``).

    Returns
    -------
    list of StaticPage
        In file-name order. ``index.html`` lists every page in ``out_dir``'s notebooks that was written.

    Raises
    ------
    ValueError
        If a name matches no notebook or several.
    MathConversionError, RemoteResource, LiveScript
        As :func:`export_notebook`.
    """
    solutions_dir = Path(solutions_dir) if solutions_dir is not None else SOLUTIONS_DIR
    out_dir = Path(out_dir) if out_dir is not None else OUT_DIR
    notebooks = sorted(solutions_dir.glob("*.ipynb"))
    chosen = _select(notebooks, names)
    exporter = _make_exporter()
    pages = [export_notebook(p, out_dir, pages={n.stem for n in notebooks}, exporter=exporter) for p in chosen]
    if not names:
        (out_dir / "index.html").write_text(_index(pages), encoding="utf-8")
    return pages


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python tools/html_pages.py",
        description="Write the solved notebooks as self-contained HTML pages (figures embedded, maths as MathML, "
                    "no script, nothing loaded from the network) for a reader without Jupyter.")
    parser.add_argument("names", nargs="*", metavar="NOTEBOOK",
                        help="only these notebooks (stem, file name or unique prefix, e.g. 01)")
    parser.add_argument("--solutions", metavar="DIR", type=Path, default=None,
                        help="solved notebooks (default: <repo>/solutions)")
    parser.add_argument("--out", metavar="DIR", type=Path, default=None,
                        help="where the pages go (default: <repo>/build/html)")
    return parser


def main(argv=None) -> int:
    """Command-line entry point.

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 ok; 1 a notebook could not be exported; 2 bad usage.
    """
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exit_:  # argparse exits on bad usage (2) and on --help (0)
        return exit_.code if isinstance(exit_.code, int) else 2
    try:
        pages = export_all(args.solutions, args.out, args.names)
    except (MathConversionError, RemoteResource, LiveScript) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except ValueError as err:  # a name that matches no notebook, or several
        print(f"error: {err}", file=sys.stderr)
        return 2
    for page in pages:
        print(f"wrote {page.path}")
    if not args.names and pages:
        print(f"open {pages[0].path.parent / 'index.html'} in a browser")
    return 0


if __name__ == "__main__":
    sys.exit(main())
