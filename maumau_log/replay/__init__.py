"""The replay: logs driven through the engine game by game, the checks outside the engine
(headers, matches, fair shuffles), the per-game report and the run's game ids.
"""
