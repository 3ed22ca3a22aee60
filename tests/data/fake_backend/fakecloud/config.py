from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from gpu_node_pool.config.common import PoolBase
from gpu_node_pool.config.errors import ConfigIssue


class FakePool(PoolBase):
    """A pool of the fake cloud: ``machines`` GPU machines of ``flavor``."""

    backend: Literal["fakecloud"]
    flavor: str = Field(pattern=r"^gpu-[a-z0-9]+$")
    machines: int = Field(ge=1, le=10)

    @property
    def uses_nvidia_device_plugin(self) -> bool:
        return False  # the fake cloud's image ships its own


def stack_issues(stack: Any) -> list[ConfigIssue]:
    return [
        ConfigIssue(f"pools[{i}].flavor", f"{p.flavor!r} is not offered in region {stack.cluster.location!r}")
        for i, p in enumerate(stack.pools)
        if isinstance(p, FakePool) and p.flavor == "gpu-unavailable"
    ]
