"""The Pulumi shell: the ``GpuNodePool`` component (:mod:`.pool`), the stack program that declares
the pools and their GPU agents from the stack config (:mod:`.program`), and the cluster's identity
as Pulumi inputs (:mod:`gpu_node_pool.sdk.cluster_inputs`). Everything judged here was validated by :mod:`gpu_node_pool.config`
first; the components only register resources.
"""
