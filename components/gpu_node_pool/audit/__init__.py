"""``gpupool audit``: check a live cluster (or a dump of it) against the GPU pool rules.

Read-only. Sources (:mod:`.sources`): a ``kubectl get nodes,daemonsets,pods,events -A -o json``
dump (a ``List``, or a directory of them) or the Kubernetes API through the official
``kubernetes`` client. Analysis (:mod:`.cluster`, :mod:`.pending`, :mod:`.starved`, :mod:`.declared`): GPU
nodes by pool, DaemonSet x pool verdicts, GPU-starved nodes, pending pods blocked by GPU
taints, and with ``--stack`` drift against the declared pools and a what-if of their taints.
Output (:mod:`.report`, :mod:`gpu_node_pool.plan.html`): text, JSON (``report.schema.json``), one HTML page.

Toleration and selection semantics come only from :mod:`gpu_node_pool.k8s.taints`
(``tolerates``, ``effective_tolerations``) and :mod:`gpu_node_pool.k8s.selection`.
"""
