# Dispute: ana answered ben's 7 with her own 7 instead of drawing two.
# ana says "a 7 on a 7 passes the draw on"; ben says not at this table (preset standard,
# draw_answer = none). Transcribed by hand from the table's paper score sheet.
#   maumau-log validate sample_logs/disputes/standard_seven_on_seven.mm
#   maumau-log game sample_logs/disputes/standard_seven_on_seven.mm club-2024-031 --at 5 --try "ana plays 7H"
game club-2024-031
ruleset: standard
players: ana ben
dealer: ben
started_at: 2024-03-14T20:05:00Z
meta: {"table": "club night, table 2", "written_by": "referee, from the score sheet"}

hand ana 9H 7H KS QC 10D
hand ben 9C 7C 8S JD AH
starter 10H
stock KC QS 9D 8C AS 10C 7D JH QD 8H KD 9S AC 10S 7S 8D QH JC KH AD JS

ana plays 9H
ben plays 9C
ana plays QC
ben plays 7C          # ana now owes two cards
ana plays 7H          # the disputed play: standard has no answering a 7
ben draws KC QS (effect)
ana plays KS
