"""A v1 yaml component's manifests judged as the program under the mocks decodes them: the one rule of the manifest
readers (:mod:`gpu_node_pool.expand.manifest_api`) and the provider's decoding
(:func:`gpu_node_pool.expand.yaml_manifests.v1_decode_problem`), applied inside the program, where the v1 SDK reads
its files and registers its objects (pulumi/pulumi-kubernetes ``sdk/python/pulumi_kubernetes/yaml/yaml.py@v4.34.2``, the
version this project pins)."""

from __future__ import annotations

import inspect
import io
import os
from collections.abc import Callable
from typing import Any

from ..expand.manifest_api import api_problem
from ..expand.result import RefusedInput
from ..expand.yaml_manifests import RUN_DIR_WORDS, V1_FILE, V1_GROUP, placed_api_problem, v1_decode_problem
from ..sdk.files import NotRegularFileError, open_input

__all__ = ["V1Manifests"]


class V1Manifests:
    """What a v1 ``ConfigFile`` / ``ConfigGroup`` decodes while the program runs, judged where the SDK reads it
    (:func:`gpu_node_pool.plan.expand.offline_yaml` wraps these functions of ``pulumi_kubernetes/yaml/yaml.py``
    with :meth:`read_file`, :meth:`decode` and :meth:`parse`), each refusal a :class:`RefusedInput` in ``sink`` at
    the component (its name and type) and input (``file``, ``yaml[i]``): a manifest the provider's decode invoke fails on (:func:`v1_decode_problem`; it then
    decodes to nothing), and an object no API server serves as the program registers it, after its transformations
    (:func:`~gpu_node_pool.expand.manifest_api.api_problem`; the object is then left out, with the SDK's own idiom,
    an empty ``List``), placed by document and line when the manifest wrote it so (:func:`placed_api_problem`).
    ``syntax_problem`` words a YAML error (:func:`~gpu_node_pool.expand.yaml_manifests.expand_yaml`'s)."""

    def __init__(self, sink: list[Any], syntax_problem: Callable[[Exception, str], str] | None = None) -> None:
        self.sink = sink
        self.syntax_problem = syntax_problem
        self.last_read: tuple[str, str] | None = None  # (path, text) of the file a ConfigFile read last
        self.texts: dict[int, list[tuple[str, str, str]]] = {}  # id(component) -> (input, name, text) it decoded
        self.refused: set[int] = set()

    def read_file(self, original: Any) -> Any:
        """The SDK's ``_read_file`` (``open(path, 'r').read()``, which ``original`` is) read through
        :func:`~gpu_node_pool.sdk.files.open_input` instead, decoded as ``open`` decodes: a path that is no regular
        file (a FIFO, which ``open`` would wait on forever, a device, a directory) is refused at the ConfigFile's
        ``file`` and read as no text; a missing or unreadable file raises in the program, as ``open`` does."""
        del original  # replaced whole: the SDK's open() would block on a FIFO

        def read_file(path: str) -> str:
            try:
                with io.TextIOWrapper(open_input(path)) as fh:  # open()'s default encoding and newlines
                    text = fh.read()
            except NotRegularFileError as err:
                owner = _constructing(inspect.currentframe())
                if owner is None:
                    raise
                self._refuse(owner, "file", _not_regular_message(path, err))
                text = ""
            self.last_read = (str(path), text)
            return text
        return read_file

    def decode(self, original: Any) -> Any:
        def decode(text: Any, invoke_opts: Any) -> Any:
            owner = getattr(invoke_opts, "parent", None)
            if not isinstance(text, str) or owner is None:
                return original(text, invoke_opts)
            seen = self.texts.setdefault(id(owner), [])
            if getattr(owner, "_type", "") == V1_FILE:
                where = "file"
                name = self.last_read[0] if self.last_read and self.last_read[1] is text else "file"
            else:
                where = name = f"yaml[{len(seen)}]"
            seen.append((where, repr(name) if where == "file" else name, text))
            problem = v1_decode_problem(text, name, self.syntax_problem)
            if problem is None:
                return original(text, invoke_opts)
            self._refuse(owner, where, problem)
            return _decoded_to_nothing()
        return decode

    def parse(self, original: Any) -> Any:
        def parse(objects: Any, opts: Any = None, transformations: Any = None, resource_prefix: Any = None) -> Any:
            owner = getattr(opts, "parent", None)

            def served(obj: Any) -> None:  # the last transformation: the object as the program registers it
                problem = api_problem(obj) if isinstance(obj, dict) else None
                if problem is None or owner is None:
                    return
                texts = self.texts.get(id(owner), [])
                placed = placed_api_problem(problem[1], [(name, text) for _, name, text in texts])
                where = texts[placed[0]][0] if placed else (texts[0][0] if texts else "file")
                meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
                source = f" of {texts[0][1]}" if len(texts) == 1 else ""
                self._refuse(owner, where, placed[1] if placed else (
                    f"the object {obj.get('kind')} {meta.get('name', '')!r}{source}, as the transformations leave it: "
                    f"{problem[1]}"))
                obj.clear()
                obj.update({"apiVersion": "v1", "kind": "List", "items": []})

            return original(objects, opts, [*(transformations or []), served], resource_prefix)
        return parse

    def _refuse(self, owner: Any, where: str, message: str) -> None:
        if id(owner) not in self.refused:  # one error per component, as a v2 component's
            self.refused.add(id(owner))
            self.sink.append(RefusedInput(getattr(owner, "_name", ""), getattr(owner, "_type", V1_GROUP), where,
                                          message))


async def _decoded_to_nothing() -> list[Any]:
    return []


def _constructing(frame: Any) -> Any:
    """The ``self`` of the SDK frame that called the patched ``_read_file`` (the ``ConfigFile`` being constructed),
    or None."""
    caller = frame.f_back if frame is not None else None
    return caller.f_locals.get("self") if caller is not None else None


def _not_regular_message(path: str, err: NotRegularFileError) -> str:
    """The error for a v1 ``ConfigFile``'s ``file`` that is no regular file: the value, what it is, the rule and its
    source, the fix."""
    return (f"{path!r} ({os.path.abspath(path)}) {err.strerror}. A v1 ConfigFile reads its file in the program with "
            "Python's open() (pulumi/pulumi-kubernetes sdk/python/pulumi_kubernetes/yaml/yaml.py@v4.34.2, _read_file), "
            "which waits on a FIFO or a device until it ends and fails on a directory or a socket, so a real `pulumi "
            f"preview` hangs or fails on it. Give file the path of the manifest's regular file, relative to "
            f"{RUN_DIR_WORDS} ({os.getcwd()})")
