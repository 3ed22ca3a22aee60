"""``python -m gpu_node_pool.cli``: the ``gpupool`` console script, for an environment without it on PATH."""

from .entry import main_exit

main_exit()
