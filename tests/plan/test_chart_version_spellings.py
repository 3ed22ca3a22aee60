"""One rule of which spellings name one chart version: the stack config's ``devicePlugin.chartVersion`` pin and the
plan's device plugin stand-in (``the program asks for version ...``) read ``0.20.0`` and ``v0.20.0`` as the pinned
version, and every other spelling as another one, alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT

from gpu_node_pool.config.errors import ConfigError
from gpu_node_pool.config.loading import validate_stack_config
from gpu_node_pool.expand.result import NotJudged
from gpu_node_pool.plan.expand import _stand_in_label

CLUSTER = {"name": "ml", "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-nodes",
           "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}
POOL = {"name": "gpu", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 2},
        "taints": ["nvidia.com/gpu=present:NoSchedule"]}
NOT_RENDERED = NotJudged("urn", "kubernetes:helm.sh/v4:Chart", "helm is not installed", "install helm")


def config_accepts(spelling: str) -> bool:
    try:
        validate_stack_config({"cluster": CLUSTER, "pools": [POOL], "devicePlugin": {"chartVersion": spelling}})
    except ConfigError as err:
        assert "the component installs nvidia-device-plugin chart 0.20.0 only" in str(err)
        return False
    return True


@pytest.mark.parametrize(("spelling", "same"), [
    ("0.20.0", True), ("v0.20.0", True), ("V0.20.0", False), ("0.20", False), ("^0.20.0", False),
    (" 0.20.0", False), ("0.19.0", False)])
def test_the_stack_config_and_the_plans_stand_in_read_a_chart_version_alike(spelling, same):
    label = _stand_in_label(NOT_RENDERED, spelling, "0.20.0")
    asks_another = f"the program asks for version {spelling}, whose DaemonSet this stand-in need not match" in label
    assert config_accepts(spelling) is same
    assert asks_another is not same, label


def test_importing_the_rule_loads_no_pydantic():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "components"), os.environ.get("PYTHONPATH", "")]))
    probe = ("import json, sys; import gpu_node_pool.config.chart_versions, gpu_node_pool.plan.expand; "
             "print(json.dumps('pydantic' in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True, timeout=60)
    assert json.loads(out.stdout) is False
