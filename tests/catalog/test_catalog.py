"""The instance catalog: generated from Cluster Autoscaler's table, checked against it, and the facts it folds in.

Tests that read ``../shared/facts`` skip (with the reason) when that folder is absent; the
generated data file is committed, so every other test runs in a clean clone too.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import ROOT

from gpu_node_pool import catalog
from gpu_node_pool.catalog import instances

# ../shared beside the repo (a git worktree elsewhere can point GPU_NODE_POOLS_SHARED at it).
FACTS = Path(os.environ.get("GPU_NODE_POOLS_SHARED", ROOT.parent / "shared")) / "facts"
CSV = FACTS / "ec2-instance-types.csv"
GENERATOR = ROOT / "scripts" / "gen_instance_catalog.py"
needs_facts = pytest.mark.skipif(not CSV.is_file(), reason=f"{CSV} absent (facts live outside the repo)")


def csv_rows() -> dict[str, dict[str, str]]:
    return {row["instance_type"]: row for row in csv.DictReader(CSV.open())}


@needs_facts
def test_every_nvidia_type_of_the_facts_csv_has_the_csv_numbers_in_the_catalog():
    rows = {name: row for name, row in csv_rows().items() if catalog.is_nvidia(name)}
    # 61 rows with gpus > 0 (ec2-instance-types.md) minus g4ad (5, AMD) and dl1 (1, Habana), plus g6f/gr6f (5, 0 GPUs)
    assert len(rows) == 60
    for name, row in rows.items():
        t = catalog.lookup(name)
        got = (t.vcpu, t.memory_mib, t.ec2_gpus, t.architecture, t.in_autoscaler_table)
        assert got == (int(row["vcpu"]), int(row["memory_mib"]), int(row["gpus"]), row["architecture"], True), name


@needs_facts
def test_every_row_of_the_facts_csv_is_in_the_catalog_and_nothing_else_from_the_autoscaler():
    rows = csv_rows()
    in_table = {t.name for t in catalog.all_types() if t.in_autoscaler_table}
    assert in_table == set(rows)
    assert all(catalog.lookup(n).vcpu == int(r["vcpu"]) for n, r in rows.items())


@needs_facts
def test_the_committed_data_file_is_what_the_generator_makes_from_the_csv():
    run = subprocess.run([sys.executable, str(GENERATOR), str(CSV), "--check"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


DATA = ROOT / "components/gpu_node_pool/catalog/ec2_instance_types.csv"
HEADER = "instance_type,vcpu,memory_mib,gpus,architecture"


def test_the_data_file_says_it_is_generated_from_which_file_commit_and_checksum():
    head = DATA.read_text().splitlines()[:12]
    text = "\n".join(head)
    assert "GENERATED FILE" in text and "gen_instance_catalog.py" in text
    assert "# upstream: kubernetes/autoscaler@55c37cd5eb55 (2026-08-22)" in head
    assert "cluster-autoscaler/cloudprovider/aws/ec2_instance_types.go" in text
    assert "# source-sha256: 9721d414baf9278ae056c49d14adcc6c9677100c1b9c4f161f23173653ff68b7" in head
    assert catalog.UPSTREAM == "kubernetes/autoscaler@55c37cd5eb55 (2026-08-22)"


def test_the_packaged_data_file_holds_the_autoscaler_table_row_for_row():
    # The table of kubernetes/autoscaler@55c37cd5eb55: 1108 types, of which these rows as it lists them.
    assert catalog.data_file().read_text() == DATA.read_text()
    in_table = {t.name: t for t in catalog.all_types() if t.in_autoscaler_table}
    assert len(in_table) == 1108
    rows = {
        name: (t.vcpu, t.memory_mib, t.ec2_gpus, t.architecture)
        for name, t in in_table.items() if name in ("p5.48xlarge", "g6e.12xlarge", "g5g.16xlarge", "g6f.large", "a1.medium")
    }
    assert rows == {
        "p5.48xlarge": (192, 2097152, 8, "amd64"),
        "g6e.12xlarge": (48, 393216, 4, "amd64"),
        "g5g.16xlarge": (64, 131072, 2, "arm64"),
        "g6f.large": (2, 8192, 0, "amd64"),
        "a1.medium": (1, 2048, 0, "arm64"),
    }


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("type,vcpu\ng6.xlarge,4\n", "header is ['type', 'vcpu']"),
        (f"{HEADER}\ng6.xlarge,four,16384,1,amd64\n", ":2: vcpu/memory_mib/gpus"),
        (f"{HEADER}\ng6.xlarge,4,16384,1,x86_64\n", "architecture 'x86_64'"),
        (f"{HEADER}\ng6xlarge,4,16384,1,amd64\n", "not '<family>.<size>'"),
        (f"{HEADER}\n", "no instance types"),
    ],
)
def test_the_generator_refuses_a_bad_csv_naming_the_file_and_row(tmp_path, content, message):
    bad = tmp_path / "types.csv"
    bad.write_text(content)
    out = tmp_path / "out.csv"
    run = subprocess.run(
        [sys.executable, str(GENERATOR), str(bad), "--upstream", "x@1 (2026-01-01)", "--output", str(out)],
        capture_output=True, text=True,
    )
    assert run.returncode == 2 and message in run.stderr and str(bad) in run.stderr
    assert not out.exists()


def test_the_generator_writes_a_data_file_the_catalog_loads(tmp_path):
    good = tmp_path / "types.csv"
    good.write_text(f"{HEADER}\ng6.xlarge,4,16384,1,amd64\n")
    out = tmp_path / "generated.csv"
    subprocess.run([sys.executable, str(GENERATOR), str(good), "--upstream", "x@1 (2026-01-01)", "--output", str(out)],
                   check=True, capture_output=True)
    types, upstream = catalog.load(out)
    assert types["g6.xlarge"].advertised_gpus == 1 and upstream == "x@1 (2026-01-01)"
    assert "p5e.48xlarge" in types  # the sourced extra NVIDIA types are always added


_META = "# upstream: x@1 (2026-01-01)\n# types: 1\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (None, "FileNotFoundError: No such file or directory"),
        (f"{_META}{HEADER}\n", "no rows"),
        (f"{_META}type,vcpu\ng6.xlarge,4\n", "line 3: header is ['type', 'vcpu']"),
        (f"# types: 1\n{HEADER}\ng6.xlarge,4,16384,1,amd64\n", "no '# upstream:"),
        (f"{_META}{HEADER}\ng6.xlarge,4,16384,1,x86_64\n", "architecture 'x86_64'"),
        (f"{_META}{HEADER}\ng6.xlarge,four,16384,1,amd64\n", "line 4: row ['g6.xlarge', 'four', '16384', '1', 'amd64'] is not (type, vcpu"),
        (f"{_META}{HEADER}\ng6.xlarge,4,16384\n", "is not (type, vcpu"),
        (f"{_META}{HEADER}\n,4,16384,1,amd64\n", "line 4: row ['', '4', '16384', '1', 'amd64'] is not (type, vcpu"),
        (f"# upstream: x@1 (2026-01-01)\n# types: 3\n{HEADER}\ng6.xlarge,4,16384,1,amd64\n", "(truncated?)"),
        (f"{_META}{HEADER}\ng6.xlarge,4,16384,1,amd64\ng6.xlarge,4,16384,1,amd64\n", "'g6.xlarge' listed twice"),
    ],
)
def test_a_catalog_that_fails_to_load_is_a_clear_error_naming_the_file_never_an_empty_catalog(tmp_path, text, expected):
    data = tmp_path / "broken.csv"
    if text is not None:
        data.write_text(text)
    with pytest.raises(catalog.CatalogLoadError) as err:
        catalog.load(data)
    message = str(err.value)
    assert expected in message and "\n" not in message
    assert str(data) in message and "gen_instance_catalog.py" in message


def test_a_data_file_that_is_not_utf8_is_the_same_clear_error(tmp_path):
    data = tmp_path / "binary.csv"
    data.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(catalog.CatalogLoadError, match="UnicodeDecodeError") as err:
        catalog.load(data)
    assert str(data) in str(err.value) and "gen_instance_catalog.py" in str(err.value)


def test_the_catalog_loads_on_first_use_and_a_broken_one_still_fails_there_never_empty(tmp_path, monkeypatch):
    # Loaded on first use, not at import: a packaged data file without rows still raises
    # CatalogLoadError at the first lookup (and UPSTREAM), never answers from an empty catalog.
    broken = tmp_path / "ec2_instance_types.csv"
    broken.write_text(f"{_META}{HEADER}\n")
    monkeypatch.setattr(catalog, "data_file", lambda: broken)
    catalog._catalog.cache_clear()
    try:
        for first_use in (lambda: catalog.find("g6.xlarge"), lambda: catalog.UPSTREAM, catalog.all_types):
            with pytest.raises(catalog.CatalogLoadError, match="no rows"):
                first_use()
    finally:
        catalog._catalog.cache_clear()
    monkeypatch.undo()
    assert catalog.find("g6.xlarge").advertised_gpus == 1


def test_fractional_gpus_count_zero_for_ec2_and_unknown_for_the_device_plugin():
    for name in ("g6f.large", "g6f.4xlarge", "gr6f.4xlarge"):
        t = catalog.lookup(name)
        assert (t.is_nvidia, t.ec2_gpus, t.nvidia_gpus, t.advertised_gpus) == (True, 0, 0, None)
        assert catalog.gpus(name) is None and instances.gpu_count(name) is None
        assert any("issues/8368" in w for w in t.warnings)


def test_p5_4xlarge_uses_the_table_value_and_warns_with_the_karpenter_issue():
    t = catalog.lookup("p5.4xlarge")
    assert (t.ec2_gpus, t.advertised_gpus, t.efa_interfaces) == (1, 1, 1)
    assert t.warnings and "https://github.com/aws/karpenter-provider-aws/issues/8368" in t.warnings[0]


@pytest.mark.parametrize(
    ("name", "efa"),
    [  # vpc.amazonaws.com/efa (EC2 MaximumEfaInterfaces): aws/karpenter-provider-aws docs/reference/instance-types.md@v1.14.1
        ("p4d.24xlarge", 4), ("p4de.24xlarge", 4), ("p5.48xlarge", 32), ("p5.4xlarge", 1), ("p5e.48xlarge", 32),
        ("p5en.48xlarge", 16), ("p6-b200.48xlarge", 8), ("p6-b300.48xlarge", 16), ("p3dn.24xlarge", 1),
        ("g6e.8xlarge", 1), ("g6e.12xlarge", 1), ("g6e.16xlarge", 1), ("g6e.24xlarge", 2), ("g6e.48xlarge", 4),
        ("g6e.xlarge", 0), ("g6e.2xlarge", 0), ("g6e.4xlarge", 0), ("g5.8xlarge", 1), ("g6.48xlarge", 1),
        ("g5.4xlarge", 0), ("g6.xlarge", 0), ("g4dn.8xlarge", 1), ("g4dn.metal", 1), ("g7e.24xlarge", 2),
        ("g7e.48xlarge", 4), ("g6f.large", 0), ("gr6f.4xlarge", 0), ("g5g.16xlarge", 0),
    ],
)  # fmt: skip
def test_efa_interface_counts_are_the_facts_rows(name, efa):
    t = catalog.lookup(name)
    assert t.efa_interfaces == efa and t.efa_supported is (efa > 0)


def test_efa_is_unknown_not_false_where_no_source_gives_it():
    assert catalog.lookup("p3.8xlarge").efa_interfaces is None
    assert catalog.lookup("p3.8xlarge").efa_supported is None


@pytest.mark.parametrize(
    ("name", "gpu_name", "memory", "mig"),
    [
        ("p4d.24xlarge", "a100", 40960, True), ("p5.48xlarge", "h100", 81920, True),
        ("p5en.48xlarge", "h200", 144384, True), ("p6-b200.48xlarge", "b200", 183359, True),
        ("g6e.xlarge", "l40s", 45776, False), ("g6.xlarge", "l4", 22888, False), ("g4dn.xlarge", "t4", 16384, False),
        ("g7e.2xlarge", "rtx-pro-server-6000", 98304, True), ("g7.2xlarge", "rtx-pro-4500", 32768, None),
        ("g6f.2xlarge", "l4", 5722, False), ("m5.large", None, None, False),
    ],
)  # fmt: skip
def test_gpu_model_memory_and_mig_come_from_the_catalog_with_their_sources(name, gpu_name, memory, mig):
    t = catalog.lookup(name)
    assert (t.gpu and t.gpu.gpu_name, t.gpu_memory_mib, t.mig_capable) == (gpu_name, memory, mig)
    if t.gpu:
        assert t.gpu.source and all(s in catalog.SOURCES for s in t.gpu.source)


def test_an_unknown_type_is_an_error_with_did_you_mean_and_the_override():
    with pytest.raises(catalog.UnknownInstanceTypeError) as err:
        catalog.lookup("g6.3xlarge")
    message = str(err.value)
    assert "'g6.3xlarge' is not in the instance catalog" in message
    assert "did you mean g6.2xlarge, g6.4xlarge" in message and "allowUnknownInstanceTypes" in message
    assert catalog.unknown_type_problems(["g6.xlarge", "g6.3xlarge"]) == [message]


def test_non_nvidia_accelerators_are_not_nvidia_and_say_what_they_carry():
    assert not catalog.is_nvidia("g4ad.xlarge") and catalog.other_accelerator("g4ad.xlarge") == "AMD Radeon Pro GPUs"
    assert catalog.lookup("g4ad.xlarge").nvidia_gpus == 0 and catalog.gpus("g4ad.xlarge") == 0
    assert catalog.lookup("dl1.24xlarge").ec2_gpus == 8 and catalog.lookup("dl1.24xlarge").nvidia_gpus == 0
    assert instances.nvidia_instance_problems_at(["inf2.xlarge"]) == [(0, "'inf2.xlarge' has AWS Inferentia2 chips, not NVIDIA GPUs")]


def test_instances_module_answers_from_the_catalog():
    assert instances.NVIDIA_FAMILIES == catalog.nvidia_families()
    assert instances.ARM_FAMILIES == {"g5g", "p6e-gb200"}
    for t in catalog.all_types():
        assert instances.is_nvidia_instance_type(t.name) == t.is_nvidia
        assert instances.instance_arch(t.name) == {"amd64": "x86_64", "arm64": "arm64"}[t.architecture]
        assert instances.gpu_count(t.name) == (t.advertised_gpus or None if t.is_nvidia else None)
    assert instances.instance_arch("p6e-gb200.36xlarge") == "arm64"  # family known, type not
    assert instances.gpu_count("p6e-gb200.36xlarge") is None


def test_karpenter_labels_follow_its_naming_rules():
    t = catalog.lookup("p6-b200.48xlarge")
    assert [t.label(s) for s in ("instance-family", "instance-size", "instance-category", "instance-generation")] == [
        "p6-b200", "48xlarge", "p", "6"]
    assert catalog.lookup("gr6f.4xlarge").label("instance-category") == "gr"
    assert catalog.lookup("m5.large").label("instance-gpu-count") is catalog.LabelValue.ABSENT
    assert catalog.lookup("g6f.large").label("instance-gpu-count") == "0"  # KPA docs: labels present, count 0
    assert catalog.lookup("p3.2xlarge").label("instance-gpu-memory") is catalog.LabelValue.UNKNOWN


def test_importing_the_evaluator_first_does_not_close_an_import_circle():
    code = textwrap.dedent("""
        import gpu_node_pool.catalog.requirements as r
        import gpu_node_pool.policies as p
        print(bool(r.evaluate) and bool(p.POLICIES))
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT / "components"), "PATH": ""})
    assert run.stdout.strip() == "True", run.stderr
