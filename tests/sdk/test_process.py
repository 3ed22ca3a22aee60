"""The collector settings of the processes the package owns: applied by the ``gpupool``
console script and the policy pack's entry point, never by importing the package as a library."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import ROOT

from gpu_node_pool.sdk.process import GC_THRESHOLDS

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "components")}


def _thresholds(code: str) -> tuple[int, ...]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, check=True)
    return tuple(int(x) for x in out.stdout.split())


def test_importing_the_package_leaves_the_users_process_alone():
    code = ("import gc; d = gc.get_threshold()\n"
            "import gpu_node_pool.cli.commands, gpu_node_pool.component.program, gpu_node_pool.component.pool, gpu_node_pool.policies\n"
            "assert gc.get_threshold() == d\nprint(*d)")
    assert _thresholds(code) != GC_THRESHOLDS


def test_the_console_script_tunes_its_collector_before_running_a_command():
    code = ("import gc, sys\nfrom gpu_node_pool.cli import commands as cli\n"
            "cli.main = lambda: print(*gc.get_threshold()) or 0\n"
            "from gpu_node_pool.cli.entry import main_exit\ntry:\n    main_exit()\nexcept SystemExit:\n    pass")
    assert _thresholds(code) == GC_THRESHOLDS


def test_the_policy_pack_entry_point_tunes_its_collector_before_serving():
    source = (ROOT / "components" / "gpu_node_pool" / "policies" / "policy_pack" / "__main__.py").read_text()
    main = source.split('if __name__ == "__main__":', 1)[1]
    assert main.index("tune_gc()") < main.index("PolicyPack(")


def test_the_console_scripts_plan_runs_without_the_collector_and_a_library_call_keeps_it():
    plan = ("import gc, os, sys\nfrom gpu_node_pool.cli import commands as cli\n"
            "sys.argv = ['gpupool', 'plan', '--stack', 'dev', '--quiet']\n"
            "real = cli.main\ncli.main = lambda: real() + print('collector', gc.isenabled(), file=sys.stderr) or 0\n"
            "from gpu_node_pool.cli.entry import main_exit\nmain_exit()")
    console = subprocess.run([sys.executable, "-c", plan], capture_output=True, text=True, env=ENV, cwd=ROOT)
    assert "collector False" in console.stderr, console.stderr
    library = ("import gc, sys\nfrom gpu_node_pool.cli import commands as cli\n"
               "cli.main(['plan', '--stack', 'dev', '--quiet'])\nprint('collector', gc.isenabled(), file=sys.stderr)")
    call = subprocess.run([sys.executable, "-c", library], capture_output=True, text=True, env=ENV, cwd=ROOT)
    assert "collector True" in call.stderr, call.stderr
