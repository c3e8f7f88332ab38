"""Executes every notebook in this directory headless (nbclient), in the notebooks' directory.

Fails loudly: the first cell that raises stops the run, its traceback is printed and the exit
status is 1. Inputs come from the environment, as the notebooks read them:
RTOPK_RESULTS (an `rtopk reproduce --out` directory) and RTOPK_BENCH_JSON (optional).

With `--out DIR`, each executed notebook is saved into DIR with its outputs (figures
included), so that a reader sees the plots without running Jupyter; the committed copies live
in results/notebooks/. The notebooks in this directory stay without outputs.

    python notebooks/run_all.py                            # all notebooks, outputs discarded
    python notebooks/run_all.py --out results/notebooks    # all, executed copies saved
    python notebooks/run_all.py 02_*.ipynb                 # some of them
"""

import argparse
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

HERE = Path(__file__).resolve().parent


def run(path: Path, out_dir: Path | None) -> None:
    nb = nbformat.read(path, as_version=4)
    # No per-cell timestamps: an executed copy changes only when a result changes.
    client = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(HERE)}},
    )
    start = time.monotonic()
    client.execute()
    if out_dir is not None:
        nbformat.write(nb, out_dir / path.name)
    print(f"ok   {path.name} ({time.monotonic() - start:.1f} s)", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="save the executed notebooks into this directory")
    parser.add_argument("names", nargs="*", help="notebook file names (default: all)")
    args = parser.parse_args()
    names = args.names or sorted(p.name for p in HERE.glob("*.ipynb"))
    if not names:
        print("no notebooks found", file=sys.stderr)
        return 1
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
    for name in names:
        path = HERE / name
        try:
            run(path, args.out)
        except CellExecutionError as e:
            print(f"FAIL {path.name}\n{e}", file=sys.stderr)
            return 1
    print(f"{len(names)} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
