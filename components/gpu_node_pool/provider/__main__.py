"""``python -m gpu_node_pool.provider --schema``: print the package schema (what ``plugin/schema.json`` holds);
with the engine address instead, serve the provider as ``plugin/__main__.py`` does."""

import json
import sys

from .host import main, schema

if sys.argv[1:] == ["--schema"]:
    print(json.dumps(schema(), indent=2, sort_keys=True))
else:
    main()
