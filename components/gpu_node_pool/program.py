"""The entry point a Pulumi program calls: ``from gpu_node_pool.program import main; main()``.

The shipped ``__main__.py`` (and every program copied from it) imports this module; the program
itself is :mod:`gpu_node_pool.component.program`.
"""

from .component.program import main

__all__ = ["main"]
