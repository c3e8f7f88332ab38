"""Executes every notebook in this directory headless (nbclient), in the notebooks' directory.

Fails loudly: the first cell that raises stops the run, its traceback is printed and the exit
status is 1. Inputs come from the environment, as the notebooks read them:
RTOPK_RESULTS (an `rtopk reproduce --out` directory) and RTOPK_BENCH_JSON (optional).

    python notebooks/run_all.py            # all notebooks
    python notebooks/run_all.py 02_*.ipynb # some of them
"""

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

HERE = Path(__file__).resolve().parent


def run(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(HERE)}}
    )
    start = time.monotonic()
    client.execute()
    print(f"ok   {path.name} ({time.monotonic() - start:.1f} s)", flush=True)


def main() -> int:
    names = sys.argv[1:] or sorted(p.name for p in HERE.glob("*.ipynb"))
    if not names:
        print("no notebooks found", file=sys.stderr)
        return 1
    for name in names:
        path = HERE / name
        try:
            run(path)
        except CellExecutionError as e:
            print(f"FAIL {path.name}\n{e}", file=sys.stderr)
            return 1
    print(f"{len(names)} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
