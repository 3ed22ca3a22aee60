#!/bin/bash
# Amazon Linux 2 EKS bootstrap (legacy: EKS no longer publishes AL2 AMIs).
set -o errexit -o nounset -o pipefail
/etc/eks/bootstrap.sh ml-prod \
  --apiserver-endpoint https://3F1A2B4C5D6E7F8091A2B3C4D5E6F708.gr7.us-east-1.eks.amazonaws.com \
  --b64-cluster-ca LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJkdW1teUNBZm9ydGVzdHMKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo= \
  --dns-cluster-ip 10.100.0.10 \
  --kubelet-extra-args '--register-with-taints=example.com/dedicated=training.v2:NoExecute,example.com/dedicated=training.v2:NoSchedule,example.com/maintenance:PreferNoSchedule,nvidia.com/gpu=present:NoSchedule --node-labels=example.com/empty=,example.com/team=ml-platform,gpu-node-pools/pool=batch,node.kubernetes.io/gpu-tier=h100-80gb,nvidia.com/gpu.present=true'
