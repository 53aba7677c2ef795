"""Where a first fit's compilation goes: numba's front end against LLVM, kernel by kernel.

Run in a fresh process with an empty numba cache (the script makes one unless
``NUMBA_CACHE_DIR`` is set): ``import treelab``, then the first ``fit`` + ``predict_proba`` of
one family on iris. Two probes, both measuring process CPU time (``time.process_time``):

- a listener on numba's ``numba:compile`` event, which fires only for a real compilation (not
  a load from the cache) and nests: a kernel's *self* time is its compilation less the
  compilations of the kernels it calls, which numba runs during its type inference;
- a wrapper around llvmlite's calls into LLVM (``llvmlite.binding.ffi``): module and function
  passes, machine-code emission (``FinalizeObject``), parsing and linking of modules. Time in
  LLVM is charged to the innermost kernel being compiled; the rest of a kernel's self time is
  numba's front end (bytecode analysis, type inference, numba's own passes, lowering to LLVM IR,
  the cache write).

Kernels of numba itself (``np.zeros`` and the like, ``quicksort``) are compiled as separate
functions too and appear under their numba module. The wrapper adds a few percent of overhead.

Run:  python benchmarks/profile_first_compile.py [VRTrees] [--top 25]
"""

from __future__ import annotations

import argparse
import collections
import inspect
import os
import subprocess
import sys
import tempfile
import time


def profile(family: str, top: int) -> None:
    import llvmlite.binding.ffi as ffi
    from numba.core import event

    stack: list[list] = []  # [kernel, CPU at start, CPU of nested compilations, LLVM CPU]
    rows: list[tuple[float, float, str]] = []
    llvm_outside = [0.0]
    call = ffi._lib_fn_wrapper.__call__

    def timed_call(self, *args, **kwargs):
        started = time.process_time()
        try:
            return call(self, *args, **kwargs)
        finally:
            spent = time.process_time() - started
            if stack:
                stack[-1][3] += spent
            else:
                llvm_outside[0] += spent

    ffi._lib_fn_wrapper.__call__ = timed_call

    class Listener(event.Listener):
        def on_start(self, ev):
            fn = ev.data["dispatcher"].py_func
            name = fn.__module__.rsplit(".", 1)[-1] + "." + fn.__qualname__.split(".<locals>")[0]
            stack.append([name, time.process_time(), 0.0, 0.0])

        def on_end(self, ev):
            name, started, nested, llvm = stack.pop()
            total = time.process_time() - started
            if stack:
                stack[-1][2] += total
            rows.append((total - nested, llvm, name))

    event.register("numba:compile", Listener())
    c0 = time.process_time()
    from sklearn.datasets import load_iris

    import treelab

    X, y = load_iris(return_X_y=True)
    c1 = time.process_time()
    cls = getattr(treelab, family)
    params = {"random_state": 0}
    if "n_estimators" in inspect.signature(cls).parameters:
        params["n_estimators"] = 10
    model = cls(**params).fit(X, y)
    c2 = time.process_time()
    model.predict_proba(X)
    c3 = time.process_time()
    own = sum(r[0] for r in rows)
    llvm = sum(r[1] for r in rows)
    print(f"{family}: import {c1 - c0:.1f} CPU-s, fit {c2 - c1:.1f}, predict_proba {c3 - c2:.1f}; "
          f"{len(rows)} compilations: {own:.1f} CPU-s, LLVM {llvm:.1f}, front end "
          f"{own - llvm:.1f}")
    by_kernel: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for self_time, llvm_time, name in rows:
        entry = by_kernel[name]
        entry[0] += self_time
        entry[1] += llvm_time
        entry[2] += 1
    print(f"{'self CPU-s':>10} {'LLVM':>6} {'front':>6}  n  kernel")
    for name, (self_time, llvm_time, n) in sorted(by_kernel.items(),
                                                  key=lambda kv: -kv[1][0])[:top]:
        print(f"{self_time:10.2f} {llvm_time:6.2f} {self_time - llvm_time:6.2f} {n:2d}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("family", nargs="?", default="VRTrees")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        profile(args.family, args.top)
        return
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ)
        env.setdefault("NUMBA_CACHE_DIR", cache)
        cmd = [sys.executable, __file__, args.family, "--top", str(args.top), "--child"]
        subprocess.run(cmd, env=env, check=True)


if __name__ == "__main__":
    main()
