"""Settings of the processes this package owns: the ``gpupool`` console script and the policy pack's
analyzer process (``policy_pack/__main__.py``, which ``pulumi preview --policy-pack`` starts). Never
applied when the package is imported as a library (a user's Pulumi program, the tests).

The garbage collector: Python collects its youngest generation after every 700 net allocations.
A plan allocates hundreds of thousands of short-lived, acyclic objects (parsed YAML, pydantic
models, the SDK's futures and protobuf messages), so the collector ran thousands of times,
each pass older generations walking everything alive. :data:`GC_THRESHOLDS` collects 70 times
less often and still collects (reference cycles from asyncio are freed). Measured on the bench
stacks (BENCHMARKS.md): ``gpupool plan`` at 100 pools 3.0 -> 2.5 s, at 1000 pools 15.7 ->
12.0 s, peak RSS within 2%; the pack through pulumi_policy's analyzer on 10k resources 11.5 -> 6.9 s. Source of the mechanism: https://docs.python.org/3/library/gc.html#gc.set_threshold

Once ``gpupool plan`` starts planning (:func:`pause_collector`) the collector does not run at all:
what a plan allocates stays alive until the report is written (the YAML tree, the models, the
recorded resources, the SDK's futures), so each collection walked live objects only, and at 1000
pools even the youngest generation's passes took 1.8 s of 8.5 s; paused, the plan takes 1.2 s less
for 4% more peak RSS (the few reference cycles it drops wait for the process's end).
"""

from __future__ import annotations

import gc

__all__ = ["GC_THRESHOLDS", "pause_collector", "tune_gc"]

#: ``gc.set_threshold`` arguments of a gpupool process: (generation 0 allocations, generation 1
#: and generation 2 collections between older ones).
GC_THRESHOLDS = (50_000, 20, 20)

#: Whether :func:`tune_gc` ran: this process is one the package owns.
_owned = False


def tune_gc() -> None:
    """Apply :data:`GC_THRESHOLDS` to this process (the ``gpupool`` console script calls it first)."""
    global _owned
    _owned = True
    gc.set_threshold(*GC_THRESHOLDS)


def pause_collector() -> None:
    """In a process this package owns (:func:`tune_gc` applied), no garbage collection for the rest of
    its run (``gc.disable``); elsewhere (a library call, a test) nothing changes. Turning the collector
    back on would cost one pass over everything allocated meanwhile, so it stays off until the end."""
    if _owned:
        gc.disable()
