"""gpu-node-pools Pulumi program: validates the stack config, then declares the GPU pools and the device plugin."""

from gpu_node_pool.program import main

main()
