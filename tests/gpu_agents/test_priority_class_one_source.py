"""The node agents' priority class and the classes GKE's critical-pods quota covers are one name, spelled once
(``k8s/wellknown.py``): the quota is decided by comparing the two, so a second spelling could drift apart."""

from __future__ import annotations

import ast
from pathlib import Path

import gpu_node_pool
from gpu_node_pool.gpu_agents.critical_quota import CRITICAL_PRIORITY_CLASSES, needs_critical_pods_quota
from gpu_node_pool.gpu_agents.device_plugin.chart import CHART_DEFAULT_VALUES
from gpu_node_pool.gpu_agents.gpu_operator.component import PRIORITY_CLASS
from gpu_node_pool.k8s.wellknown import SYSTEM_CLUSTER_CRITICAL, SYSTEM_NODE_CRITICAL

PACKAGE = Path(gpu_node_pool.__file__).parent
NAMES = {SYSTEM_NODE_CRITICAL, SYSTEM_CLUSTER_CRITICAL}


def test_no_module_but_wellknown_spells_a_critical_priority_class():
    spelled = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "k8s" / "wellknown.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in NAMES:
                spelled.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value!r}")
    assert spelled == [], "import the name from gpu_node_pool.k8s.wellknown instead"


def test_every_agents_priority_class_is_one_the_quota_covers():
    assert set(CRITICAL_PRIORITY_CLASSES) == NAMES
    assert CHART_DEFAULT_VALUES["priorityClassName"] == SYSTEM_NODE_CRITICAL
    assert PRIORITY_CLASS == SYSTEM_NODE_CRITICAL

    class GkePool:
        critical_pods_need_quota = True

    assert needs_critical_pods_quota([GkePool()], SYSTEM_NODE_CRITICAL, "gpu-operator")
    assert not needs_critical_pods_quota([GkePool()], SYSTEM_NODE_CRITICAL, "kube-system")
