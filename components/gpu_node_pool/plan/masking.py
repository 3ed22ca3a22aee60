"""Every report of a plan or check cut of the program's secrets: the JSON document, the text, the page.

The verdicts read the secrets' plain values (:mod:`gpu_node_pool.sdk.secrets`); what is shown of them, in a
finding, a pool's summary, the device plugin's coverage or the page, is replaced by ``[secret]`` here, at the
last step before it is written."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..sdk.secrets import mask, mask_tree, secret_texts

__all__ = ["masked_document", "masked_page", "masked_text"]


def _texts(resources: Iterable[Any]) -> tuple[str, ...]:
    if not any(getattr(r, "secret_inputs", None) is not None for r in resources):
        return ()  # most plans: nothing to cut, and the pack's modules need not be imported for it
    from ..policies.runner import secret_derived_texts

    return secret_texts(resources, secret_derived_texts)


def masked_document(doc: Any, resources: Iterable[Any]) -> Any:
    """``doc`` (a JSON report) with every string cut of the secrets of ``resources``."""
    return mask_tree(doc, _texts(resources))


def masked_text(text: str, resources: Iterable[Any]) -> str:
    """``text`` (a text report) cut of the secrets of ``resources``."""
    texts = _texts(resources)
    return mask(text, texts) if texts else text


def masked_page(page: str, resources: Iterable[Any]) -> str:
    """``page`` (HTML) cut of the secrets of ``resources``, as written and as HTML-escaped."""
    texts = _texts(resources)
    if not texts:
        return page
    import html  # only a page with secrets to cut needs it (its entity tables are about 0.3 MiB)

    escaped = {html.escape(t) for t in texts} | {html.escape(t, quote=False) for t in texts}
    return mask(page, tuple(sorted(set(texts) | escaped, key=lambda s: (-len(s), s))))
