"""Run every benchmark (what `make bench` does): attention, dashboard latency, notebook run times, hub sizing.

Results go to benchmarks/results/ (Markdown tables and a PNG). Not part of `make test`.

    python benchmarks/run.py [--quick] [--setup]
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import attention  # noqa: E402
import sizing  # noqa: E402
import widgets  # noqa: E402

import notebooks  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: fewer sizes and repeats")
    parser.add_argument("--setup", action="store_true",
                        help="also time the first setup (fresh clone, empty caches, pip and uv side by side: "
                             "minutes, downloads every package; benchmarks/setup.py)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    print("== attention", flush=True)
    attention.main(["--quick"] if args.quick else [])
    print("== dashboards", flush=True)
    widgets.main(["--moves", "6" if args.quick else "20"])
    print("== notebooks", flush=True)
    notebooks.main([])
    print("== sizing (memory and CPU per learner, for a JupyterHub)", flush=True)
    # --quick: one notebook, no server, results left alone (the guide's sizing tables come from a full run)
    sizing.main(["00", "--moves", "1", "--no-server", "--no-write"] if args.quick else ["--moves", "6"])
    if args.setup:
        import setup  # only behind the flag: it takes minutes

        print("== first setup (fresh clone, empty caches: pip and uv)", flush=True)
        setup.main(["--repeats", "1" if args.quick else "2"])
    print(f"all benchmarks: {time.perf_counter() - start:.0f} s; results in benchmarks/results/")


if __name__ == "__main__":
    main()
