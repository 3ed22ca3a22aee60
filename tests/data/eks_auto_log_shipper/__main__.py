"""The shipped Auto Mode stack plus a log shipper DaemonSet that tolerates nothing.

Auto Mode's device plugin and node monitoring are built in, but a user's own DaemonSet is not:
it never runs on the tainted GPU nodes, so daemonsets-tolerate-gpu-taints must fail.
"""

import pulumi_kubernetes as k8s

from gpu_node_pool.component.program import main

main()

labels = {"app": "log-shipper"}
k8s.apps.v1.DaemonSet(
    "log-shipper",
    metadata={"name": "log-shipper", "namespace": "logging"},
    spec={
        "selector": {"match_labels": labels},
        "template": {
            "metadata": {"labels": labels},
            "spec": {"containers": [{"name": "shipper", "image": "cr.fluentbit.io/fluent/fluent-bit:5.1.1"}]},
        },
    },
)
