"""GPU agents beyond the device plugin (issue 14): pure derivations, no Pulumi.

* :mod:`.pools` - what the derivations need of a GPU pool (:class:`AgentPool`) and the
  adapter from the validated pool config models.
* :mod:`.sharing` - time-slicing / MPS: the device plugin's ``config.map``, node labels,
  advertised GPUs, GKE's ``gpu_sharing_config``.
* :mod:`.mig` - MIG partitioner rules and the autoscaler resource for ``mixed``.
* :mod:`.discovery` - GPU Feature Discovery and its NFD worker in the device-plugin chart.
* :mod:`.dcgm` - the standalone ``dcgm-exporter`` chart values.
* :mod:`.operator` - the ``gpu-operator`` chart values, per backend.
* :mod:`.coverage` - which agent covers which pool (the judgement behind the policy).
* :mod:`.config_models` - pydantic models of the new stack/pool config (not wired yet).
* :mod:`.dcgm_exporter`, :mod:`.gpu_operator` - thin Pulumi components.

:mod:`.links` is the one place that imports from modules being moved (the device-plugin
renderer and the policies' node-selection reader).
"""
