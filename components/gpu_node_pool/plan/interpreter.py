"""Which Python runs the program ``gpupool check`` judges, and running it there.

As ``pulumi`` does, the program runs in the project's own environment: ``Pulumi.yaml``'s
``runtime.options.virtualenv`` names a virtual environment, a path relative to the directory of
``Pulumi.yaml`` or absolute (https://www.pulumi.com/docs/iac/languages-sdks/python/, "virtualenv"
option; https://www.pulumi.com/docs/iac/concepts/projects/project-file/, runtime options).
``--python PATH`` names the interpreter instead. Neither: the program runs in gpupool's own
process. A named interpreter that is gpupool's own environment (same ``sys.prefix``) also runs
in-process; any other runs the child of :mod:`gpu_node_pool.plan.check_child`.

Never a silent substitution: a virtualenv that does not exist (``pulumi install`` would create
it) runs in gpupool's interpreter with a note saying so; a ``toolchain`` of ``poetry`` or ``uv``
without ``virtualenv`` does the same (gpupool does not ask Poetry or uv where their environment
is; pass ``--python``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import ConfigError, ConfigIssue
from .check_child import BOOT, NOT_IMPORTABLE, PROTOCOL

__all__ = ["Interpreter", "choose_interpreter", "record_in_child"]


@dataclass(frozen=True)
class Interpreter:
    """The Python a program runs in.

    Attributes:
        python: the interpreter's path (``sys.executable`` when in-process).
        origin: ``"--python"``, ``"Pulumi.yaml runtime.options.virtualenv"`` or ``"gpupool"``.
        in_process: run in gpupool's own process (no child).
        note: why a named environment was not used, or ``""``.
    """

    python: str
    origin: str
    in_process: bool
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """``{"python", "from", "inProcess", "note"}`` for the ``check`` report."""
        return {"python": self.python, "from": self.origin, "inProcess": self.in_process, "note": self.note}


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _same_environment(python: Path) -> bool:
    """``python`` is the environment gpupool runs in (a venv's ``bin/python`` of ``sys.prefix``)."""
    try:
        return python.parent.parent.resolve() == Path(sys.prefix).resolve()
    except OSError:
        return False


def choose_interpreter(project_dir: Path, doc: dict[str, Any], python: str | None = None) -> Interpreter:
    """The interpreter for the program of ``project_dir`` (``doc``: its parsed ``Pulumi.yaml``).

    Raises:
        ConfigError: ``--python`` names no executable file, or ``runtime.options.virtualenv`` is not a string.
    """
    own = sys.executable
    if python:
        path = Path(python).expanduser().absolute()  # not resolved: a venv's python is a symlink
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise ConfigError([ConfigIssue("--python", f"{python!r} is not an executable file; give the path of the "
                                           "Python that runs the program, e.g. --python venv/bin/python")], "--python")
        return Interpreter(str(path), "--python", _same_environment(path))
    runtime = doc.get("runtime")
    options = runtime.get("options") if isinstance(runtime, dict) else None
    options = options if isinstance(options, dict) else {}
    source = str(project_dir / "Pulumi.yaml")
    venv = options.get("virtualenv")
    if venv is None:
        toolchain = options.get("toolchain")
        if toolchain in ("poetry", "uv"):
            return Interpreter(own, "gpupool", True, f"Pulumi.yaml names toolchain {toolchain!r} without virtualenv; "
                               f"gpupool does not ask {toolchain} where its environment is, so the program ran in "
                               "gpupool's own Python: pass --python <that environment's python> to use it")
        return Interpreter(own, "gpupool", True)
    if not isinstance(venv, str) or not venv.strip():
        raise ConfigError([ConfigIssue(f"{source}: runtime.options.virtualenv",
                                       f"is {venv!r}; it must be the path of a virtual environment (e.g. venv)")], source)
    path = _venv_python(project_dir / venv)
    if not path.is_file():
        return Interpreter(own, "gpupool", True, f"Pulumi.yaml names virtualenv {venv!r}, which has no {path}; the "
                           f"program ran in gpupool's own Python instead. Create it as pulumi install does (python -m "
                           f"venv {venv} && {_venv_python(Path(venv))} -m pip install -r requirements.txt) or pass --python")
    return Interpreter(str(path), "Pulumi.yaml runtime.options.virtualenv", _same_environment(path))


def record_in_child(interpreter: Interpreter, request: dict[str, Any], cwd: Path) -> dict[str, Any]:
    """Run the program of ``request`` (shape: :mod:`~gpu_node_pool.plan.check_child`) in ``interpreter``.

    The child's stdout and stderr (what the program prints) are copied to gpupool's stderr, so a
    ``--json`` report stays one document. Returns the child's answer.

    Raises:
        ConfigError: gpu-node-pool (or a module it needs) is not importable there; the message says
            how to install it.
        RuntimeError: the child failed otherwise (a bug: its last stderr line), or spoke another protocol.
    """
    from .._version import __version__

    with tempfile.TemporaryDirectory(prefix="gpupool-check-") as tmp:
        req, ans = Path(tmp) / "request.json", Path(tmp) / "answer.json"
        req.write_text(json.dumps({"protocol": PROTOCOL, **request}), encoding="utf-8")
        done = subprocess.run([interpreter.python, "-c", BOOT, str(req), str(ans)], cwd=cwd,  # noqa: S603
                              capture_output=True, text=True, check=False)
        for stream in (done.stdout, done.stderr):
            if stream and done.returncode != NOT_IMPORTABLE:
                sys.stderr.write(stream)
        if done.returncode == NOT_IMPORTABLE:
            missing = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "not importable"
            where = "--python" if interpreter.origin == "--python" else f"{cwd / 'Pulumi.yaml'}: runtime.options.virtualenv"
            raise ConfigError([ConfigIssue(where, (
                f"the program's Python {interpreter.python} cannot import gpu-node-pool ({missing}); install it there: "
                f"{interpreter.python} -m pip install 'gpu-node-pool=={__version__}' (or the git requirement the "
                "policy pack's requirements.txt uses), or pass --python with an interpreter that has it"))], where)
        if done.returncode != 0 or not ans.is_file():
            last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
            raise RuntimeError(f"the check child in {interpreter.python} failed: {last}")
        answer = json.loads(ans.read_text(encoding="utf-8"))
    if answer.get("protocol") != PROTOCOL:
        raise RuntimeError(f"the check child in {interpreter.python} answered protocol {answer.get('protocol')!r}, "
                           f"not {PROTOCOL}")
    return answer
