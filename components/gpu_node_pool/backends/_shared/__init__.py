"""What several backends share: Cluster Autoscaler node-template tags, kubelet registration flags,
user-data reading, the Karpenter-style NodePool rules, the GPU pool read back for the policies,
capacity figures and EFA. A backend folder imports these, never another backend's folder.
"""
