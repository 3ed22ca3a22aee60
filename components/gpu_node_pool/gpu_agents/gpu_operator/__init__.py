"""NVIDIA's GPU Operator: its chart values derived from the pools it serves (:mod:`.values`, pure)
and the Pulumi component that installs it once per cluster (:mod:`.component`)."""
