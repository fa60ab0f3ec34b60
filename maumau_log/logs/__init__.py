"""Log files: opening them (plain, gzip, zstd), splitting them into located lines and games,
the hand-written ``.mm`` notation, and writing logs.
"""
