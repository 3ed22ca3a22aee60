"""Entry point of the gpu-node-pools component package (``plugin/PulumiPlugin.yaml``).

Pulumi's Python language host runs this directory; it serves the package's components
(:mod:`gpu_node_pool.provider`). The package is read from this repository's ``components/``, so the
plugin runs the code of the tag ``pulumi package add`` named.
"""

import sys
from pathlib import Path

_COMPONENTS = Path(__file__).resolve().parent.parent / "components"
if (_COMPONENTS / "gpu_node_pool").is_dir() and str(_COMPONENTS) not in sys.path:
    sys.path.insert(0, str(_COMPONENTS))

from gpu_node_pool.provider.host import main  # noqa: E402 - after the path above

if __name__ == "__main__":
    main()
