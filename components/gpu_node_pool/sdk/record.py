"""The one record of a registered resource, shared by the plan (which records) and the policies
(which judge): Pulumi type token, name, inputs, and what the engine tells a stack policy.

It lives here, below both, because ``policies`` never imports ``plan`` (an import contract).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Resource"]


@dataclass
class Resource:
    """One resource a program registered (or the plan synthesized).

    Attributes:
        type: Pulumi type token, e.g. ``kubernetes:apps/v1:DaemonSet``.
        name: Pulumi resource name.
        inputs: camelCase inputs; values unknown at preview are
            :data:`gpu_node_pool.k8s.wellknown.UNKNOWN` (or the SDK's sentinel).
        custom: a custom resource (False for components).
        urn, parent: URNs, as the engine passes them to a stack policy (empty: not known; the
            runner then synthesizes one from type and name / no parent).
        dependencies: URNs this resource depends on; ``property_dependencies`` per input key.
        synthesized: non-empty for a record the plan made up rather than one the program
            registered (e.g. the device plugin chart's DaemonSet stand-in): why.
        source: ``(file, line, column)`` of the program line that constructed it (absolute file,
            1-based line and column; :mod:`gpu_node_pool.sdk.registration_sites`), or ``None``.
        secret_inputs: ``None`` unless the program passed a Pulumi secret (or a stack-file ``secure:``
            value): then ``inputs`` with each secret's plain value, which only the pack reads; ``inputs``
            shows each as :data:`gpu_node_pool.k8s.wellknown.SECRET` (:mod:`gpu_node_pool.sdk.secrets`).
    """

    type: str
    name: str
    inputs: dict[str, Any]
    custom: bool = True
    urn: str = ""
    parent: str = ""
    dependencies: list[str] = field(default_factory=list)
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)
    synthesized: str = ""
    source: tuple[str, int, int] | None = None
    secret_inputs: dict[str, Any] | None = field(default=None, repr=False)  # never shown, not even in a repr
