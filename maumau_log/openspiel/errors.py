"""The importer's errors: a game that cannot be imported, located at its file, line, game
number and action index (docs/tutorials/openspiel-import.md; exit code 1 of
``maumau-log import openspiel``)."""

from __future__ import annotations


class OpenSpielImportError(ValueError):
    """A game that cannot be imported: not ``crazy_eights``, bad parameters, an action
    OpenSpiel would not allow, or unreadable input. ``str()`` gives the located message.

    Attributes:
        file: the input file as given.
        line: 1-based line of the offending text (the action's line in the serialized
            format, the JSON line), or None.
        game: 1-based number of the game in the file, or None.
        action_index: index of the offending action in the history (0 = the dealer
            choice), or None.
        reason: the plain explanation.
    """

    def __init__(
        self,
        reason: str,
        file: str = "<input>",
        line: int | None = None,
        game: int | None = None,
        action_index: int | None = None,
    ) -> None:
        self.reason = reason
        self.file = file
        self.line = line
        self.game = game
        self.action_index = action_index
        super().__init__(self._text())

    def _text(self) -> str:
        where = self.file + (f":{self.line}" if self.line is not None else "")
        parts = [where]
        if self.game is not None:
            parts.append(f"game {self.game}")
        if self.action_index is not None:
            parts.append(f"action {self.action_index}")
        return ", ".join(parts) + f": {self.reason}"

    def located(self, file: str, line: int | None, game: int | None) -> OpenSpielImportError:
        """The same error with its place filled in (the line only where none is known)."""
        return OpenSpielImportError(
            self.reason, file, self.line if self.line is not None else line, game,
            self.action_index,
        )  # fmt: skip


class IllegalAction(OpenSpielImportError):
    """An action that is not among OpenSpiel's legal actions in that state."""
