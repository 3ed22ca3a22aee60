"""The Karpenter NodePool CRD as a source: what both the NodePool config models (``nodepool.py``) and the readers of
NodePool resources (``nodepool_detect.py``) cite for its schema rules. No imports, so either side may use it."""

#: The schema the API server holds a ``karpenter.sh/v1`` NodePool to.
NODEPOOL_CRD_SOURCE = "aws/karpenter-provider-aws pkg/apis/crds/karpenter.sh_nodepools.yaml@v1.14.1"
