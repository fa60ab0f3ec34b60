"""Scores: a round's scores under every scoring system and a match's running totals and end
(RULESETS.md "Scoring systems"; PRESETS.md rulings 13-14).
"""
