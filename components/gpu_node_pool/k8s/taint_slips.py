"""A taint written by hand that YAML read as something else, and the taint it was meant to be.

A taint written as one string, ``key=value:Effect`` or ``key:Effect`` (the kubelet's ``--register-with-taints``
form, read by ``parseTaint``, kubernetes ``pkg/util/taints/taints.go``), becomes a one-key mapping when a space
follows a ``:``: in a YAML plain scalar ``': '`` starts a value ("Plain scalars must never contain the ': ' and
' #' character combinations", YAML 1.2.2, 7.3.3 Plain Style, https://yaml.org/spec/1.2.2/#733-plain-style). So
``nvidia.com/gpu = present : NoSchedule`` reaches a reader as ``{'nvidia.com/gpu = present': 'NoSchedule'}`` and
``nvidia.com/gpu: NoSchedule`` as ``{'nvidia.com/gpu': 'NoSchedule'}``, and a reader of taint objects would report
missing ``key`` and ``effect`` fields instead of the slip.

Pure: no pydantic, no Pulumi.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..text.terminal import shown
from .effects import EFFECT_SPELLINGS, TaintEffect

__all__ = ["YAML_PLAIN_STYLE", "mapping_slip"]

#: Where YAML says that ``': '`` in a plain scalar starts a value (module docstring).
YAML_PLAIN_STYLE = "https://yaml.org/spec/1.2.2/#733-plain-style"


def mapping_slip(key: Any, value: Any, fields: Collection[str]) -> str | None:
    """The message for a taint that YAML read as the one-key mapping ``{key: value}``, or None when it is not one.

    ``key`` and ``value`` are the mapping's only key and its value as YAML read them; ``fields`` are the names a
    taint object really has (such as ``key``, ``value``, ``effect``), so that a taint object with one field is left
    to the reader of objects. It is a slip when ``key`` is a string that is none of ``fields``, ``value`` is a
    string or None (``k=v:`` reads as ``{'k=v': None}``), and either ``key`` holds ``=`` (it was ``key=value``) or
    ``value``, stripped, is an effect (``NoSchedule``, ``PreferNoSchedule``, ``NoExecute``) or what a wrong spelling
    of one most likely means (:meth:`~gpu_node_pool.k8s.effects.TaintEffect.meant`: ``NO_SCHEDULE``,
    ``noschedule``, ``NoScheduel``).

    The message shows the mapping as YAML read it, says why (``': '`` starts a value, with the YAML spec's URL) and
    the fix: the taint as one string without spaces, e.g. ``nvidia.com/gpu=present:NoSchedule`` (``key`` with its
    spaces removed, ``:``, ``value`` stripped).
    """
    if not isinstance(key, str) or not isinstance(value, str | None) or key in fields:
        return None
    effect = (value or "").strip()
    if "=" not in key and effect not in EFFECT_SPELLINGS and TaintEffect.meant(effect) is None:
        return None
    meant = f"{key.replace(' ', '')}:{effect}"
    return (f"{shown(key)}: {shown(value)} is a mapping to YAML (': ' starts a value: {YAML_PLAIN_STYLE}): "
            f"write the taint as one string without spaces, e.g. {shown(meant, quote=False)}")
