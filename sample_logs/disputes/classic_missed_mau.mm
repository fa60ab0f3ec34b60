# Dispute: ben went down to one card without saying "Mau"; cleo caught it at once.
# ben says a catch must wait until he has named his suit. Preset classic (call_last_card = mau,
# call_penalty = 2): the catch stands, and the game is valid.
#   maumau-log validate sample_logs/disputes/classic_missed_mau.mm
#   maumau-log view sample_logs/disputes/classic_missed_mau.mm club-2024-044 --out mau.html
game club-2024-044
ruleset: classic
players: ana ben cleo
dealer: cleo

hand ana 8D KD QD 10S 9S
hand ben KH 10H 7S AS JC
hand cleo QC 9C AC KC 8H
starter 10D
stock 7C 9H 8C AD 7H JS QH 8S 10C QS JD 7D JH KS AH 9D

ana plays KD
ben plays KH
cleo plays 8H         # an 8: ana is skipped
ben plays 10H
cleo draws 7C (no_play)
cleo passes
ana plays 10S
ben plays 7S          # cleo owes two ...
cleo plays 7C         # ... and answers with her 7: ana owes four
ana draws 9H 8C AD 7H (effect)
ben plays JC
ben names S           # ben holds one card (AS) and says nothing
ben pays 2 (missed_call) by cleo
cleo draws 8S (no_play)
cleo plays 8S         # ana is skipped
ben plays AS
cleo plays AC
ana plays 8C          # ben is skipped
cleo plays 9C         # a 9 reverses: ben is next
ben plays JS
ben names H
ben calls mau         # this time he says it
ana draws 10C (voluntary)
ana passes
cleo draws QS (no_play)
cleo passes
ben plays QH
end ben
