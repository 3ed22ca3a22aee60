"""Expand what a program declares indirectly into the Kubernetes objects it will create.

Most DaemonSets do not arrive as a literal ``kubernetes:apps/v1:DaemonSet``: they come from
Helm charts (:mod:`.helm`), YAML manifests (:mod:`.yaml_manifests`) and EKS managed add-ons
(:mod:`.eks_addons`). Each expander returns the objects, or a :class:`NotJudged` record saying
why it could not, so nothing is silently passed, or a :class:`RefusedInput` for an input a real preview fails on. :mod:`.identify` tells the NVIDIA
device plugin by what it is, not by position.
"""

from .identify import DEVICE_PLUGIN_CHART, DEVICE_PLUGIN_IMAGE, is_device_plugin_chart, is_device_plugin_daemonset
from .result import Expanded, NotJudged, RefusedInput

__all__ = [
    "DEVICE_PLUGIN_CHART",
    "DEVICE_PLUGIN_IMAGE",
    "Expanded",
    "NotJudged",
    "RefusedInput",
    "is_device_plugin_chart",
    "is_device_plugin_daemonset",
]
