"""A team's own Pulumi project as the CLI tests write it: its program, the project directory, a DaemonSet manifest.

``team_program(*lines)``: a Python program registering one tainted eks-managed ``GpuNodePool`` ``gpu`` (cluster
``ml``, ``g6.xlarge``, 0 to 2 nodes) and NVIDIA's device plugin for it (clean alone), then ``lines``.
``team_project(root, program)``: ``root`` made a Pulumi project (``Pulumi.yaml`` of project ``team-gpu``, stack
``ci``) running ``program``. ``daemonset_yaml()``: a minimal ``apps/v1`` DaemonSet manifest, as its text.
"""

from __future__ import annotations

from pathlib import Path

GPU_TAINT = "nvidia.com/gpu=present:NoSchedule"
#: The ``Pulumi.yaml`` of a team's Python project.
PULUMI_YAML = "name: team-gpu\nruntime:\n  name: python\n"


def team_program(*lines: str, taint: str = GPU_TAINT) -> str:
    """The program's text: imports (``pulumi``, ``pulumi_kubernetes as k8s``), the pool ``gpu`` tainted ``taint``
    (``key=value:Effect``), ``NvidiaDevicePlugin`` for it, then each of ``lines`` on its own line(s)."""
    return f"""\
import pulumi
import pulumi_kubernetes as k8s

from gpu_node_pool import GpuNodePool, GpuNodePoolArgs, NvidiaDevicePlugin, NvidiaDevicePluginArgs

cluster = {{"name": "ml", "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-nodes", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}}
gpu = GpuNodePool("gpu", GpuNodePoolArgs(cluster=cluster, pool={{
    "name": "gpu", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {{"minSize": 0, "maxSize": 2}},
    "taints": ["{taint}"]}}))
NvidiaDevicePlugin("nvidia-device-plugin", NvidiaDevicePluginArgs("ml", [gpu.spec]))
""" + "".join(f"{line}\n" for line in lines)


def team_project(root: Path, program: str, *, stack_text: str = "config: {}\n", main: str | None = None) -> Path:
    """``root`` (made if missing) as a project: ``Pulumi.yaml``, ``Pulumi.ci.yaml`` holding ``stack_text`` and
    ``__main__.py`` holding ``program``, in ``root/<main>`` when ``main`` is given (Pulumi.yaml's ``main``); returns
    ``root``."""
    app = root if main is None else root / main
    app.mkdir(parents=True, exist_ok=True)
    (root / "Pulumi.yaml").write_text(PULUMI_YAML + ("" if main is None else f"main: {main}\n"))
    (root / "Pulumi.ci.yaml").write_text(stack_text)
    (app / "__main__.py").write_text(program)
    return root


def daemonset_yaml(tolerations: str | None = None, *, name: str = "agent", namespace: str = "monitoring",
                   app: str = "agent", container: str = "agent", image: str = "example.com/agent:1.0") -> str:
    """A DaemonSet ``namespace/name`` (pod label ``app: <app>``) of one container, ending with
    ``      tolerations:<tolerations>`` when ``tolerations`` is given: a flow list (``" [...]"``) or block lines
    (``"\\n        - {...}"``), written as given."""
    text = f"""\
apiVersion: apps/v1
kind: DaemonSet
metadata: {{name: {name}, namespace: {namespace}}}
spec:
  selector: {{matchLabels: {{app: {app}}}}}
  template:
    metadata: {{labels: {{app: {app}}}}}
    spec:
      containers: [{{name: {container}, image: {image}}}]
"""
    return text if tolerations is None else f"{text}      tolerations:{tolerations}\n"
