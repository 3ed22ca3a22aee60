"""The package version: the single source read by pyproject.toml (setuptools dynamic version),
``gpu_node_pool.__version__``, ``gpupool --version`` and ``gpupool policy-pack``'s default requirement."""

__version__ = "0.3.0"
