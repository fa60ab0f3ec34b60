"""``python -m maumau_log``: the same as the ``maumau-log`` command."""

from .launch import run

run()
