"""MkDocs hook: the command-line reference, made from the typer app at build time.

The marker ``<!-- cli-reference -->`` (alone on its line) becomes one section per command
and sub-command of ``maumau-log``: what it does (its help text), its usage line and a table
of its arguments and options with their defaults, all read from the click command that
typer builds from the app, after importing every module of the CLI package (the commands
register themselves when their module is imported). Nothing is copied by hand, so a new
command or option appears on the next build. ``tests/test_docs.py`` imports this file and
checks that every command has its section.
"""

from __future__ import annotations

import html
import importlib
import pkgutil
import re
from typing import Any

MARKER = re.compile(r"^<!-- cli-reference -->$", re.MULTILINE)
PROGRAM = "maumau-log"
APP_MODULE = "maumau_log.cli"


def root_command() -> Any:
    """The click command of the whole app, every command registered, with the readable
    placeholders the program itself shows (``PATH...``, ``DATASET``, ``FILE``)."""
    import typer

    cli = importlib.import_module(APP_MODULE)
    for info in pkgutil.walk_packages(cli.__path__, prefix=f"{APP_MODULE}."):
        importlib.import_module(info.name)
    command = typer.main.get_command(cli.app)
    readable = getattr(cli, "readable_metavars", None)
    return readable(command) if readable is not None else command


def walk(command: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """Every command below ``command`` with its path of names, groups before their
    sub-commands, in alphabetical order."""
    found: list[tuple[tuple[str, ...], Any]] = []
    for name in sorted(getattr(command, "commands", {})):
        sub = command.commands[name]
        found.append(((*path, name), sub))
        found.extend(walk(sub, (*path, name)))
    return found


def anchor(path: tuple[str, ...]) -> str:
    """The heading id of a command's section: ``import-openspiel`` for ``import openspiel``."""
    return "-".join(path)


def _text(text: str | None) -> str:
    """Help text as Markdown: rich's escapes undone, HTML escaped."""
    plain = (text or "").replace("\\[", "[").replace("\b", "")
    return html.escape(plain, quote=False)


def _cell(text: str) -> str:
    return _text(text).replace("|", "\\|").replace("\n", " ")


def _contexts(root: Any, path: tuple[str, ...]) -> Any:
    import click

    ctx = click.Context(root, info_name=PROGRAM)
    command = root
    for name in path:
        command = command.commands[name]
        ctx = click.Context(command, info_name=name, parent=ctx)
    return ctx


def _default(param: Any) -> str:
    default = param.default
    if getattr(param, "is_flag", False):
        if getattr(param, "secondary_opts", None):
            return f"`{(param.opts if default else param.secondary_opts)[0]}`"
        return "off" if not default else "on"
    if default is None or default == () or param.required:
        return ""
    if callable(default):
        return ""
    return f"`{_cell(str(default))}`"


def render_command(root: Any, path: tuple[str, ...], command: Any) -> str:
    """One command's section: heading, help, usage and its parameters."""
    ctx = _contexts(root, path)
    level = "#" * (1 + len(path))
    name = " ".join((PROGRAM, *path))
    lines = [f"{level} `{name}` {{#{anchor(path)}}}", ""]
    lines += [_text(command.help), ""]
    usage = " ".join(command.collect_usage_pieces(ctx))
    lines += ["```text", f"{name} {usage}".rstrip(), "```", ""]
    params = [p for p in command.get_params(ctx) if p.name != "help"]
    if params:
        lines += ["| argument or option | value | default | meaning |", "| --- | --- | --- | --- |"]
        for p in params:
            flags = [*p.opts, *getattr(p, "secondary_opts", [])]
            shown = (
                ", ".join(f"`{f}`" for f in flags)
                if p.param_type_name == "option"
                else (f"`{p.metavar or p.name.upper()}`")
            )
            metavar = p.metavar if p.param_type_name == "option" else ""
            meaning = _cell(getattr(p, "help", None) or "")
            if p.required and p.param_type_name == "option":
                meaning = "required. " + meaning
            lines.append(
                f"| {shown} | {f'`{metavar}`' if metavar else ''} | {_default(p)} | {meaning} |"
            )
        lines.append("")
    return "\n".join(lines)


def render(root: Any | None = None) -> str:
    """The whole reference: the program's own options, then every command."""
    root = root if root is not None else root_command()
    parts = []
    for path, command in walk(root):
        parts.append(render_command(root, path, command))
    return "\n".join(parts)


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """MkDocs event: expand the marker on the page that has it."""
    if not MARKER.search(markdown):
        return markdown
    return MARKER.sub(lambda _m: render(), markdown)
