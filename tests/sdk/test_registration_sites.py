"""Where ``gpupool check`` places a resource: the program's line that made it, through helper functions."""

from __future__ import annotations

import runpy

import pulumi.resource

from gpu_node_pool.sdk.registration_sites import MAX_CALLERS, registration_sites

PROGRAM = '''\
import pulumi.resource


def agent(name):
    return pulumi.resource.register_resource(None, "t:DaemonSet", name)


def nested(name):
    return agent(name)


agent("a")
agent("b")
for n in ("c", "d"):
    agent(n)
pulumi.resource.register_resource(None, "t:DaemonSet", "e")
nested("f")
'''


def sites_of(tmp_path, monkeypatch, source: str) -> dict[str, tuple[int, int]]:
    monkeypatch.setattr(pulumi.resource, "register_resource", lambda *a, **k: None)
    (tmp_path / "__main__.py").write_text(source)
    with registration_sites(tmp_path) as sites:
        runpy.run_path(str(tmp_path / "__main__.py"))
    return {name: (line, column) for (_, name), (_, line, column) in sites.items()}


def test_resources_a_helper_makes_are_placed_at_the_line_that_calls_it(tmp_path, monkeypatch):
    got = sites_of(tmp_path, monkeypatch, PROGRAM)
    assert got["a"] == (12, 1) and got["b"] == (13, 1)  # the calls, not the helper's own line 5
    assert got["c"] == got["d"] == (15, 5)  # one call in a loop: the loop's line
    assert got["e"] == (16, 1)  # made where it is written
    assert got["f"] == (17, 1)  # through two helpers: the outermost line where it parts from the others


def test_resources_one_call_registers_stay_at_the_innermost_line(tmp_path, monkeypatch):
    got = sites_of(tmp_path, monkeypatch, PROGRAM.split("agent(\"a\")")[0] + 'for n in ("x", "y"):\n    agent(n)\n')
    assert got == {"x": (5, 12), "y": (5, 12)}


def test_a_call_deeper_than_the_walk_keeps_a_site_in_the_program(tmp_path, monkeypatch):
    depth = MAX_CALLERS + 3
    chain = "".join(f"def f{i}(name):\n    return f{i + 1}(name)\n\n\n" for i in range(depth))
    source = ("import pulumi.resource\n\n\n" + chain + f"def f{depth}(name):\n"
              "    return pulumi.resource.register_resource(None, 't:DaemonSet', name)\n\n\nf0('a')\nf0('b')\n")
    got = sites_of(tmp_path, monkeypatch, source)
    assert set(got) == {"a", "b"} and got["a"] == got["b"]  # parted beyond the walk: the innermost line
