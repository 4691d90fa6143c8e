#!/usr/bin/env python3
"""Writes the PGN round-trip fixtures of tests/rules/pgn_roundtrip.rs.

chess:   tests/fixtures/chess/games.pgn, written by python-chess: the
         Stockfish-vs-Arbiter match games of tools/match.py (PGN files given
         on the command line) and the games of tests/fixtures/chess/games.jsonl.
xiangqi: tests/fixtures/xiangqi/games.pgn: the CCPD game records of
         ../shared/reference/xiangqi (complete checkmate-tactics games and
         endgames from a FEN), movetext in WXF written by pyffish for two
         games in three and in ICCS for the rest.

Usage: python3 tools/gen_pgn_fixtures.py MATCH.pgn... (needs `chess`, `pyffish`)
"""

import io
import json
import sys
from pathlib import Path

import chess
import chess.pgn
import pyffish

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "reference" / "xiangqi"


def chess_games(match_files):
    out = io.StringIO()
    count = 0
    for path in match_files:
        with open(path, encoding="utf-8") as f:
            while (game := chess.pgn.read_game(f)) is not None:
                print(game, file=out, end="\n\n")
                count += 1
    with open(ROOT / "tests/fixtures/chess/games.jsonl", encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            board = chess.Board(record["start"])
            game = chess.pgn.Game.from_board(board)
            game.headers["Event"] = record["id"]
            node = game
            for uci in record["moves"]:
                node = node.add_variation(chess.Move.from_uci(uci))
            outcome = node.board().outcome(claim_draw=False)
            game.headers["Result"] = outcome.result() if outcome else "*"
            print(game, file=out, end="\n\n")
            count += 1
    (ROOT / "tests/fixtures/chess/games.pgn").write_text(out.getvalue(), encoding="utf-8")
    return count


def fsf_to_iccs(move):
    """h3e3 (ranks 1-10) -> h2e2 (ranks 0-9)."""
    i = 1
    while move[i].isdigit():
        i += 1
    return f"{move[0]}{int(move[1:i]) - 1}{move[i]}{int(move[i + 1:]) - 1}"


def xiangqi_games():
    out = []
    n = 0
    for name in ["ccpd_checkmate_games.jsonl", "ccpd_endgames.jsonl"]:
        with open(SHARED / name, encoding="utf-8") as f:
            for line in f:
                record = json.loads(line)
                fen, moves = record["fen"], record["moves_uci"]
                wxf = n % 3 != 2
                if wxf:
                    text = pyffish.get_san_moves("xiangqi", fen, moves, False, pyffish.NOTATION_XIANGQI_WXF)
                else:
                    text = [fsf_to_iccs(m) for m in moves]
                turn_black = fen.split()[1] == "b"
                number = int(fen.split()[5]) if len(fen.split()) > 5 else 1
                tokens = []
                for i, m in enumerate(text):
                    black = (i % 2 == 1) != turn_black
                    if not black:
                        tokens.append(f"{number}.")
                    elif i == 0:
                        tokens.append(f"{number}...")
                    tokens.append(m)
                    if black:
                        number += 1
                result = record.get("result", "*")
                tokens.append(result)
                tags = [
                    ("Event", record.get("event", "CCPD")),
                    ("Site", record.get("source", "")),
                    ("Result", result),
                    ("Variant", "xiangqi"),
                    ("Game", "Chinese Chess"),
                    ("FEN", fen),
                    ("Notation", "WXF" if wxf else "ICCS"),
                ]
                head = "".join(f'[{k} "{v.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"]\n' for k, v in tags)
                out.append(head + "\n" + " ".join(tokens) + "\n\n")
                n += 1
    (ROOT / "tests/fixtures/xiangqi/games.pgn").write_text("".join(out), encoding="utf-8")
    return n


if __name__ == "__main__":
    print("chess games:", chess_games(sys.argv[1:]))
    print("xiangqi games:", xiangqi_games())
