"""GKE's NVIDIA driver installer DaemonSets for the GKE pools with ``gpuDriverVersion: INSTALLATION_DISABLED``: the
DaemonSet Google publishes for each pool's node image (COS, Ubuntu), placed on that image's pools (:mod:`.values`,
pure) and the Pulumi component that declares them once per cluster (:mod:`.component`)."""
