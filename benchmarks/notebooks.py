"""Run time of every solved notebook, executed top to bottom in a fresh kernel with nbclient (nothing is
written back to the notebooks). Writes benchmarks/results/notebooks.md.

    python benchmarks/notebooks.py [NN ...]
"""
import argparse
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def run(prefixes):
    rows = []
    for path in sorted((ROOT / "solutions").glob("[0-9][0-9]-*.ipynb")):
        if prefixes and path.name[:2] not in prefixes:
            continue
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(nb, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}})
        start = time.perf_counter()
        try:
            client.execute()
            status = "ok"
        except Exception as exc:  # report, do not stop the other notebooks
            status = f"error: {type(exc).__name__}"
        seconds = time.perf_counter() - start
        rows.append([path.stem, f"{seconds:.1f}", status])
        print(f"{path.stem:<34} {seconds:6.1f} s  {status}", flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefixes", nargs="*", help="notebook numbers, e.g. 01 07 (default: all)")
    args = parser.parse_args(argv)
    rows = run(set(args.prefixes))
    _common.RESULTS.mkdir(parents=True, exist_ok=True)
    total = sum(float(r[1]) for r in rows)
    text = "\n".join([
        "# Notebook run times",
        "",
        "Each solved notebook executed in a fresh python3 kernel (nbclient), kernel start-up included.",
        "",
        "## Machine",
        *_common.machine(),
        "",
        _common.markdown_table(["notebook", "seconds", "status"], rows),
        "",
        f"Total: {total:.1f} s.",
        "",
    ])
    (_common.RESULTS / "notebooks.md").write_text(text, encoding="utf-8")
    print(f"wrote {_common.RESULTS / 'notebooks.md'}")


if __name__ == "__main__":
    main()
