"""The component package's input types, built from the pydantic config models: one definition per field.

Pulumi's schema analyzer (``pulumi.provider.experimental``) reads plain annotations: ``TypedDict``
classes, ``Optional``, ``list``, ``dict[str, T]``, enums and ``pulumi.Input``; it supports no union
but ``Optional[T]`` and no pydantic model. So every model the stack config uses is turned into a
``TypedDict`` named ``<Model>Args`` (``Config`` dropped: ``ScalingConfig`` -> ``ScalingArgs``), with:

* the model's fields under their Python names (the schema spells them camelCase, as the stack file;
  a field whose stack-file name is not the camelCase of its Python name, ``ownerID``, under that name);
  a required field is ``Required``, every other ``NotRequired`` (the model's default applies);
* ``Literal[...]`` -> an ``Enum`` named ``<Model><Field>`` (``EksManagedPoolCapacityType``), the
  backend -> :data:`Backend`, a taint or toleration effect -> :class:`~gpu_node_pool.k8s.taints.TaintEffect`;
* a nested model -> its ``<Model>Args``; ``Annotated[...]`` -> its type (the Python-only string forms
  such as ``"key=value:Effect"`` taints do not cross languages: the object form does);
* ``int | str`` (Karpenter ``limits`` values) -> ``str``: a Kubernetes quantity string such as ``"8"``
  (Construct gives a whole number to the validator as a number, as the stack file's ``8``);
* the cluster's identity fields (``name``, ``nodeRoleArn``, ``subnetIds``, ...) -> ``pulumi.Input``:
  they may be another resource's outputs, as in Python; every other field is plain (judged at preview).

A pool is :data:`PoolArgs`: the fields every backend shares (``name``, ``backend``, ``taints``,
``labels``, ``gpuLabel``, ``gpuSharing``, ``mig``) and one optional block per backend
(``eksManaged``, ``gke``, ``selfManaged``, ``karpenter``, ``eksAuto``) holding only that backend's
fields: a TypeScript user gets completion for the fields the chosen backend takes, not the union of
all five. :data:`FIELD_DOCS` holds each type's field descriptions (the models' ``Field(description=...)``).

Raises at import: ``TypeError`` naming the model and field when a model uses an annotation this
module cannot express (a test builds every model, so a new field shape fails in CI, not for a user).
"""

import enum
import re
import types
import typing
from typing import Any, NotRequired, Required, TypedDict, get_args, get_origin

import pulumi
from pulumi.provider.experimental.util import camel_case as camel
from pydantic import BaseModel
from pydantic.alias_generators import to_pascal

from ..config.common import PoolBase, TaintConfig, TolerationConfig
from ..config.defaults import DEFAULT_TAINT
from ..config.pool_names import pool_name_limit
from ..config.stack import ClusterConfig, StackConfig
from ..k8s.names import LABEL_VALUE_MAX
from ..k8s.taints import TaintEffect
from ..k8s.wellknown import POOL_LABEL_KEY
from ..registry import all_backends
from ..sdk.identity import IDENTITY_FIELDS

__all__ = [
    "AdmissionArgs", "BLOCKS", "Backend", "ClusterArgs", "DevicePluginArgs", "FIELD_DOCS", "GpuAgentsArgs", "MODEL_OF",
    "PoolArgs", "TolerationArgs", "args_type", "backend_block", "camel",
]

#: The ``__module__`` of the built types: a module with no source file. The analyzer looks for each
#: property's docstring in its class's source; these classes have none (their descriptions come from
#: :data:`FIELD_DOCS`), and naming this file would make it parse the whole file once per property.
BUILT = f"{__name__}.built"
#: Type name -> {python field name: description}, for the schema's property descriptions.
FIELD_DOCS: dict[str, dict[str, str]] = {}
#: Type name -> the pydantic model it stands for (``PoolArgs`` -> ``PoolBase``; a block -> its pool model).
MODEL_OF: dict[str, type[BaseModel]] = {}
_TYPES: dict[type[BaseModel], type] = {}
_BUILDING: set[type[BaseModel]] = set()
#: Fields whose closed set is a shared enum rather than a ``Literal`` (their model types them ``str``).
_SHARED_ENUMS: dict[tuple[type[BaseModel], str], type[enum.Enum]] = {
    (TaintConfig, "effect"): TaintEffect,
    (TolerationConfig, "effect"): TaintEffect,
}


#: A model whose docstring describes a form the package does not take: its type's description here instead.
_TYPE_DOCS: dict[type[BaseModel], str] = {
    TaintConfig: (f"One taint, the object {{key, value, effect}}, e.g. {{key: {DEFAULT_TAINT.key}, value: "
                  f"{DEFAULT_TAINT.value}, effect: {DEFAULT_TAINT.effect.value}}}; the string key=value:Effect is taken "
                  "only by Python and the stack file."),
}


def _type_name(model: type[BaseModel]) -> str:
    return model.__name__.removesuffix("Config") + "Args"


def _member(value: str) -> str:
    """An enum member name for a value: ``ON_DEMAND``, ``timeSlicing`` -> ``TIME_SLICING``, ``0.20.0`` -> ``V0_20_0``."""
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", str(value))
    name = re.sub(r"[^A-Za-z0-9]+", "_", snake).strip("_").upper()
    return f"V{name}" if name[:1].isdigit() else name


def _enum(name: str, values: tuple[Any, ...], doc: str | None) -> type[enum.Enum]:
    members = {_member(v): v for v in values}
    made = enum.Enum(name, members, type=str, module=BUILT)  # type: ignore[misc]
    made.__doc__ = doc or f"One of {', '.join(map(str, values))}."
    globals()[name] = made
    return made


#: The pool's ``backend``: every registered backend's name (``eks-managed``, ``gke``, ...).
Backend = _enum("Backend", tuple(b.name for b in all_backends()), "The pool's backend: who creates its nodes.")


def _unwrap(annotation: Any) -> Any:
    while get_origin(annotation) is typing.Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _field_type(model: type[BaseModel], field: str, annotation: Any, identity: bool = False) -> Any:
    """The analyzer-readable type of one model field's annotation (see the module docstring)."""
    annotation = _unwrap(annotation)
    origin = get_origin(annotation)
    args = get_args(annotation)
    if (model, field) in _SHARED_ENUMS:
        found: Any = _SHARED_ENUMS[(model, field)]
        return typing.Union[found, None] if origin in (typing.Union, types.UnionType) else found
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            return typing.Union[_field_type(model, field, rest[0], identity), None]
        if set(rest) == {int, str}:
            return str  # a Kubernetes quantity: "8", "1000Gi"
        raise TypeError(f"{model.__name__}.{field}: the union {annotation} has no cross-language form")
    if origin is typing.Literal:
        if field == "backend":
            return Backend
        return _enum(f"{model.__name__.removesuffix('Config')}{to_pascal(field)}", args, None)
    if origin in (list, typing.Sequence) or annotation is list:
        (item,) = args
        inner = _field_type(model, field, item)
        return list[pulumi.Input[inner]] if identity else list[inner]
    if origin is dict:
        key, value = args
        if key is not str:
            raise TypeError(f"{model.__name__}.{field}: map keys must be strings, got {key}")
        return dict[str, _field_type(model, field, value)]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return args_type(annotation)
    if annotation in (str, int, float, bool):
        return annotation
    if annotation is Any:
        return Any
    raise TypeError(f"{model.__name__}.{field}: {annotation} has no cross-language form")


def _annotations(model: type[BaseModel], fields: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The ``TypedDict`` annotations and descriptions of ``model``'s ``fields`` (python name -> FieldInfo)."""
    identity = model is ClusterConfig
    annotations: dict[str, Any] = {}
    docs: dict[str, str] = {}
    for py_name, info in fields.items():
        is_input = identity and py_name in IDENTITY_FIELDS
        typ = _field_type(model, py_name, info.annotation, is_input)
        if is_input:
            typ = _as_input(typ)
        # the schema spells a key camel_case(key): a field whose config name is not that (``ownerID``) keeps it
        key = py_name if camel(py_name) == (info.alias or py_name) else info.alias
        annotations[key] = Required[typ] if info.is_required() else NotRequired[typ]
        if info.description:
            docs[key] = info.description.strip()
    return annotations, docs


def _typed_dict(name: str, model: type[BaseModel], annotations: dict[str, Any], docs: dict[str, str],
                doc: str | None) -> type:
    """A ``TypedDict`` ``name`` standing for ``model``, registered in this module and :data:`FIELD_DOCS`."""
    made = TypedDict(name, annotations)  # type: ignore[operator]
    made.__module__ = BUILT
    made.__doc__ = (doc or "").strip().split("\n\n")[0] or f"The stack config's {model.__name__}."
    FIELD_DOCS[name] = docs
    MODEL_OF[name] = model
    globals()[name] = made
    return made


def _as_input(typ: Any) -> Any:
    """``Optional[T]`` -> ``Optional[Input[T]]``; ``T`` -> ``Input[T]``."""
    if get_origin(typ) in (typing.Union, types.UnionType) and type(None) in get_args(typ):
        (inner,) = [a for a in get_args(typ) if a is not type(None)]
        return typing.Union[pulumi.Input[inner], None]
    return pulumi.Input[typ]


def args_type(model: type[BaseModel]) -> type:
    """The ``TypedDict`` standing for ``model`` (built once, then cached).

    Raises:
        TypeError: ``model`` contains itself (no config model does; a TypedDict cannot name itself
            without a forward reference the analyzer would look up by module).
    """
    if model in _BUILDING:
        raise TypeError(f"{model.__name__} contains itself; no cross-language form")
    if model not in _TYPES:
        _BUILDING.add(model)
        annotations, docs = _annotations(model, dict(model.model_fields))
        _BUILDING.discard(model)
        _TYPES[model] = _typed_dict(_type_name(model), model, annotations, docs, _TYPE_DOCS.get(model, model.__doc__))
    return _TYPES[model]


def backend_block(name: str) -> str:
    """The Python name of a backend's block in :data:`PoolArgs`: ``eks-managed`` -> ``eks_managed``."""
    return name.replace("-", "_")


def _pool_name_doc() -> str:
    """The pool name's description: the shared rule and each backend's own maximum (``PoolNameLimit`` of the registry)."""
    tighter = [(b.name, pool_name_limit(b.model())[0]) for b in all_backends()]
    fewer = [f"{longest} on {name}" for name, longest in tighter if longest < LABEL_VALUE_MAX]
    return (f"Pool name: a lower-case DNS label (letters, digits, '-'), the value of the node label {POOL_LABEL_KEY}: "
            f"at most {LABEL_VALUE_MAX} characters" + (f", {', '.join(fewer)} (the stack program names each pool's "
            "GpuNodePool after it, and the name the cloud gives the child Pulumi derives from it must fit)"
            if fewer else "") + ".")


def _pool_args() -> tuple[type, dict[str, str]]:
    annotations, docs = _annotations(PoolBase, dict(PoolBase.model_fields))
    annotations["backend"] = Required[Backend]
    docs["backend"] = "Who creates the nodes: " + " | ".join(b.name for b in all_backends()) + "."
    docs["name"] = _pool_name_doc()
    blocks: dict[str, str] = {}
    for backend in all_backends():
        model = backend.model()
        own = {k: v for k, v in model.model_fields.items() if k not in PoolBase.model_fields and k != "backend"}
        block_annotations, block_docs = _annotations(model, own)
        block = _typed_dict(model.__name__ + "Args", model, block_annotations, block_docs,
                            f"The fields of a ``{backend.name}`` pool beside the ones every backend shares.")
        key = backend_block(backend.name)
        blocks[key] = backend.name
        annotations[key] = NotRequired[block]
        docs[key] = f"The {backend.name} fields: given when backend is {backend.name}, and only then."
    doc = ("A GPU node pool, as one item of the stack's ``pools``: the fields every backend shares, "
           "``backend``, and that backend's block (``eksManaged`` for ``eks-managed``...).")
    return _typed_dict("PoolArgs", PoolBase, annotations, docs, doc), blocks


#: Python block name -> backend name (``eks_managed`` -> ``eks-managed``).
PoolArgs, BLOCKS = _pool_args()
ClusterArgs = args_type(ClusterConfig)
#: The stack-wide settings the agents and the admission policies take, by StackConfig field.
SETTINGS = {name: args_type(_unwrap(StackConfig.model_fields[name].annotation))
            for name in ("device_plugin", "gpu_agents", "admission")}
DevicePluginArgs = SETTINGS["device_plugin"]
GpuAgentsArgs = SETTINGS["gpu_agents"]
AdmissionArgs = SETTINGS["admission"]
TolerationArgs = args_type(TolerationConfig)
