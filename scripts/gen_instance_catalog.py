#!/usr/bin/env python3
"""Generate ``components/gpu_node_pool/catalog/ec2_instance_types.csv`` from Cluster Autoscaler's instance table.

Usage::

    python scripts/gen_instance_catalog.py INSTANCE_TYPES.csv
    python scripts/gen_instance_catalog.py INSTANCE_TYPES.csv --check

Input: the CSV ``instance_type,vcpu,memory_mib,gpus,architecture`` (one row per EC2 instance
type, as Cluster Autoscaler's generated ``cloudprovider/aws/ec2_instance_types.go`` lists them;
``gpus`` = the sum of EC2 ``GpuInfo.Gpus[].Count``). The upstream pin and date are read from the
first lines of the ``.md`` beside the CSV (``... from kubernetes/autoscaler @ <commit> (<date>)``),
or given with ``--upstream``.

Output: the package data file the catalog reads (``gpu_node_pool.catalog.load``): ``# key: value``
provenance lines (the input file, its sha256, the upstream pin and date, the number of types and
what each column means), then the CSV header and the rows sorted by type. The output is
deterministic (no timestamp), so ``--check`` can verify that the committed file matches the CSV.

Exit codes: 0 written (or up to date), 1 ``--check`` found a difference, 2 bad input (one line
on stderr naming the file, the row and the rule).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "components" / "gpu_node_pool" / "catalog" / "ec2_instance_types.csv"
COLUMNS = ("instance_type", "vcpu", "memory_mib", "gpus", "architecture")
ARCHITECTURES = ("amd64", "arm64")
_TYPE = re.compile(r"^[a-z][a-z0-9-]*\.[a-z0-9-]+$")
_UPSTREAM = re.compile(r"from\s+(\S+)\s+@\s+([0-9a-f]{7,40})\s+\((\d{4}-\d{2}-\d{2})\)")


class InputError(Exception):
    """A CSV that cannot become the catalog; the message names the file, row and rule."""


def read_rows(path: Path) -> list[tuple[str, int, int, int, str]]:
    """The CSV rows as ``(type, vcpu, memory_mib, gpus, architecture)``, sorted by type.

    Raises:
        InputError: missing file, wrong header, a non-integer or negative number, an
            architecture other than amd64/arm64, a malformed or duplicate type name, no rows.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise InputError(f"{path}: cannot read ({err.strerror})") from None
    reader = csv.reader(text.splitlines())
    header = tuple(next(reader, ()))
    if header != COLUMNS:
        raise InputError(f"{path}: header is {list(header)}, expected {list(COLUMNS)}")
    rows, seen = [], set()
    for line, row in enumerate(reader, start=2):
        if len(row) != len(COLUMNS):
            raise InputError(f"{path}:{line}: {len(row)} columns, expected {len(COLUMNS)}")
        name, vcpu, memory, gpus, arch = row
        if not _TYPE.match(name):
            raise InputError(f"{path}:{line}: instance type {name!r} is not '<family>.<size>'")
        if name in seen:
            raise InputError(f"{path}:{line}: instance type {name!r} listed twice")
        seen.add(name)
        try:
            numbers = [int(v) for v in (vcpu, memory, gpus)]
        except ValueError:
            raise InputError(f"{path}:{line}: vcpu/memory_mib/gpus {[vcpu, memory, gpus]} must be integers") from None
        if min(numbers) < 0 or numbers[0] == 0 or numbers[1] == 0:
            raise InputError(f"{path}:{line}: {name}: vcpu and memory_mib must be > 0 and gpus >= 0, got {numbers}")
        if arch not in ARCHITECTURES:
            raise InputError(f"{path}:{line}: {name}: architecture {arch!r} is not one of {list(ARCHITECTURES)}")
        rows.append((name, numbers[0], numbers[1], numbers[2], arch))
    if not rows:
        raise InputError(f"{path}: no instance types")
    return sorted(rows)


def upstream_of(csv_path: Path) -> str:
    """``"kubernetes/autoscaler@55c37cd5eb55 (2026-08-22)"`` from the ``.md`` beside the CSV."""
    note = csv_path.with_suffix(".md")
    if note.is_file():
        match = _UPSTREAM.search(note.read_text(encoding="utf-8"))
        if match:
            return f"{match.group(1)}@{match.group(2)} ({match.group(3)})"
    raise InputError(f"{note}: no 'from <repo> @ <commit> (<date>)' line; pass --upstream")


def render(rows: list[tuple[str, int, int, int, str]], *, csv_name: str, sha256: str, upstream: str) -> str:
    """The data file's text (deterministic for the same inputs)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(rows)
    return f"""# GENERATED FILE - do not edit. Regenerate with: python scripts/gen_instance_catalog.py <path>/{csv_name}
# EC2 instance types as Cluster Autoscaler's instance table lists them, from
# {upstream} cluster-autoscaler/cloudprovider/aws/ec2_instance_types.go,
# itself generated from EC2 DescribeInstanceTypes. Read through gpu_node_pool.catalog, never directly.
# source-file: {csv_name}
# source-sha256: {sha256}
# upstream: {upstream}
# types: {len(rows)}
# columns: instance_type; vcpu (default vCPUs); memory_mib (MiB); gpus (the sum of EC2 GpuInfo.Gpus[].Count:
#   what EC2, Cluster Autoscaler and Karpenter count; 0 for the fractional-GPU g6f/gr6f);
#   architecture (amd64 | arm64, the kubernetes.io/arch spelling)
{out.getvalue()}"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", type=Path, help="path to ec2-instance-types.csv")
    parser.add_argument("--upstream", help="upstream pin, e.g. 'kubernetes/autoscaler@55c37cd5eb55 (2026-08-22)'")
    parser.add_argument("--output", type=Path, default=OUTPUT, help=f"data file to write (default {OUTPUT.relative_to(ROOT)})")
    parser.add_argument("--check", action="store_true", help="do not write; exit 1 if the data file differs")
    args = parser.parse_args(argv)
    try:
        rows = read_rows(args.csv)
        upstream = args.upstream or upstream_of(args.csv)
    except InputError as err:
        print(f"gen_instance_catalog: {err}", file=sys.stderr)
        return 2
    sha256 = hashlib.sha256(args.csv.read_bytes()).hexdigest()
    text = render(rows, csv_name=args.csv.name, sha256=sha256, upstream=upstream)
    current = args.output.read_text(encoding="utf-8") if args.output.is_file() else None
    if args.check:
        if current != text:
            print(f"gen_instance_catalog: {args.output} is out of date with {args.csv}; regenerate", file=sys.stderr)
            return 1
        return 0
    if current != text:
        args.output.write_text(text, encoding="utf-8")
    print(f"{args.output}: {len(rows)} instance types from {args.csv.name} ({upstream})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
