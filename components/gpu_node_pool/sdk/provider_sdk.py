"""Import a Pulumi provider SDK that is an optional extra of this package, or say which extra installs it.

The provider SDKs are not in the package's core dependencies (the policy pack, the stack
validation and ``gpupool audit`` need none of them): ``pip install 'gpu-node-pool[aws]'`` adds
``pulumi-aws`` and ``pulumi-kubernetes``, ``[gcp]`` adds ``pulumi-gcp`` and ``pulumi-kubernetes``,
``[all]`` every extra (pyproject.toml ``[project.optional-dependencies]``).
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["EXTRAS", "MissingProviderSdk", "provider_sdk"]

#: Module -> (distribution, the extras that install it).
EXTRAS = {
    "pulumi_aws": ("pulumi-aws", ("aws", "all")),
    "pulumi_gcp": ("pulumi-gcp", ("gcp", "all")),
    "pulumi_kubernetes": ("pulumi-kubernetes", ("aws", "gcp", "all")),
}


class MissingProviderSdk(ImportError):
    """A provider SDK this code needs is not installed; the message names who needs it and the pip line."""


def provider_sdk(module: str, needed_by: str) -> ModuleType:
    """``import module`` (``pulumi_aws``, ``pulumi_gcp``, ``pulumi_kubernetes``).

    Args:
        module: a key of :data:`EXTRAS`.
        needed_by: what needs it, for the message (e.g. ``"the eks-managed backend"``).

    Raises:
        MissingProviderSdk: the module is not installed: "... needs pulumi-aws, which is not
            installed in <python>: pip install 'gpu-node-pool[aws]'".
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name != module:  # the SDK is there but one of its own imports is not: not ours to explain
            raise
        import sys

        distribution, extras = EXTRAS[module]
        lines = " or ".join(f"'gpu-node-pool[{extra}]'" for extra in extras if extra != "all")
        raise MissingProviderSdk(
            f"{needed_by} needs {distribution}, which is not installed in {sys.executable}: pip install {lines} "
            "(or [all]); the policy pack and gpupool audit need no provider SDK",
            name=module,
        ) from None
