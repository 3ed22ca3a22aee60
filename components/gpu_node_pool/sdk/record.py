"""The one record of a registered resource, shared by the plan (which records) and the policies
(which judge): Pulumi type token, name, inputs, and what the engine tells a stack policy.

It lives here, below both, because ``policies`` never imports ``plan`` (an import contract).

A record crosses a process boundary as JSON (``gpupool check``'s child, :mod:`gpu_node_pool.plan.check_child`):
:meth:`Resource.to_json` writes every Pulumi asset or archive in an input as Pulumi's own wire form, the map
``{ASSET_SIG_KEY: ASSET_SIG, "path" | "text" | "uri": ...}`` (``{ASSET_SIG_KEY: ARCHIVE_SIG, "path" | "uri" |
"assets": ...}`` for an archive), as ``pulumi.runtime.rpc.serialize_property`` sends it to the engine
(pulumi/pulumi sdk/python/lib/pulumi/runtime/rpc.py, ``_special_sig_key``, ``_special_asset_sig``,
``_special_archive_sig``); :func:`asset_parts` reads either form.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ARCHIVE_SIG", "ASSET_SIG", "ASSET_SIG_KEY", "Resource", "asset_parts", "wire_form"]

#: The key of Pulumi's wire form that says what a map stands for (pulumi.runtime.rpc ``_special_sig_key``).
ASSET_SIG_KEY = "4dabf18193072939515e22adb298388d"
#: Its value for an asset (``_special_asset_sig``).
ASSET_SIG = "c44067f5952c0a294b673a41bacd8c17"
#: Its value for an archive (``_special_archive_sig``).
ARCHIVE_SIG = "0def7320c3a5731c473e5ecbe6d01bc7"


def _pulumi_base(value: Any) -> str | None:
    """``"Asset"`` or ``"Archive"`` when ``value`` is one of the Pulumi SDK's (``pulumi.asset``), else None;
    told by class, so that this module imports no Pulumi."""
    for cls in type(value).__mro__:
        if cls.__module__ == "pulumi.asset" and cls.__name__ in ("Asset", "Archive"):
            return cls.__name__
    return None


def wire_form(value: Any) -> Any:
    """``value`` with every Pulumi asset or archive object in it (in maps and lists, at any depth) replaced by
    Pulumi's wire form (the module docstring); other values as they are (maps and lists copied)."""
    if isinstance(value, dict):
        return {k: wire_form(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [wire_form(v) for v in value]
    base = _pulumi_base(value)
    if base is None:
        return value
    out: dict[str, Any] = {ASSET_SIG_KEY: ASSET_SIG if base == "Asset" else ARCHIVE_SIG}
    for attr in ("path", "text", "uri", "assets"):  # the order rpc.serialize_property tests them in
        if hasattr(value, attr):
            out[attr] = wire_form(getattr(value, attr))
            break
    return out


def asset_parts(value: Any) -> tuple[str, str, Any] | None:
    """``(base, attr, value)`` of a Pulumi asset or archive, as an SDK object or in the wire form: ``base``
    ``"Asset"`` or ``"Archive"``, ``attr`` the one of ``path``/``text``/``uri``/``assets`` it carries (``""`` when
    none) and its value; None for anything else. ``("Asset", "path", "./values.yaml")`` for
    ``pulumi.FileAsset("./values.yaml")`` and for ``{ASSET_SIG_KEY: ASSET_SIG, "path": "./values.yaml"}``."""
    if isinstance(value, dict):
        sig = value.get(ASSET_SIG_KEY)
        base = "Asset" if sig == ASSET_SIG else "Archive" if sig == ARCHIVE_SIG else None
        if base is None:
            return None
        attr = next((a for a in ("path", "text", "uri", "assets") if a in value), "")
        return base, attr, value.get(attr) if attr else None
    base = _pulumi_base(value)
    if base is None:
        return None
    attr = next((a for a in ("path", "text", "uri", "assets") if hasattr(value, a)), "")
    return base, attr, getattr(value, attr) if attr else None


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

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON-ready dict of its fields (``dataclasses.asdict``), each Pulumi asset or archive of
        ``inputs`` and ``secret_inputs`` in Pulumi's wire form (:func:`wire_form`), so a reader on the other side
        of a process boundary reads a ``FileAsset``'s path and a ``StringAsset``'s text as the program gave them."""
        from dataclasses import asdict

        out = asdict(self)
        out["inputs"] = wire_form(self.inputs)
        out["secret_inputs"] = None if self.secret_inputs is None else wire_form(self.secret_inputs)
        return out
