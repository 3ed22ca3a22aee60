"""Container image references: the repository an image names, whatever its tag, digest or registry spelling.

A reference is ``[registry/]path[:tag][@digest]`` (the distribution reference grammar, distribution/reference
``reference.go``); Docker Hub's registry may be written or left out (``docker.io/bitnami/kubectl`` and
``bitnami/kubectl`` name one repository, as Docker Hub's ``library/`` prefix of an official image may)."""

from __future__ import annotations

from typing import Any

from .wellknown import KUBECTL_ENTRYPOINT_IMAGES

__all__ = ["image_repository", "runs_kubectl"]

_DOCKER_HUB = ("docker.io/", "index.docker.io/", "registry-1.docker.io/")


def image_repository(image: Any) -> str | None:
    """The repository of ``image`` (``"bitnami/kubectl"`` for ``docker.io/bitnami/kubectl:1.31@sha256:...``),
    without a ``docker://`` scheme, Docker Hub's registry or its ``library/`` prefix; None for a non-string."""
    if not isinstance(image, str):
        return None
    name = image.strip().removeprefix("docker://").split("@", 1)[0]
    if ":" in name.rsplit("/", 1)[-1]:
        name = name.rsplit(":", 1)[0]
    for hub in _DOCKER_HUB:
        if name.startswith(hub):
            name = name.removeprefix(hub).removeprefix("library/")
            break
    return name


def runs_kubectl(image: Any) -> bool:
    """True when ``image``'s entrypoint is ``kubectl`` (:data:`~gpu_node_pool.k8s.wellknown.KUBECTL_ENTRYPOINT_IMAGES`):
    a container of it with no ``command`` runs ``kubectl <args>``. A mirror's repository ending in one of them
    (``public.ecr.aws/bitnami/kubectl``, ``mirror.example.com/registry.k8s.io/kubectl``) counts."""
    repository = image_repository(image)
    return repository is not None and any(repository == name or repository.endswith("/" + name)
                                          for name in KUBECTL_ENTRYPOINT_IMAGES)
