"""The ``pools`` argument of every GPU agent's args class is checked by one rule, whose messages name what the program
passed in a Python author's words (``got None``, ``got a dict (a mapping)``), never a Python type's internal name."""

from __future__ import annotations

import pytest
from conftest import base

from gpu_node_pool.config import ConfigError, validate_stack_config
from gpu_node_pool.gpu_agents.device_plugin import checks as plugin_checks
from gpu_node_pool.gpu_agents.efa_device_plugin import checks as efa_checks
from gpu_node_pool.gpu_agents.gke_driver_installer import checks as installer_checks
from gpu_node_pool.gpu_agents.pool_args import kind_of

CHECKS = [(plugin_checks.served_pools, "NvidiaDevicePluginArgs"), (efa_checks.served_pools, "EfaDevicePluginArgs"),
          (installer_checks.served_pools, "GkeDriverInstallerArgs")]


@pytest.mark.parametrize("served_pools, source", CHECKS, ids=[c[1] for c in CHECKS])
@pytest.mark.parametrize("pools, got", [(None, "None"), ({"name": "gpu"}, "a dict (a mapping)"), ("gpu", "a string"),
                                        (3, "an int")])
def test_pools_that_is_no_list_names_what_it_got_and_a_call_that_works(served_pools, source, pools, got):
    with pytest.raises(ConfigError) as err:
        served_pools(pools)
    assert str(err.value) == (f"1 error in the {source}; no resource was registered:\n"
                              f"  pools: expected a list of pool models (GpuNodePool.spec), got {got}; "
                              f"e.g. {source}(cluster_name='ml', pools=[pool.spec])")


@pytest.mark.parametrize("served_pools, source", CHECKS, ids=[c[1] for c in CHECKS])
@pytest.mark.parametrize("item, got", [(None, "None"), ({"name": "gpu"}, "a dict (a mapping)"), (["gpu"], "a list"),
                                       ("gpu", "a string")])
def test_an_item_that_is_no_pool_model_is_named_by_its_index_and_kind(served_pools, source, item, got):
    spec = validate_stack_config(base()).pools[0]
    with pytest.raises(ConfigError) as err:
        served_pools([spec, item])
    assert str(err.value).endswith(f"\n  pools[1]: expected a pool model (GpuNodePool.spec), got {got}")
    assert "NoneType" not in str(err.value) and "got dict" not in str(err.value)


def test_one_pool_model_on_its_own_is_told_to_go_in_a_list():
    spec = validate_stack_config(base()).pools[0]
    with pytest.raises(ConfigError) as err:
        plugin_checks.served_pools(spec)
    assert str(err.value).endswith("pools: expected a list of pool models (GpuNodePool.spec), got an EksManagedPool "
                                   "(pool 'inference') on its own; put it in a list: pools=[inference.spec]")


@pytest.mark.parametrize("value, kind", [(None, "None"), (True, "a bool"), (1.5, "a float"), (b"x", "bytes"),
                                         ((1,), "a tuple"), ({1}, "a set"), (object(), "an object")])
def test_kind_of_names_a_value_without_python_internals(value, kind):
    assert kind_of(value) == kind
