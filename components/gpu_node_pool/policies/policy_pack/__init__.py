"""Write the CrossGuard policy pack as a directory the Pulumi CLI can run and publish.

The pack's files ship inside this package (``gpu_node_pool/policies/policy_pack/``):

* ``PulumiPolicy.yaml``: runtime python, ``virtualenv: venv``, version = the package version;
* ``__main__.py``: builds the ``PolicyPack`` from :mod:`gpu_node_pool.policies` (nothing else),
  one policy per rule; ``per_level_main.py`` is written as ``__main__.py`` instead with
  ``layout="per-level"`` (one stack policy per enforcement level, :mod:`gpu_node_pool.policies.level_pack`);
* ``config.example.json``: a ``--policy-pack-config`` example.

:func:`write_pack` copies them and adds ``requirements.txt`` naming this package, which the
Pulumi CLI installs into the pack's ``venv/`` (locally on ``pulumi preview --policy-pack DIR``,
and in Pulumi Cloud's runners after ``pulumi policy publish``). The default requirement is
``gpu-node-pool==<version>``; the package is not on PyPI, so it must come from an index
(``--extra-index-url`` line, or ``PIP_FIND_LINKS`` locally) or a git URL that the machine
installing it can reach: ``gpu-node-pool @ git+https://<host>/gpu-node-pools@v<version>``.
A requirement with a version specifier must pin this version (``==<version>``): the files written
are this version's. ``requirements.txt`` also pins pulumi-policy to the minor version whose private
analyzer class both layouts' ``Configure`` hook subclasses
(:data:`gpu_node_pool.sdk.analyzer_config.PULUMI_POLICY_REQUIREMENT`): the package allows any
pulumi-policy 1.x from 1.21, and the hook refuses to start on another minor version.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from ..._version import __version__
from ...sdk.analyzer_config import PULUMI_POLICY_REQUIREMENT

__all__ = ["DISTRIBUTION", "LAYOUTS", "PACK_FILES", "PolicyPackError", "check_out_dir", "default_requirement", "write_pack"]

#: The distribution name the pack's requirements.txt must install (pyproject.toml [project].name).
DISTRIBUTION = "gpu-node-pool"
#: Files copied verbatim from the package into the pack directory.
PACK_FILES = ("PulumiPolicy.yaml", "__main__.py", "config.example.json")
#: ``--layout`` -> the packaged file written as the pack's ``__main__.py``.
LAYOUTS = {"per-rule": "__main__.py", "per-level": "per_level_main.py"}


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
    if not spec.strip():
        raise PolicyPackError(
            "--requirement",
            f"--requirement is empty; leave it out for '{default_requirement()}' (this version), or write e.g. "
            f"'{DISTRIBUTION} @ git+https://<host>/gpu-node-pools@v{__version__}'")
    try:
        req = Requirement(spec)
    except InvalidRequirement as err:
        reason = str(err).splitlines()[0]
        editable = spec.lstrip().startswith(("-e", ".", "/", "~"))
        raise PolicyPackError(
            "--requirement",
            f"--requirement {spec!r} is not a PEP 508 requirement ({reason})"
            + ("; an editable or path install cannot be published" if editable else "") + "; write e.g. "
            f"'{default_requirement()}' or '{DISTRIBUTION} @ git+https://<host>/gpu-node-pools@v{__version__}'"
        ) from None
    if canonicalize_name(req.name) != DISTRIBUTION:
        raise PolicyPackError(
            "--requirement",
            f"--requirement {spec!r} installs {req.name!r}, but the pack imports gpu_node_pool from the "
            f"{DISTRIBUTION!r} distribution; name it, e.g. '{DISTRIBUTION} @ <url>'"
        )
    if req.url and req.url.lower().startswith("file:"):
        raise PolicyPackError(
            "--requirement",
            f"--requirement {spec!r} names a path on this machine ({req.url}), which the machine that installs the "
            f"pack (Pulumi Cloud, CI) does not have; write e.g. '{DISTRIBUTION} @ git+https://<host>/gpu-node-pools@v{__version__}'"
        )
    if not req.url:
        why = _unpinned(req)
        if why:
            raise PolicyPackError(
                "--requirement",
                f"--requirement {spec!r} {why}, but the pack's __main__.py and PulumiPolicy.yaml are {DISTRIBUTION} "
                f"{__version__}'s; write '{default_requirement()}' (or '{DISTRIBUTION} @ git+https://<host>/gpu-node-pools"
                f"@v{__version__}'), or write the pack with the gpupool of the version you want installed",
            )
    return str(req)


def _unpinned(req: Requirement) -> str | None:
    """Why ``req``'s version specifier does not select exactly this version, or None (it has ``==<this version>``)."""
    if not req.specifier:
        return "selects any version (pip installs the newest it finds)"
    if not req.specifier.contains(__version__, prereleases=True):
        return f"does not select version {__version__}"
    if not any(s.operator in ("==", "===") and not s.version.endswith(".*") for s in req.specifier):
        return f"selects other versions than {__version__} too (pip installs the newest it finds)"
    return None


#: The line of ``requirements.txt`` that marks a directory as a pack this command wrote.
_MARK = "# Written by `gpupool policy-pack` "


def _earlier_pack(out: Path) -> bool:
    """Whether ``out`` holds a pack written by ``gpupool policy-pack`` (its requirements.txt has :data:`_MARK`)."""
    try:
        with (out / "requirements.txt").open(encoding="utf-8") as fh:
            return any(line.startswith(_MARK) for line in fh.read(4096).splitlines())
    except (OSError, UnicodeDecodeError):
        return False


def check_out_dir(out_dir: str | os.PathLike[str]) -> Path:
    """The pack directory ``out_dir`` as a path, if the pack may be written there.

    Allowed: a path that does not exist yet, an empty directory, or a directory an earlier
    ``gpupool policy-pack`` wrote (its ``requirements.txt`` says so; the pack files are
    rewritten, everything else there, e.g. Pulumi's ``venv/``, is left alone). This is the rule
    ``gpupool render --out`` applies with its manifest: never overwrite files it did not write.

    Raises:
        PolicyPackError: (``argument`` ``--out``) ``out_dir`` is empty, exists and is not a
            directory, or is a non-empty directory holding files this command did not write
            (a Pulumi project's ``__main__.py`` and ``requirements.txt``...); nothing is written.
    """
    shown = str(out_dir)
    if not shown.strip():
        raise PolicyPackError("--out", "--out '': is empty; name the pack directory, e.g. --out policy")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise PolicyPackError("--out", f"--out {shown!r} exists and is not a directory; choose a directory path")
    if out.is_dir() and not _earlier_pack(out):
        entries = sorted(entry.name for entry in out.iterdir())
        if entries:
            listed = ", ".join(entries[:5]) + (f" and {len(entries) - 5} more" if len(entries) > 5 else "")
            raise PolicyPackError(
                "--out",
                f"--out {shown!r}: {out.resolve()} is not empty ({listed}) and is not a pack gpupool policy-pack "
                "wrote (no requirements.txt it wrote); nothing was written, since the pack would overwrite "
                "__main__.py and requirements.txt; choose a new or empty directory, e.g. --out policy",
            )
    return out


def write_pack(out_dir: str | os.PathLike[str], requirement: str | None = None, layout: str = "per-rule") -> WrittenPack:
    """Write the policy pack into ``out_dir`` (created if missing; see :func:`check_out_dir`).

    Args:
        out_dir: the pack directory to write (``PulumiPolicy.yaml``, ``__main__.py``,
            ``config.example.json``, ``requirements.txt``): a new or empty directory, or one an
            earlier ``gpupool policy-pack`` wrote (its pack files are rewritten, other files left alone).
        requirement: the ``requirements.txt`` line installing this package, a PEP 508
            requirement naming ``gpu-node-pool``, a URL or a specifier that pins this version
            (default :func:`default_requirement`); the file also pins pulumi-policy
            (:data:`~gpu_node_pool.sdk.analyzer_config.PULUMI_POLICY_REQUIREMENT`).
        layout: ``per-rule`` (one Pulumi policy per rule) or ``per-level`` (one stack policy per
            enforcement level in use, the rules still configured by id; README, Policy pack).

    Raises:
        PolicyPackError: ``requirement`` does not parse, names another distribution or another
            version (or several), ``layout``
            is not one of :data:`LAYOUTS`, or ``out_dir`` is refused (:func:`check_out_dir`);
            nothing is written then.
    """
    if layout not in LAYOUTS:
        raise PolicyPackError("--layout", f"--layout {layout!r} is not a pack layout; choose one of {', '.join(LAYOUTS)}")
    line = _check_requirement(requirement if requirement is not None else default_requirement())
    out = check_out_dir(out_dir)
    for name in (*PACK_FILES, "requirements.txt"):  # a link would write outside the directory named
        target = out / name
        if target.is_symlink() or (target.exists() and not target.is_file()):
            raise PolicyPackError(
                "--out", f"{target} is a symbolic link or not a regular file; the pack writes only inside --out: remove it"
            )
    out.mkdir(parents=True, exist_ok=True)
    source = resources.files(__name__)
    written = []
    for name in PACK_FILES:
        target = out / name
        target.write_bytes(source.joinpath(LAYOUTS[layout] if name == "__main__.py" else name).read_bytes())
        written.append(target)
    req_file = out / "requirements.txt"
    req_file.write_text(
        "# Installed by the Pulumi CLI into venv/ (locally, and in Pulumi Cloud after `pulumi policy publish`).\n"
        f"{_MARK}{__version__}. {DISTRIBUTION} is not on PyPI: this line must resolve\n"
        "# from an index or a git URL that the installing machine can reach (see the README, Policy pack).\n"
        f"{line}\n"
        "# The pack's analyzer hook subclasses a private class of this pulumi-policy (gpu_node_pool/sdk/analyzer_config.py).\n"
        f"{PULUMI_POLICY_REQUIREMENT}\n"
    )
    written.append(req_file)
    return WrittenPack(out, tuple(written), line)
