# A transcription with a typo: "plyas" is no verb of the notation (docs/notation.md).
game sample-bad_notation
ruleset: standard
players: ana ben
dealer: ben
hand ana 9H 7H KS QC 10D
hand ben 9C 7C 8S JD AH
starter 10H
stock KC QS 9D 8C AS 10C 7D JH QD 8H KD 9S AC 10S 7S 8D QH JC KH AD JS
ana plays 9H
ben plyas 9C
ana plays QC
