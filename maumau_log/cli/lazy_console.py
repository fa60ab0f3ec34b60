"""The command line's stdout and stderr consoles, made on their first real use.

Importing ``rich.console`` is about a tenth of the CPU time of a short ``validate`` or
``import openspiel --validate`` (``python -X importtime``: 17-20 ms of 150-180 ms), and
their usual output, one summary line to a file or a pipe, needs none of it: on a stream
that is surely not a terminal, rich writes that line without styles, exactly as given.
:class:`LazyConsole` makes the rich console when anything else is asked of it.
"""

from __future__ import annotations

import builtins
import os
import sys
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from rich.console import Console


def plain(text: str) -> bool:
    """True for printable ASCII without ``[``, ``\\`` and ``]``: text rich prints as it is
    (no markup, no escapes, no control characters, one cell per character). String tests,
    not a regular expression: compiling one costs start-up."""
    return text.isascii() and text.isprintable() and not any(c in text for c in "[]\\")


def surely_plain(stream: TextIO | None) -> bool:
    """True when a rich console on ``stream`` surely shows no styles: not in Jupyter, neither
    ``TTY_COMPATIBLE`` nor ``FORCE_COLOR`` set (which rich reads before the stream) and the
    stream is no terminal. False when in doubt (rich then decides)."""
    if stream is None or "get_ipython" in builtins.__dict__:
        return False
    if "TTY_COMPATIBLE" in os.environ or "FORCE_COLOR" in os.environ:
        return False
    try:
        return not stream.isatty()
    except (AttributeError, ValueError):
        return False


class LazyConsole:
    """A rich ``Console(**options)`` made on first use; every attribute is the console's.

    :meth:`line` and :attr:`is_terminal` answer without making it where the stream is
    surely plain (:func:`surely_plain`): the same bytes as the console would write.
    """

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    @property
    def rich(self) -> Console:
        """The rich console (made now if it was not yet)."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rich, name)

    def _stream(self) -> TextIO | None:
        """The stream the console writes to now (rich's choice: the current ``sys`` one)."""
        file = self._options.get("file")
        if file is None:
            file = sys.stderr if self._options.get("stderr") else sys.stdout
        return getattr(file, "rich_proxied_file", file)

    @property
    def is_terminal(self) -> bool:
        """Whether the stream is a terminal (rich's answer; False without rich when surely
        not)."""
        if self._console is None and surely_plain(self._stream()):
            return False
        return self.rich.is_terminal

    def line(self, text: str, style: str = "", highlight: bool = True) -> None:
        """Print one line: ``console.print(f"[{style}]{text}[/]")`` (``text`` alone without
        a style), highlighted where colours show (``highlight``), or the same bytes
        directly where ``text`` is :func:`plain` and the stream :func:`surely_plain`.

        Args:
            text: the line as rich markup (markup in it is rich's, as in any ``print``).
            style: the line's style words (``"bold green"``); shown only where colours show.
            highlight: rich's highlighting where colours show (False: never).
        """
        stream = self._stream()
        if self._console is None and plain(text) and surely_plain(stream):
            assert stream is not None
            stream.write(text + "\n")
            stream.flush()
            return
        console = self.rich
        console.print(
            f"[{style}]{text}[/]" if style else text,
            highlight=highlight and console.color_system is not None,
        )


def as_rich(console: Any) -> Any:
    """The rich console behind ``console`` (a :class:`LazyConsole`), or ``console`` itself."""
    return console.rich if isinstance(console, LazyConsole) else console
