"""GKE's NVIDIA driver installer DaemonSet for the GKE pools with ``gpuDriverVersion: INSTALLATION_DISABLED``: the
DaemonSet as Google publishes it, placed on those pools (:mod:`.values`, pure) and the Pulumi component that declares
it once per cluster (:mod:`.component`)."""
