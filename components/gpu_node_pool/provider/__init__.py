"""The component package: ``GpuNodePool`` and its agents for every Pulumi language.

A source-based plugin package (``plugin/PulumiPlugin.yaml``): ``pulumi package add`` runs
:func:`.host.main`, which serves the components of :mod:`.components` through Pulumi's component
provider; their schema is inferred from the typed arguments of :mod:`.types` (built from the
config models). Nothing here is imported by ``import gpu_node_pool`` or the ``gpupool`` CLI.
"""

PACKAGE = "gpu-node-pools"
"""The Pulumi package name: the first part of every type token (``gpu-node-pools:index:GpuNodePool``)."""
