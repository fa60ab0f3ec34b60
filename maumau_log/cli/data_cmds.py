"""Dataset commands (ingest, stats, game, query, analyze): see issue 3."""
