"""Write the CrossGuard policy pack as a directory the Pulumi CLI can run and publish.

The pack's files ship inside this package (``gpu_node_pool/policies/policy_pack/``):

* ``PulumiPolicy.yaml``: runtime python, ``virtualenv: venv``, version = the package version;
* ``__main__.py``: builds the ``PolicyPack`` from :mod:`gpu_node_pool.policies` (nothing else);
* ``config.example.json``: a ``--policy-pack-config`` example.

:func:`write_pack` copies them and adds ``requirements.txt`` naming this package, which the
Pulumi CLI installs into the pack's ``venv/`` (locally on ``pulumi preview --policy-pack DIR``,
and in Pulumi Cloud's runners after ``pulumi policy publish``). The default requirement is
``gpu-node-pool==<version>``; the package is not on PyPI, so it must come from an index
(``--extra-index-url`` line, or ``PIP_FIND_LINKS`` locally) or a git URL that the machine
installing it can reach: ``gpu-node-pool @ git+https://<host>/gpu-node-pools@v<version>``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from ..._version import __version__

__all__ = ["DISTRIBUTION", "PACK_FILES", "PolicyPackError", "default_requirement", "write_pack"]

#: The distribution name the pack's requirements.txt must install (pyproject.toml [project].name).
DISTRIBUTION = "gpu-node-pool"
#: Files copied verbatim from the package into the pack directory.
PACK_FILES = ("PulumiPolicy.yaml", "__main__.py", "config.example.json")


class PolicyPackError(ValueError):
    """``--requirement`` or ``--out`` is unusable; ``argument`` names which, the message the value and the fix."""

    def __init__(self, argument: str, message: str) -> None:
        super().__init__(message)
        self.argument = argument


@dataclass(frozen=True)
class WrittenPack:
    """What :func:`write_pack` wrote: the directory, the files (in order) and the requirement."""

    out_dir: Path
    files: tuple[Path, ...]
    requirement: str


def default_requirement() -> str:
    """``gpu-node-pool==<installed version>``: what ``--requirement`` defaults to."""
    return f"{DISTRIBUTION}=={__version__}"


def _check_requirement(spec: str) -> str:
    # PEP 508, as pip reads a requirements.txt line; the pack imports gpu_node_pool, so the line
    # must install this distribution (a bare URL or `-e ..` cannot be installed by Pulumi Cloud).
    try:
        req = Requirement(spec)
    except InvalidRequirement as err:
        reason = str(err).splitlines()[0]
        raise PolicyPackError(
            "--requirement",
            f"--requirement {spec!r} is not a PEP 508 requirement ({reason}); an editable or path install "
            "cannot be published; write e.g. "
            f"'{default_requirement()}' or '{DISTRIBUTION} @ git+https://<host>/gpu-node-pools@v{__version__}'"
        ) from None
    if canonicalize_name(req.name) != DISTRIBUTION:
        raise PolicyPackError(
            "--requirement",
            f"--requirement {spec!r} installs {req.name!r}, but the pack imports gpu_node_pool from the "
            f"{DISTRIBUTION!r} distribution; name it, e.g. '{DISTRIBUTION} @ <url>'"
        )
    return str(req)


def write_pack(out_dir: str | os.PathLike[str], requirement: str | None = None) -> WrittenPack:
    """Write the policy pack into ``out_dir`` (created; other files in it are left alone).

    Args:
        out_dir: the pack directory to write (``PulumiPolicy.yaml``, ``__main__.py``,
            ``config.example.json``, ``requirements.txt``; existing copies are overwritten).
        requirement: the ``requirements.txt`` line installing this package, a PEP 508
            requirement naming ``gpu-node-pool`` (default :func:`default_requirement`).

    Raises:
        PolicyPackError: ``requirement`` does not parse or names another distribution, or
            ``out_dir`` exists and is not a directory.
    """
    line = _check_requirement(requirement if requirement is not None else default_requirement())
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise PolicyPackError("--out", f"--out {str(out)!r} exists and is not a directory; choose a directory path")
    out.mkdir(parents=True, exist_ok=True)
    source = resources.files(__name__)
    written = []
    for name in PACK_FILES:
        target = out / name
        target.write_bytes(source.joinpath(name).read_bytes())
        written.append(target)
    req_file = out / "requirements.txt"
    req_file.write_text(
        "# Installed by the Pulumi CLI into venv/ (locally, and in Pulumi Cloud after `pulumi policy publish`).\n"
        f"# Written by `gpupool policy-pack` {__version__}. {DISTRIBUTION} is not on PyPI: this line must resolve\n"
        "# from an index or a git URL that the installing machine can reach (see the README, Policy pack).\n"
        f"{line}\n"
    )
    written.append(req_file)
    return WrittenPack(out, tuple(written), line)
