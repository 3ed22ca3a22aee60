"""The gpu-node-pools CrossGuard policy pack, one stack policy per enforcement level: builds the ``PolicyPack``.

``gpupool policy-pack --layout per-level --out DIR`` copies this file as ``DIR/__main__.py`` (the
default layout, one policy per rule, copies ``__main__.py``). The rules, their ids, levels,
config and findings are the same; Pulumi sees ``gpu-node-pools-mandatory`` and
``gpu-node-pools-advisory`` (only those with a rule at their level run), and every message
starts with ``[<rule id>]``. :mod:`gpu_node_pool.policies.level_pack` says how and what differs.
"""

import sys

from pulumi_policy import EnforcementLevel, PolicyPack

from gpu_node_pool.policies import PACK_DESCRIPTION, PACK_NAME
from gpu_node_pool.policies.level_pack import LevelSettings, check_config, level_policies
from gpu_node_pool.sdk.analyzer_config import AnalyzerHookError, install_configure_hook
from gpu_node_pool.sdk.process import tune_gc

if __name__ == "__main__":  # the language host runs this file as __main__; importing it builds nothing
    tune_gc()  # this process is the pack's own
    settings = LevelSettings()
    try:
        install_configure_hook(lambda entries: check_config(settings, entries))  # per-rule config, by rule id
    except AnalyzerHookError as err:  # the levels cannot be read on another pulumi-policy: say why, no traceback
        print(f"error: {err}", file=sys.stderr)
        sys.exit(1)
    PolicyPack(
        name=PACK_NAME,
        policies=level_policies(settings),
        enforcement_level=EnforcementLevel.ADVISORY,  # only for a policy without its own level (none)
        description=PACK_DESCRIPTION,
        display_name="gpu-node-pools: keep GPU nodes for GPU work",
        tags=["kubernetes", "gpu", "taints"],
    )
