"""Run every benchmark (what `make bench` does): attention, dashboard latency, notebook run times, a room on a hub.

Results go to benchmarks/results/ (Markdown tables and a PNG). Not part of `make test`.

    python benchmarks/run.py [--quick] [--setup] [--only PART ...] [--before REF]

`make bench BENCH_ARGS="--only notebooks"` runs one part (attention, dashboards, notebooks, hub). The hub part
(benchmarks/hub.py: 30 learners on a real JupyterHub, the sizing of docs/instructor-guide.md) takes the longest: its
duration is in benchmarks/results/hub.md; `--learners N` sets the room's size.
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import attention  # noqa: E402
import hub  # noqa: E402
import widgets  # noqa: E402

import notebooks  # noqa: E402

PARTS = ("attention", "dashboards", "notebooks", "hub")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: fewer sizes and repeats")
    parser.add_argument("--setup", action="store_true",
                        help="also time the first setup (fresh clone, empty caches, pip and uv side by side: "
                             "minutes, downloads every package; benchmarks/setup.py)")
    parser.add_argument("--only", action="append", choices=PARTS, metavar="PART",
                        help="run only this part (repeatable): " + ", ".join(PARTS))
    parser.add_argument("--before", help="the git ref the dashboards and notebooks are compared with "
                                         "(default: each part's own, written in its results)")
    parser.add_argument("--learners", type=int, default=30, help="the hub part's room (default 30; --quick: 3)")
    parser.add_argument("--after", help="the git ref whose notebooks are timed (default: this checkout as it is)")
    args = parser.parse_args(argv)
    parts = args.only or PARTS
    before = ["--before", args.before] if args.before else []
    start = time.perf_counter()
    if "attention" in parts:
        print("== attention", flush=True)
        attention.main(["--quick"] if args.quick else [])
    if "dashboards" in parts:
        print("== dashboards (today's against an older commit's, alternated)", flush=True)
        widgets.main(["--moves", "6" if args.quick else "20", "--rounds", "1" if args.quick else "2", *before])
    if "notebooks" in parts:
        print("== notebooks (today's against an older commit's, alternated)", flush=True)
        after = ["--after", args.after] if args.after else []
        notebooks.main(["--rounds", "1" if args.quick else "3", *before, *after])
    if "hub" in parts:
        print("== hub (a room of learners on a real JupyterHub: memory and CPU per learner, the guide's sizing)",
              flush=True)
        # --quick: a few learners, the report printed, results and the guide left alone (they come from a full run)
        hub.main(["--learners", "3", "--no-write"] if args.quick else ["--learners", str(args.learners), "--optional"])
    if args.setup:
        import setup  # only behind the flag: it takes minutes

        print("== first setup (fresh clone, empty caches: pip and uv)", flush=True)
        setup.main(["--repeats", "1" if args.quick else "2"])
    print(f"all benchmarks: {time.perf_counter() - start:.0f} s; results in benchmarks/results/")


if __name__ == "__main__":
    main()
