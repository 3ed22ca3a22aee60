"""Helm chart repository URLs in the stack config: :data:`ChartRepository` (the annotated type the agents' and device
plugin's ``repository`` fields use) and :func:`url_text_problem` (a URL written as one line of text)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator

from ..text.terminal import shown
from .errors import fail


def url_text_problem(url: str, example: str) -> str | None:
    """Why ``url`` cannot be a URL as text: whitespace or a control character (a newline would also forge a
    line of the rendered YAML or command); None when it has neither. ``example`` ends the sentence."""
    if any(c.isspace() or not c.isprintable() for c in url):
        return f"{shown(url)} has whitespace or a control character; a URL has none: write it on one line, {example}"
    return None


def _check_chart_repository(url: str) -> str:
    from urllib.parse import urlsplit

    example = "e.g. https://nvidia.github.io/k8s-device-plugin (a Helm chart repository: its index.yaml is at <url>/index.yaml)"
    problem = url_text_problem(url, example)
    if problem:
        raise fail(problem)
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname or parts.query or parts.fragment:
        hint = "; an OCI registry (oci://) is not a chart repository Helm's --repo reads" if parts.scheme == "oci" else ""
        raise fail(f"{shown(url)} is not an http(s) URL of a Helm chart repository{hint}: {example}")
    return url


#: A Helm chart repository URL (what ``helm template --repo`` and Pulumi's ``helm.v4.Chart``
#: ``repositoryOpts.repo`` take): http(s), a host, no query, fragment or whitespace
#: (https://helm.sh/docs/topics/chart_repository/).
ChartRepository = Annotated[str, AfterValidator(_check_chart_repository)]
