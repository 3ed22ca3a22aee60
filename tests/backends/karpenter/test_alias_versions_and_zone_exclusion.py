"""Karpenter pools through ``gpupool plan``: the version of ``nodeClass.amiAlias``, a requirement on the zone key,
``kubernetes.io/hostname`` in ``labels`` and values given with ``Exists``/``DoesNotExist``.

Sources: an alias version is ``latest`` or the AMI's release tag, ``vYYYYMMDD`` for AL2023 and ``vX.Y.Z`` for
Bottlerocket (aws/karpenter-provider-aws website/content/en/docs/concepts/nodeclasses.md@v1.14.1; the CRD checks
only ``^[a-zA-Z0-9]+@.+$``); two requirements on one key are intersected (kubernetes-sigs/karpenter
pkg/scheduling/requirements.go@v1.14.1 ``Requirements.Add``); NodePool CRD ``requirements[].values``: empty for
Exists and DoesNotExist (aws/karpenter-provider-aws pkg/apis/crds/karpenter.sh_nodepools.yaml@v1.14.1).
"""

from __future__ import annotations

import json

import pytest

from gpu_node_pool.cli.commands import main

CLUSTER = """config:
  aws:region: us-east-1
  gpu-node-pools:cluster:
    name: ml-prod
    kubernetesVersion: "1.33"
{version}    nodeRoleArn: arn:aws:iam::444455556666:role/ml-prod-gpu-node
    subnetIds: [subnet-07a1c2e3f4a5b6c7d]
  gpu-node-pools:pools:
"""


def pool(name: str, extra: dict | None = None, backend: str = "karpenter") -> str:
    """One pool as a YAML list item (flow mappings are JSON), ``extra`` merged over a minimal valid pool."""
    body = {"name": name, "backend": backend, "instanceFamilies": ["g6e", "g6"],
            "taints": ["nvidia.com/gpu=present:NoSchedule"], "limits": {"nvidia.com/gpu": 8}}
    if backend == "karpenter":
        body["nodeClass"] = {}
    else:
        body["instanceFamilies"] = ["g6e"]
    body.update(extra or {})
    return "    - " + "\n      ".join(f"{k}: {json.dumps(v)}" for k, v in body.items()) + "\n"


def plan(capsys, temp_project, pools: list[str], version: str | None = "1.14") -> tuple[int, str]:
    """``gpupool plan`` of a stack with ``pools`` (``cluster.karpenterVersion`` ``version``, unstated when None),
    as a user runs it: exit code and everything printed."""
    text = CLUSTER.format(version=f'    karpenterVersion: "{version}"\n' if version else "") + "".join(pools)
    code = main(["plan", "--stack", "mine", "--project-dir", str(temp_project("mine", text))])
    out = capsys.readouterr()
    return code, out.out + out.err


def said(out: str, path: str) -> list[str]:
    """What each line naming ``path`` says after ``<path>: ``."""
    return [line.split(f" {path}: ", 1)[1] for line in out.splitlines() if f" {path}: " in line]


REFUSED_ALIASES = {
    "al2023@lastest": "did you mean latest?",
    "al2023@v2024": "al2023@v<YYYYMMDD>",
    "al2023@20240703": "the release tag starts with v: al2023@v20240703",
    "al2023@v20241301": "al2023@v<YYYYMMDD>",  # no 13th month
    "al2023@Latest": "in lower case only",
    "bottlerocket@v1.20": "bottlerocket@v1.20.4",
    "bottlerocket@lastest": "did you mean latest?",
}


def test_alias_versions_no_release_has_are_refused_with_the_source_and_a_fix(capsys, temp_project):
    names = list(REFUSED_ALIASES)
    code, out = plan(capsys, temp_project, [pool(f"p{i}", {"nodeClass": {"amiAlias": a}}) for i, a in enumerate(names)])
    assert code == 2, out
    assert "Pulumi.mine.yaml:" in out, out
    for i, alias in enumerate(names):
        (msg,) = said(out, f"pools[{i}].nodeClass.amiAlias")
        family = alias.split("@")[0]
        assert msg.startswith(f"{alias!r}: version {alias.split('@')[1]!r} is neither latest nor"), msg
        assert REFUSED_ALIASES[alias] in msg, msg
        assert "website/content/en/docs/concepts/nodeclasses.md@v1.14.1" in msg, msg
        assert f"pkg/providers/amifamily/{family}.go" in msg, msg
        assert "never becomes Ready" in msg and f"write {family}@latest or a release" in msg, msg


@pytest.mark.parametrize("alias", ["al2023@latest", "al2023@v20251015", "bottlerocket@latest",
                                   "bottlerocket@v1.20.4", "bottlerocket@1.20.4"])
def test_alias_versions_of_real_releases_are_taken(capsys, temp_project, alias):
    code, out = plan(capsys, temp_project, [pool("kp", {"nodeClass": {"amiAlias": alias}})])
    assert code == 0, out
    assert f"ami alias {alias}" in out and "amiAlias" not in out, out


def test_bottlerocket_version_with_a_commit_is_taken_with_a_not_judged_warning(capsys, temp_project):
    code, out = plan(capsys, temp_project, [pool("kp", {"nodeClass": {"amiAlias": "bottlerocket@v1.42.0-5ed15786"}})])
    assert code == 0, out
    (msg,) = said(out, "pools[0].nodeClass.amiAlias")
    assert "not judged" in msg and "tools/pubsys/policies/ssm/defaults.toml" in msg, msg
    assert msg.endswith("or pin bottlerocket@v1.42.0"), msg


ZONE = "topology.kubernetes.io/zone"


@pytest.mark.parametrize("backend", ["karpenter", "eks-auto"])
def test_a_zone_can_be_excluded_with_not_in_while_zones_is_unset(capsys, temp_project, backend):
    reqs = [{"key": ZONE, "operator": "NotIn", "values": ["us-east-1e"]}]
    code, out = plan(capsys, temp_project, [pool("kp", {"requirements": reqs}, backend)])
    assert code == 0, out
    assert f"{ZONE} NotIn [us-east-1e]" in out, out  # the NodePool's requirement, as the plan lists it


@pytest.mark.parametrize("backend", ["karpenter", "eks-auto"])
def test_zone_requirements_zones_says_or_that_match_no_node_are_refused_with_the_fix(capsys, temp_project, backend):
    code, out = plan(capsys, temp_project, [
        pool("a", {"zones": ["us-east-1a", "us-east-1b"],
                   "requirements": [{"key": ZONE, "operator": "NotIn", "values": ["us-east-1b"]}]}, backend),
        pool("b", {"requirements": [{"key": ZONE, "operator": "In", "values": ["us-east-1a"]}]}, backend),
        pool("c", {"requirements": [{"key": ZONE, "operator": "DoesNotExist"}]}, backend),
    ])
    assert code == 2, out
    (both,) = said(out, "pools[0]") + said(out, "pools[0].requirements[0].key")
    assert "is written by zones (us-east-1a, us-east-1b); list the zones you want in zones" in both, both
    assert "kubernetes-sigs/karpenter pkg/scheduling/requirements.go@v1.14.1 Requirements.Add" in both, both
    (same,) = said(out, "pools[1]") + said(out, "pools[1].requirements[0].key")
    assert "write zones: [us-east-1a] instead" in same, same
    (none,) = said(out, "pools[2]") + said(out, "pools[2].requirements[0].key")
    assert "DoesNotExist matches no node" in none and "use NotIn to exclude zones" in none, none


def test_other_keys_a_field_writes_stay_refused_with_the_source(capsys, temp_project):
    reqs = [{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "NotIn", "values": ["8"]}]
    code, out = plan(capsys, temp_project, [pool("kp", {"requirements": reqs})])
    assert code == 2, out
    (msg,) = said(out, "pools[0].requirements[0].key")
    assert msg.startswith("'karpenter.k8s.aws/instance-gpu-count' is written by gpuCounts; set it there ("), msg
    assert "requirements.go@v1.14.1" in msg, msg


@pytest.mark.parametrize("version", ["1.8", "1.14", None])
def test_hostname_label_is_reported_once_with_its_rule_and_source(capsys, temp_project, version):
    text = pool("kp", {"labels": {"kubernetes.io/hostname": "foo"}})
    code, out = plan(capsys, temp_project, [text], version)
    assert code == 2, out
    lines = [line for line in out.splitlines() if "kubernetes.io/hostname" in line]
    assert len(lines) == 1, out
    assert "label \"kubernetes.io/hostname\" is restricted" in lines[0], lines[0]
    assert "karpenter.sh_nodepools.yaml@v1.14.1" in lines[0] and lines[0].endswith("remove it"), lines[0]


@pytest.mark.parametrize(("operator", "fix"), [("Exists", "or use operator In to match only those values"),
                                               ("DoesNotExist", "or use operator NotIn to exclude them")])
def test_values_with_exists_or_does_not_exist_get_the_source_and_the_fix(capsys, temp_project, operator, fix):
    reqs = [{"key": "example.com/b", "operator": operator, "values": ["x"]}]
    code, out = plan(capsys, temp_project, [pool("kp", {"requirements": reqs})])
    assert code == 2, out
    (msg,) = said(out, "pools[0].requirements[0]")
    assert msg.startswith(f"operator {operator} takes no values: "), msg
    assert "https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/node-selector-requirement/" in msg
    assert "pkg/apis/crds/karpenter.sh_nodepools.yaml@v1.14.1" in msg, msg
    assert msg.endswith(f"remove values [x], {fix}"), msg
