"""Disputes: one game replayed step by step, hypothetical moves, the offline HTML viewer, and a
seat's log compared with the server's.
"""
