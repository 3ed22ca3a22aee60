"""``gpupool``, the command line: one parser (:mod:`.commands`, with ``gpupool audit``'s arguments in
:mod:`.audit_parser` and the chart options in :mod:`.expand_options`), the command handlers, and the
one exit-code and JSON contract every command keeps (:mod:`.contract`), and the console script's
process (:mod:`.entry`).

The console script is ``gpu_node_pool.cli:main_exit``.
"""

from .commands import main
from .entry import main_exit

__all__ = ["main", "main_exit"]
