"""A retired GPU type is refused for what it is (its family's note, the EKS AMIs' list) with current GPU types in its
place, and an upper-case type is told EC2's names are lower case, instead of CPU look-alikes or 'not an NVIDIA type'."""

import pytest

from gpu_node_pool import catalog
from gpu_node_pool.catalog import _families
from gpu_node_pool.catalog.instances import nvidia_instance_problems_at


@pytest.mark.parametrize(("name", "offered"), [
    ("p2.xlarge", "g6.xlarge, g5.xlarge, g4dn.xlarge"),
    ("g3.4xlarge", "g6.4xlarge, g5.4xlarge, g4dn.4xlarge"),
    ("g3s.xlarge", "g6.xlarge, g5.xlarge, g4dn.xlarge"),
])
def test_a_retired_type_names_its_family_and_offers_current_gpu_types(name, offered):
    [message] = catalog.unknown_type_problems([name])
    family = catalog.instance_family(name)
    assert f"retired {family} family" in message and _families._RETIRED in message
    assert _families.EKS_AMI_GPU_TYPES in message
    assert message.endswith(f"Use a current GPU type, e.g. {offered}")
    assert "allowUnknownInstanceTypes" not in message and "did you mean" not in message
    assert not any(cpu in message for cpu in ("t2.", "m2.", "i2.", "r3.", "i3."))


def test_p2_names_the_driver_its_k80_needs():
    [message] = catalog.unknown_type_problems(["p2.8xlarge"])
    assert "NVIDIA K80" in message and "https://github.com/awslabs/amazon-eks-ami/issues/1448" in message


def test_each_retired_family_is_a_sourced_nvidia_family():
    for family in _families.RETIRED_FAMILIES:
        gpu = catalog.family_gpu(family)
        assert gpu is not None and gpu.note == _families._RETIRED and "eks-ami-gpus" in gpu.source
    assert all(catalog.find(f"{f}.xlarge") for f in _families.CURRENT_GPU_FAMILIES)


@pytest.mark.parametrize(("value", "fix"), [("G6.XLARGE", "write 'g6.xlarge'"), ("G6.xlarge", "write 'g6.xlarge'"),
                                            ("P5.48XLARGE", "write 'p5.48xlarge'")])
def test_an_upper_case_gpu_type_is_told_names_are_lower_case(value, fix):
    [(at, problem)] = nvidia_instance_problems_at([value])
    assert at == 0
    assert "EC2 instance type names are lower case" in problem and catalog.EC2_INSTANCE_TYPE_NAMES in problem
    assert problem.endswith(fix) and "not an NVIDIA GPU instance type" not in problem
    [unknown] = catalog.unknown_type_problems([value])
    assert unknown == problem


def test_an_upper_case_family_and_a_cpu_type():
    [(at, problem)] = nvidia_instance_problems_at(["G6E"], families=True)
    assert at == 0
    assert "lower case" in problem and problem.endswith("write 'g6e'")
    [(at, cpu)] = nvidia_instance_problems_at(["M5.LARGE"])
    assert at == 0
    assert cpu == "'M5.LARGE' is not an NVIDIA GPU instance type (e.g. g6.xlarge, p5.48xlarge)"
