"""``python -m maumau_log``: the same as the ``maumau-log`` command."""

from .cli import main

main()
