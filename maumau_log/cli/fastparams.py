"""Command-line values converted without pydantic where that gives the same value.

typer 0.2x converts every value but a flag through a pydantic ``TypeAdapter`` built on the
first use: importing pydantic and building the adapters is about a third of the start-up of
``maumau-log import openspiel ... --validate`` (``python -X importtime``: pydantic,
pydantic_core and their helpers 0.16 s of 0.48 s on a loaded machine). For the plain
parameter types of this command line (``str``, ``Path``, ``int``, an ``Enum``, lists of
them) the value typer's adapter returns is known, so :func:`direct_values` gives each such
parameter a converter that makes it directly, and hands every value it does not accept
outright (a number out of range, a path that must exist and does not, a word that is not a
choice, any other type) to typer's own converter: the refusal, its message and its exit
code are typer's. Older typer releases (click types, no pydantic) have no such hook, and a
parameter whose typer has none is left alone.

Which values are taken directly, and the value typer's adapter gives for them:

- ``str``: a ``str`` (itself); ``bool``: a ``bool`` (typer passes the flags' values by itself
  already converted, but not those of the ``--help`` options it makes per invocation);
- ``Path`` (without ``path_type``): a ``str`` becomes ``Path(value)``, then typer's own path
  checks run (``typer._param_types.coerce_cli_path``: exists, file/dir, readable...);
- ``int``: an ``int``, or ASCII digits (``int(value)``), within ``min``/``max`` (no clamp);
- an ``Enum``: typer's own ``coerce_cli_choice`` (the member named);
- ``list[...]`` of those: each item; ``None`` and an empty list as typer has them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

try:  # typer >= 0.2x: coercion through a RuntimeParam per parameter
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer._param_types import coerce_cli_choice, coerce_cli_path

    HOOK = True
except ImportError:  # pragma: no cover - an older typer (click's types): nothing to do
    HOOK = False


def _kind(annotation: Any, info: Any) -> tuple[str, bool] | None:
    """``(kind, many)`` for an annotation taken directly, or None."""
    many = get_origin(annotation) is list
    if many:
        args = get_args(annotation)
        if len(args) != 1:
            return None
        annotation = args[0]
    if getattr(info, "parser", None) is not None or getattr(info, "click_type", None):
        return None
    if annotation is str:
        return "str", many
    if annotation is bool and not many:
        return "bool", many
    if annotation is Path and getattr(info, "path_type", None) is None:
        return "path", many
    if annotation is int and not getattr(info, "clamp", False):
        return "int", many
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return "enum", many
    return None


if HOOK:

    @dataclass(frozen=True)
    class _Direct(RuntimeParam):
        """typer's converter for one parameter, with the plain cases made directly."""

        descriptor: Any
        kind: str
        many: bool

        def _one(self, value: Any, param: Any, ctx: Any) -> Any:
            kind, info = self.kind, self.parameter_info
            if kind == "str":
                if type(value) is str:
                    return value
            elif kind == "bool":
                if type(value) is bool:
                    return value
            elif kind == "path":
                if type(value) is str:
                    return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
            elif kind == "int":
                if type(value) is str and value.isascii() and value.isdigit():
                    value = int(value)
                low, high = info.min, info.max
                above = type(value) is int and (low is None or value >= low)
                if above and (high is None or value <= high):
                    return value
            else:
                return coerce_cli_choice(
                    value,
                    choices=tuple(self.annotation),
                    case_sensitive=info.case_sensitive,
                    ctx=ctx,
                )
            raise ValueError("not a plain value")

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                if not self.many:
                    return self._one(value, param, ctx)
                items = value if isinstance(value, (list, tuple)) else [value]
                return [self._one(v, param, ctx) for v in items]
            except Exception:  # typer's own converter decides, and words the refusal
                slow = build_runtime_param(self.descriptor)
                return slow._coerce_value(value, param=param, ctx=ctx)


def _give(param: Any) -> bool:
    """Give one parameter the direct converter when its type is plain; True if given."""
    desc = getattr(param, "type_descriptor", None)
    if desc is None or getattr(param, "_runtime_param", False) is not None:
        return False
    found = _kind(desc.annotation, desc.parameter_info)
    if found is None:
        return False
    kind, many = found
    param._runtime_param = _Direct(
        parameter_info=desc.parameter_info,
        annotation=get_args(desc.annotation)[0] if many else desc.annotation,
        descriptor=desc,
        kind=kind,
        many=many,
    )
    return True


def direct_values(command: Any) -> int:
    """Give every parameter of the command tree whose type is plain (module doc), the
    ``--help`` options made per invocation included, the direct converter; the others keep
    typer's.

    Args:
        command: the click command built by ``typer.main.get_command``.
    Returns:
        How many parameters were given the direct converter now (0 on a typer without the
        hook; the ``--help`` options are given theirs when they are made).
    """
    if not HOOK:
        return 0
    done = sum(_give(param) for param in getattr(command, "params", []))
    make_help = getattr(command, "get_help_option", None)
    if make_help is not None:

        def help_option(ctx: Any, make_help: Any = make_help) -> Any:
            option = make_help(ctx)
            if option is not None:
                _give(option)
            return option

        command.get_help_option = help_option
    for sub in getattr(command, "commands", {}).values():
        done += direct_values(sub)
    return done


__all__ = ["direct_values"]
