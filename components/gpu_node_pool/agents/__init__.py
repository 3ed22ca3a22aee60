"""GPU agents beyond the device plugin (issue 14): pure derivations, no Pulumi.

* :mod:`.pools` - what the derivations need of a GPU pool (:class:`AgentPool`) and the
  adapter from the validated pool config models.
* :mod:`.sharing` - time-slicing / MPS: the device plugin's ``config.map``, node labels,
  advertised GPUs, GKE's ``gpu_sharing_config``.
* :mod:`.mig` - MIG partitioner rules, MIG capability from the instance catalog, the autoscaler
  resource for ``mixed``.
* :mod:`.capacity` - what a node advertises (GPUs x replicas, MIG devices): the one figure the
  backends' Cluster Autoscaler tags and GKE accelerators use.
* :mod:`.validate` - the config rules of ``gpuSharing``, ``mig``, ``devicePlugin.provider`` and
  ``gpuAgents`` (called by ``config.stack.stack_issues``).

Layering: this package sits above ``config`` and ``device_plugin`` (it reuses the plugin's
toleration derivation and config format) and below ``policies`` and the components; it never
imports either.
"""
