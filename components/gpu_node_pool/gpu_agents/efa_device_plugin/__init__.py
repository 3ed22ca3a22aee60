"""The AWS EFA device plugin (``aws-efa-k8s-device-plugin`` chart): values derived from the EFA pools
(:mod:`.values`, pure) and the Pulumi component that installs it once per cluster (:mod:`.component`)."""
