"""NVIDIA's standalone DCGM exporter: its chart values derived from the pools (:mod:`.values`, pure)
and the Pulumi component that installs it once per cluster (:mod:`.component`)."""
