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
"""

from __future__ import annotations

import gc

__all__ = ["GC_THRESHOLDS", "tune_gc"]

#: ``gc.set_threshold`` arguments of a gpupool process: (generation 0 allocations, generation 1
#: and generation 2 collections between older ones).
GC_THRESHOLDS = (50_000, 20, 20)


def tune_gc() -> None:
    """Apply :data:`GC_THRESHOLDS` to this process (the ``gpupool`` console script calls it first)."""
    gc.set_threshold(*GC_THRESHOLDS)
