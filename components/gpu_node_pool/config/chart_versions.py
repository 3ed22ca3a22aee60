"""Pinned Helm chart versions: :func:`same_chart_version`, the one rule of which spellings name one chart version
(the stack config's pins and the plan's device plugin stand-in both ask it), and :func:`pinned_chart_version`, the
annotated type of every ``chartVersion`` field of a chart the component installs with values it writes
(``devicePlugin``, ``gpuAgents.dcgmExporter``, ``gpuAgents.efaDevicePlugin``).

The rule, in one place: the field takes the one version the component's values are written for, as ``X.Y.Z`` or
with a leading ``v`` (``vX.Y.Z``), and holds ``X.Y.Z``, which the component installs; any other value is refused
with the chart's name, the version installed, why it is pinned and how to proceed.

Why ``vX.Y.Z`` names the same chart: ``helm --version`` (helm/helm pkg/repo/v1/index.go@v4.1.4, the helm the
plan runs) and a Pulumi ``helm.v4.Chart``'s ``version`` (pulumi/pulumi-kubernetes provider/pkg/helm/tool.go@v4.32.0:
``action.Install``'s ``LocateChart``, of helm/helm pkg/repo/index.go@v3.20.2, the Helm library that provider builds
with) look the chart up with ``IndexFile.Get``, which reads the version as a Masterminds/semver v3 constraint
(``NewConstraint``; its ``cvRegex`` takes an optional ``v``, Masterminds/semver constraints.go@v3.4.0), and a bare
version is an equality constraint that the index's ``X.Y.Z`` meets. Other spellings (``V0.20.0``, ``0.20``, a
range, the version with spaces around it) are not that version here: a range may resolve to another version, whose
templates would read the values unchecked, and one spelling of each pin keeps the config and its JSON schema alike.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from .errors import fail

__all__ = ["pinned_chart_version", "same_chart_version"]


def same_chart_version(given: object, version: str) -> bool:
    """Whether ``given`` (a ``chartVersion`` in the stack config, a chart's ``version`` in a program) names chart
    version ``version`` (``X.Y.Z``, without ``v``): it is ``version`` or ``"v" + version``, exactly (module
    docstring: Helm's ``IndexFile.Get`` reads both as the one version ``X.Y.Z``). Anything else, a non-string, an
    empty version (Helm's "latest") or a range included, is False. Importing this module loads no pydantic."""
    return given in (version, "v" + version)


def pinned_chart_version(chart: str, version: str, *, writes: str, source: str, enabled_key: str, judged_by: str) -> Any:
    """The annotated type of a ``chartVersion`` field pinned to ``version`` of chart ``chart``.

    Args:
        chart: the chart's name as its repository's index names it (``nvidia-device-plugin``).
        version: the pinned version, ``X.Y.Z`` without ``v`` (the field's default and the only value it holds).
        writes: the values the component writes, for the refusal (``tolerations, affinity, priorityClassName``).
        source: the public source of that version's ``values.yaml`` and templates
            (``NVIDIA/k8s-device-plugin@v0.20.0 deployments/helm/nvidia-device-plugin``).
        enabled_key: the stack key that turns the component's install off (``devicePlugin.enabled``).
        judged_by: the policy that judges a chart of another version the user installs in the program.

    Returns:
        ``Annotated[Literal[version], BeforeValidator]``: validation reads ``version`` and ``"v" + version`` as
        ``version`` and raises :func:`~gpu_node_pool.config.errors.fail` for anything else, with the message
        ``"'<value>': the component installs <chart> chart <version> only: ... Remove chartVersion ..."``; the JSON
        schema offers both spellings (``enum: [version, "v" + version]``), while the field's own type (and the
        provider's schema built from it) stays the one version.
    """
    from pydantic import BeforeValidator

    from .messages import show

    with_v = "v" + version

    def pinned(given: Any) -> Any:
        if not same_chart_version(given, version):
            raise fail(
                f"{show(given)}: the component installs {chart} chart {version} only: the values it writes ({writes}) "
                "are that version's values.yaml keys, and the plan and its policies judge the DaemonSet that version's "
                f"templates render ({source}); another version may read them otherwise, unchecked. Remove chartVersion "
                f"({version} is the default; {with_v} is the same version), or set {enabled_key}: false and install "
                f"the version you need yourself (a Helm chart of it in your program is judged by {judged_by})"
            )
        return version

    return Annotated[Literal[version], BeforeValidator(pinned, json_schema_input_type=Literal[version, with_v])]
