"""Run config checked before a run starts, with the library's own settings models.

The `dg.Config` classes and resources of `defs/` are the library's pydantic settings (one definition each):
they subclass them, or, where a field's type is one Dagster's config system cannot hold (a nested model, a
tuple, a Literal inside a map), are derived with `config_class`. So the launchpad shows their fields,
defaults, descriptions and Literal choices, and Dagster rejects a wrong type or choice when a run is
launched. Dagster's config system has no range type, though: a value outside a `Field(ge=..)` constraint
would only fail when its step builds the config or sets up the resource. `check_run_config` checks every
op's config and every resource value of the run config with the library's constraints first, so `vak run`
refuses it before any run starts.
"""

from __future__ import annotations

from copy import copy
from enum import Enum
from functools import cache
from types import UnionType
from typing import Annotated, Any, Literal, Optional, TypeVar, Union, get_args, get_origin, get_type_hints

import dagster as dg
from annotated_types import Len
from pydantic import BaseModel, TypeAdapter, ValidationError, create_model

M = TypeVar("M", bound=BaseModel)


class RunConfigError(ValueError):
    """A run config value the job's config classes reject; the message names the op and the field."""


def _config_class(node_def: Any) -> type[BaseModel] | None:
    fn = getattr(getattr(node_def, "compute_fn", None), "decorated_fn", None)
    if fn is None:
        return None
    try:
        cls = get_type_hints(fn).get("config")
    except (NameError, TypeError):
        return None
    return cls if isinstance(cls, type) and issubclass(cls, dg.Config) else None


def check_run_config(job: dg.JobDefinition, run_config: dict[str, Any]) -> None:
    """Raise RunConfigError unless Dagster accepts `run_config` for `job` and every op's config class and
    resource (the library's settings, constraints included) accepts its values."""
    try:
        dg.validate_run_config(job, run_config)
    except dg.DagsterInvalidConfigError as exc:
        raise RunConfigError(f"run config rejected for {job.name}: {exc}") from None
    ops = run_config.get("ops") or {}
    for node in job.graph.nodes:
        cls = _config_class(node.definition)
        if cls is None:
            continue
        values = (ops.get(node.name) or {}).get("config") or {}
        try:
            cls(**values)
        except ValidationError as exc:
            where = f"ops.{node.name}.config"
            raise RunConfigError(f"run config rejected for {job.name}: {where}: {_errors(exc)}") from None
    for key, entry in (run_config.get("resources") or {}).items():
        cls = getattr(job.resource_defs.get(key), "configurable_resource_cls", None)
        values = (entry or {}).get("config") or {}
        if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
            continue
        for name, value in values.items():  # the bound values were checked when the resource was built
            info = cls.model_fields.get(name)
            if info is None:
                continue
            annotation = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
            try:
                TypeAdapter(annotation).validate_python(value)
            except ValidationError as exc:
                raise RunConfigError(
                    f"run config rejected for {job.name}: resources.{key}.config.{name}: {_errors(exc)}"
                ) from None


def _errors(exc: ValidationError) -> str:
    """Where and what, never the value (a config value may be a path or a token)."""
    return ", ".join((".".join(str(p) for p in e["loc"]) + ": " if e["loc"] else "") + e["msg"] for e in exc.errors())


def library_settings(config: BaseModel, model: type[M]) -> M:
    """The library's settings model built from a config class or resource derived from it: the library
    validates every value again (a tuple it declares comes back as a tuple, a choice as its plain string)."""
    return model.model_validate({name: _plain(getattr(config, name)) for name in model.model_fields})


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return {name: _plain(getattr(value, name)) for name in type(value).model_fields}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@cache
def config_class(model: type[BaseModel], base: type[BaseModel] = dg.Config) -> type:
    """`model` as a Dagster config class (or resource, with base=dg.ConfigurableResource): a subclass of both.

    Dagster's config types hold scalars, lists, maps, Config classes and a top-level Literal (an enum). A
    field whose type Dagster cannot hold is re-annotated with one it can, keeping the library's default,
    constraints and description: a nested library model becomes its derived config class, a fixed-length
    tuple a list of that length, a Literal inside a container or an Optional an enum of the same strings, and a
    default factory the default it makes, so the launchpad shows it.
    `library_settings` turns an instance back into the library model.
    """
    overrides: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        annotation = _dagster_type(info.annotation, f"{model.__name__}_{name}", top=True)
        factory = info.default_factory
        if annotation != info.annotation or factory is not None:
            field = copy(info)
            field.annotation = annotation
            if factory is not None:  # Dagster shows a default, not a factory (pydantic copies it per instance)
                field.default, field.default_factory = factory(), None  # type: ignore[call-arg]
            if isinstance(field.default, tuple):
                field.default = list(field.default)
            if isinstance(annotation, type) and isinstance(field.default, BaseModel) \
                    and not isinstance(field.default, annotation):
                field.default = annotation(**field.default.model_dump())  # the library's nested default
            field.validate_default = True  # a default in the library's types becomes one in Dagster's
            overrides[name] = (annotation, field)
    return create_model(f"{model.__name__}Config", __base__=(model, base), __module__=__name__, **overrides)


def _dagster_type(annotation: Any, name: str, top: bool = False) -> Any:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return Annotated[(_dagster_type(args[0], name, top), *annotation.__metadata__)]
    if origin is Literal:
        if top or not all(isinstance(a, str) for a in args):
            return annotation
        return Enum(name, {a: a for a in args}, type=str)
    if origin in (Union, UnionType):
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1 and len(args) == 2:
            return Optional[_dagster_type(inner[0], name)]  # noqa: UP045 (Dagster reads Optional, not X | None)
        return annotation
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return list[_dagster_type(args[0], name)]
        if args and len(set(args)) == 1:
            return Annotated[list[_dagster_type(args[0], name)], Len(len(args), len(args))]
        return annotation
    if origin is list:
        return list[_dagster_type(args[0], name)]
    if origin is dict:
        return dict[args[0], _dagster_type(args[1], name)]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel) and not issubclass(annotation, dg.Config):
        return config_class(annotation)
    return annotation
