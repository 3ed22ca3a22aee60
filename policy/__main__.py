"""The gpu-node-pools CrossGuard policy pack: builds the ``PolicyPack`` and nothing else.

``PolicyPack(...)`` starts the analyzer's gRPC server and blocks forever, so the policies are
kept importable elsewhere. DESIGN.md places them in ``policy/gpu_node_policies/``; they live
in the installed package instead, ``gpu_node_pool.policies`` (components/gpu_node_pool/policies/),
so that ``gpupool plan`` and the tests import exactly these objects without sys.path tricks.

Run: ``pulumi preview --policy-pack policy [--policy-pack-config FILE]`` from the project root.
"""

from pulumi_policy import EnforcementLevel, PolicyPack

from gpu_node_pool.policies import PACK_DESCRIPTION, PACK_NAME, POLICIES

if __name__ == "__main__":  # the language host runs this file as __main__; importing it builds nothing
    PolicyPack(
        name=PACK_NAME,
        policies=POLICIES,
        enforcement_level=EnforcementLevel.ADVISORY,  # only for a policy without its own level (none)
        description=PACK_DESCRIPTION,
        display_name="gpu-node-pools: keep GPU nodes for GPU work",
        tags=["kubernetes", "gpu", "taints"],
    )
