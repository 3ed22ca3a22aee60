"""The gpu-node-pools CrossGuard policy pack: builds the ``PolicyPack`` and nothing else.

This file is the pack's entry point. It ships inside the package
(``gpu_node_pool/policies/policy_pack/__main__.py``); ``gpupool policy-pack --out DIR`` copies it, with
``PulumiPolicy.yaml`` and a ``requirements.txt`` naming this package, into a directory that
``pulumi preview --policy-pack DIR`` runs and ``pulumi policy publish`` uploads. The repository's
``policy/`` folder is that output, kept in sync by a test.

``PolicyPack(...)`` starts the analyzer's gRPC server and blocks forever, so the policies live
in ``gpu_node_pool.policies``, which ``gpupool plan`` and the tests import without serving.

The engine forwards config entries of names that are no policy of the pack and checks no property
beyond each policy's schema (:mod:`gpu_node_pool.sdk.analyzer_config`); the analyzer's ``Configure``
hook refuses them as ``gpupool plan`` does, so a typo fails the preview instead of being ignored. On a
pulumi-policy release the hook was not written for, the pack still serves its rules and says on stderr that the
config is not checked.
"""

import sys

from pulumi_policy import EnforcementLevel, PolicyPack

from gpu_node_pool.policies import PACK_DESCRIPTION, PACK_NAME, POLICIES
from gpu_node_pool.policies.pack_config import check_engine_config
from gpu_node_pool.sdk.analyzer_config import AnalyzerHookError, install_configure_hook
from gpu_node_pool.sdk.process import tune_gc

if __name__ == "__main__":  # the language host runs this file as __main__; importing it builds nothing
    tune_gc()  # this process is the pack's own: the analyzer decodes every resource once per policy
    try:
        install_configure_hook(lambda entries: check_engine_config(entries, "per-rule"), one_decoding=False)
    except AnalyzerHookError as err:  # another pulumi-policy: the rules run, the config is not checked
        print(f"warning: config mistakes are not checked: {err}", file=sys.stderr)
    PolicyPack(
        name=PACK_NAME,
        policies=POLICIES,
        enforcement_level=EnforcementLevel.ADVISORY,  # only for a policy without its own level (none)
        description=PACK_DESCRIPTION,
        display_name="gpu-node-pools: keep GPU nodes for GPU work",
        tags=["kubernetes", "gpu", "taints"],
    )
