"""The gpu-node-pools CrossGuard policy pack: builds the ``PolicyPack`` and nothing else.

This file is the pack's entry point. It ships inside the package
(``gpu_node_pool/policies/policy_pack/__main__.py``); ``gpupool policy-pack --out DIR`` copies it, with
``PulumiPolicy.yaml`` and a ``requirements.txt`` naming this package, into a directory that
``pulumi preview --policy-pack DIR`` runs and ``pulumi policy publish`` uploads. The repository's
``policy/`` folder is that output, kept in sync by a test.

``PolicyPack(...)`` starts the analyzer's gRPC server and blocks forever, so the policies live
in ``gpu_node_pool.policies``, which ``gpupool plan`` and the tests import without serving.
"""

from pulumi_policy import EnforcementLevel, PolicyPack

from gpu_node_pool.policies import PACK_DESCRIPTION, PACK_NAME, POLICIES
from gpu_node_pool.sdk.process import tune_gc

if __name__ == "__main__":  # the language host runs this file as __main__; importing it builds nothing
    tune_gc()  # this process is the pack's own: the analyzer decodes every resource once per policy
    PolicyPack(
        name=PACK_NAME,
        policies=POLICIES,
        enforcement_level=EnforcementLevel.ADVISORY,  # only for a policy without its own level (none)
        description=PACK_DESCRIPTION,
        display_name="gpu-node-pools: keep GPU nodes for GPU work",
        tags=["kubernetes", "gpu", "taints"],
    )
