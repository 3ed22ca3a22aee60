"""Kubernetes-native enforcement of the pack's rules: ValidatingAdmissionPolicies rendered from the declared
pools (:mod:`.render`, pure) and the thin component that installs them (:mod:`.component`)."""
