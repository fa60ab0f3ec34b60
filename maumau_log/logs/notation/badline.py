"""The stand-in for a notation line that could not be read (its own small module, so the
replay can name the class without importing the notation's lexer and reader:
start-up)."""

from __future__ import annotations


class BadLine(bytes):
    """A located line that could not be read, for the replay (code ``bad_notation``).

    The bytes are a stand-in event (a header stand-in when ``header`` is true, so the game
    the line belongs to is the one that gets the violation). ``message`` says where and why.
    """

    message: str
    header: bool
    game_id: str | None
