"""Mistakes in code that uses the components: one clear ConfigError before any resource is registered."""

from __future__ import annotations

import pulumi
import pytest
from conftest import base

from gpu_node_pool import GpuNodePool, GpuNodePoolArgs, NvidiaDevicePlugin, NvidiaDevicePluginArgs
from gpu_node_pool.config import ConfigError, validate_stack_config
from gpu_node_pool.plan import record

PLUGIN_TYPES = {"gpu-node-pools:index:NvidiaDevicePlugin", "kubernetes:helm.sh/v4:Chart", "kubernetes:core/v1:Namespace"}


def _run(make_plugin_args, cfg=None, opts=None):
    """Declare the pools of ``cfg``, then the plugin; returns (error, what the plugin registered)."""
    s = validate_stack_config(cfg or base())
    registered = []

    def program():
        pools = [GpuNodePool(p.name, GpuNodePoolArgs(pool=p, cluster=s.cluster)) for p in s.pools]
        NvidiaDevicePlugin("nvidia-device-plugin", make_plugin_args(pools, s), opts=opts() if opts else None)

    with pytest.raises(ConfigError) as exc:
        record(program, sink=registered)
    return exc.value, [r for r in registered if r.type in PLUGIN_TYPES]


def test_a_gpu_node_pool_in_pools_instead_of_its_spec_names_the_fix_and_registers_no_plugin():
    err, plugin = _run(lambda pools, s: NvidiaDevicePluginArgs(s.cluster.name, pools))
    assert "pools[0]: is the GpuNodePool 'inference'; pass its validated model: pools=[inference.spec, ...]" in str(err)
    assert plugin == []


def test_no_pool_that_needs_the_plugin_is_refused_before_a_chart_with_no_node_selector_terms():
    cfg = base()
    cfg["pools"][0]["amiType"] = "BOTTLEROCKET_x86_64_NVIDIA"  # ships its own device plugin
    err, plugin = _run(lambda pools, s: NvidiaDevicePluginArgs(s.cluster.name, [p.spec for p in pools]), cfg)
    assert "no pool needs the NVIDIA device plugin (pools inference: each ships its own" in str(err)
    assert "nodeSelectorTerms" in str(err)
    assert plugin == []


def test_a_cluster_name_that_is_no_name_is_refused_with_runnable_examples():
    err, plugin = _run(lambda pools, s: NvidiaDevicePluginArgs("", [p.spec for p in pools]))
    assert "cluster_name: expected the cluster's name, got ''; e.g. NvidiaDevicePluginArgs(cluster_name='ml-dev'" in str(err)
    assert plugin == []


def test_the_once_per_cluster_check_is_keyed_on_the_kubernetes_provider_when_the_name_is_an_output():
    import pulumi_kubernetes as k8s

    s = validate_stack_config(base())

    def program():
        provider = k8s.Provider("ml-dev-k8s", kubeconfig="{}")
        opts = pulumi.ResourceOptions(providers={"kubernetes": provider})
        pool = GpuNodePool("inference", GpuNodePoolArgs(pool=s.pools[0], cluster=s.cluster))
        name = pulumi.Output.from_input("ml-dev")
        NvidiaDevicePlugin("plugin-a", NvidiaDevicePluginArgs(name, [pool.spec]), opts=opts)
        NvidiaDevicePlugin("plugin-b", NvidiaDevicePluginArgs(name, [pool.spec]), opts=opts)

    registered = []
    with pytest.raises(ConfigError, match="already declared for the kubernetes provider 'ml-dev-k8s'"):
        record(program, sink=registered)
    assert [r.name for r in registered if r.type == "kubernetes:helm.sh/v4:Chart"] == ["plugin-a-chart"]


def test_two_clusters_each_with_its_provider_get_one_plugin_each():
    import pulumi_kubernetes as k8s

    s = validate_stack_config(base())

    def program():
        pool = GpuNodePool("inference", GpuNodePoolArgs(pool=s.pools[0], cluster=s.cluster))
        for cluster in ("east", "west"):
            provider = k8s.Provider(f"{cluster}-k8s", kubeconfig="{}")
            NvidiaDevicePlugin(
                f"{cluster}-plugin",
                NvidiaDevicePluginArgs(pulumi.Output.from_input(cluster), [pool.spec]),
                opts=pulumi.ResourceOptions(providers={"kubernetes": provider}),
            )

    resources, _ = record(program)
    assert sorted(r.name for r in resources if r.type == "kubernetes:helm.sh/v4:Chart") == [
        "east-plugin-chart", "west-plugin-chart",
    ]


def test_the_code_examples_in_the_cluster_name_message_run_as_written():
    # every "e.g. NvidiaDevicePluginArgs(...)" the message offers is evaluated and declares a plugin
    import re

    import pulumi_aws as aws

    err, _ = _run(lambda pools, s: NvidiaDevicePluginArgs("", [p.spec for p in pools]))
    examples = re.findall(r"(NvidiaDevicePluginArgs\([^()]*(?:\([^()]*\)[^()]*)*\))", str(err))
    assert len(examples) == 2
    s = validate_stack_config(base())

    for i, example in enumerate(examples):
        def program(example=example, i=i):
            pool = GpuNodePool(f"pool-{i}", GpuNodePoolArgs(pool=s.pools[0], cluster=s.cluster))
            eks_cluster = aws.eks.Cluster(f"ml-{i}", name="ml-dev", role_arn="arn:aws:iam::111122223333:role/eks",
                                          vpc_config={"subnet_ids": ["subnet-0a1b2c3d4e5f60718"]})
            args = eval(example, {"NvidiaDevicePluginArgs": NvidiaDevicePluginArgs},  # noqa: S307 - our own message
                        {"pool": pool, "eks_cluster": eks_cluster})
            NvidiaDevicePlugin(f"plugin-{i}", args)

        resources, _ = record(program)
        assert any(r.type == "kubernetes:helm.sh/v4:Chart" for r in resources), example


def test_config_as_a_camelcase_mapping_is_validated_as_the_stack_devicePlugin_and_installs_there():
    s = validate_stack_config(base())
    seen = {}

    def program():
        pool = GpuNodePool("inference", GpuNodePoolArgs(pool=s.pools[0], cluster=s.cluster))
        plugin = NvidiaDevicePlugin("nvidia-device-plugin", NvidiaDevicePluginArgs(
            s.cluster.name, [pool.spec], config={"namespace": "gpu", "extraTolerations": [{"key": "dedicated",
                                                                                         "operator": "Exists"}]}))
        seen["tolerations"] = plugin.tolerations

    resources, _ = record(program)
    (namespace,) = [r for r in resources if r.type == "kubernetes:core/v1:Namespace"]
    assert namespace.inputs["metadata"]["name"] == "gpu"
    assert {"key": "dedicated", "operator": "Exists"} in seen["tolerations"]


@pytest.mark.parametrize(("config", "said"), [
    ({"namespace": "default"},
     "config.namespace: 'default': the chart refuses to install into the default namespace unless its value "
     "allowDefaultNamespace is true"),
    ({"namespce": "gpu"}, "config.namespce: unknown key 'namespce'; did you mean 'namespace'?"),
    ("gpu", "config: got 'gpu' (str); expected a DevicePluginConfig or its camelCase mapping as the stack config's "
            "devicePlugin takes it, e.g. config={'namespace': 'nvidia-device-plugin'}"),
    (None, "config: got None (NoneType); expected a DevicePluginConfig"),
])
def test_a_config_that_is_no_devicePlugin_is_one_line_at_config_and_registers_no_plugin(config, said):
    err, plugin = _run(lambda pools, s: NvidiaDevicePluginArgs(s.cluster.name, [p.spec for p in pools], config=config))
    (issue,) = err.issues
    assert err.source == "NvidiaDevicePluginArgs" and str(issue).startswith(said)
    assert plugin == []


def test_only_the_pools_the_plugin_serves_are_judged_and_an_issue_keeps_the_pools_index():
    from gpu_node_pool.config.common import MigConfig

    cfg = base()
    cfg["pools"].append({**cfg["pools"][0], "name": "bottlerocket", "amiType": "BOTTLEROCKET_x86_64_NVIDIA",
                         "instanceTypes": ["p5.48xlarge"]})
    cfg["pools"].append({**cfg["pools"][0], "name": "mig", "instanceTypes": ["p5.48xlarge"],
                         "mig": {"strategy": "single", "profile": "1g.10gb"}})
    s = validate_stack_config(cfg, agents_apart=True)
    # the Bottlerocket pool ships its own plugin: the chart does not serve it, so a MIG layout its image
    # refuses (a model changed after validation) is not this plugin's to judge
    own = s.pools[1].model_copy(update={"mig": MigConfig(strategy="mixed", profile="1g.10gb")})
    served = [s.pools[0], own]

    def program():
        NvidiaDevicePlugin("nvidia-device-plugin", NvidiaDevicePluginArgs(s.cluster.name, served))

    resources, _ = record(program)
    assert any(r.type == "kubernetes:helm.sh/v4:Chart" for r in resources)
    with pytest.raises(ConfigError) as exc:
        record(lambda: NvidiaDevicePlugin("nvidia-device-plugin", NvidiaDevicePluginArgs(
            s.cluster.name, [own, s.pools[0], s.pools[2]])))
    (issue,) = exc.value.issues
    assert issue.path == "pools[2].mig" and issue.message.startswith("pool 'mig': nothing partitions this pool's GPUs")


def _operator(agents, config):
    """Declare the pools of the base stack, then a GpuOperator with ``agents`` and ``config``."""
    from gpu_node_pool.gpu_agents import GpuOperator, GpuOperatorArgs

    s = validate_stack_config(base())
    seen = {}

    def program():
        pool = GpuNodePool("inference", GpuNodePoolArgs(pool=s.pools[0], cluster=s.cluster))
        seen["operator"] = GpuOperator("gpu-operator", GpuOperatorArgs(s.cluster.name, [pool.spec], agents=agents,
                                                                       config=config))

    return record(program)[0], seen.get("operator")


def test_gpu_operator_takes_agents_and_config_as_the_stacks_camelcase_mappings():
    _, operator = _operator({"dcgmExporter": {"enabled": True}},
                            {"extraTolerations": [{"key": "dedicated", "operator": "Exists"}]})
    assert operator.values["dcgmExporter"]["enabled"] is True
    assert {"key": "dedicated", "operator": "Exists"} in operator.tolerations


def test_gpu_operator_arguments_that_are_no_stack_sections_are_one_line_each_and_register_nothing():
    registered = []
    from gpu_node_pool.gpu_agents import GpuOperator, GpuOperatorArgs

    s = validate_stack_config(base())
    with pytest.raises(ConfigError) as exc:
        record(lambda: GpuOperator("gpu-operator", GpuOperatorArgs(
            s.cluster.name, list(s.pools), agents={"dcgmExporter": {"enabled": 1}}, config="gpu")), sink=registered)
    assert [str(i) for i in exc.value.issues] == [
        "agents.dcgmExporter.enabled: 1: must be a valid boolean",
        "config: got 'gpu' (str); expected a DevicePluginConfig or its camelCase mapping as the stack config's "
        "devicePlugin takes it, e.g. config={'extraTolerations': [{'key': 'dedicated', 'operator': 'Exists'}]}",
    ]
    assert exc.value.source == "GpuOperatorArgs" and registered == []
