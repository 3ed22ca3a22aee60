"""Kubernetes semantics, pure: taints, tolerations and what the cluster adds to them, node labels,
node selection, resource quantities, startup taints and the well-known names the package means.

Nothing here imports Pulumi, pydantic or any other room of the package (an import-linter contract
checks it): every other room builds on these modules.
"""
