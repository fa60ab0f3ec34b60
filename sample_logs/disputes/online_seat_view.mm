# Dispute: ana's own log of an online game (her seat's view: ben's hand and draws are
# not shown, so they are written as unknown cards, ?5 and ?1). ana says ben put a
# club on her heart; the server's log is lost. Preset online.
#   maumau-log validate sample_logs/disputes/online_seat_view.mm
#   maumau-log game sample_logs/disputes/online_seat_view.mm web-88123 --at 7 --try "ben plays 4C"
game web-88123
ruleset: online
players: ana ben
dealer: ben
meta: {"view": "ana", "client": "web 3.2"}

hand ana 5H 2S KH KD 9C
hand ben ?5
starter 5D

ana plays 5H
ben plays 3H
ana plays KH
ben draws ?1 (no_play)
ben passes
ana plays KD
ben plays 4C          # ana: "a club on my king of diamonds"
ana plays 9C
