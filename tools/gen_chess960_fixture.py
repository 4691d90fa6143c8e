#!/usr/bin/env python3
"""Generate tests/fixtures/chess/chess960.jsonl from python-chess's Chess960 board.

Each line is one game, in the format of games.jsonl (see gen_chess_fixture.py
and tests/fixtures/chess/README.md), played with `chess.Board(chess960=True)`:
positions are X-FEN, castling moves are UCI king-takes-rook (`e1h1`), SAN
`O-O` / `O-O-O`. Each game also carries its start as Shredder-FEN
(`start_shredder`) and, for a numbered start, the number (`start_number`).

Games:
  start-N    from Chess960 start N (a fixed sample of the 960, seeded),
             special moves preferred, castling most of all
  tricky-*   hand-made positions around Chess960 castling: the king already
             on its castling square, king and rook swapping, a rook between
             king and corner, castling through or into an attacked square,
             rooks and kings on the b- and g-files

How to rerun (deterministic):

    python3 tools/gen_chess960_fixture.py

Requires python-chess (generated with 1.11.2).
"""

import collections
import json
import os
import random

import chess

from gen_chess_fixture import (dump_line, make_biased,
                               position_record, rng_for)

SEED = "arbiter-chess960-fixture-v1"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "chess", "chess960.jsonl")

STARTS = 40

TRICKY = {
    # The king already stands where castling puts it.
    "king-on-g1": "r5kr/pppppppp/8/8/8/8/PPPPPPPP/R5KR w AHah - 0 1",
    "king-on-c1": "r1k4r/pppppppp/8/8/8/8/PPPPPPPP/R1K4R w AHah - 0 1",
    # King and rook trade squares.
    "swap-f1-g1": "rnbbqkrn/pppppppp/8/8/8/8/PPPPPPPP/RNBBQKRN w AGag - 0 1",
    "swap-b1-c1": "nrkqbbnr/pppppppp/8/8/8/8/PPPPPPPP/NRKQBBNR w BHbh - 0 1",
    # Only rooks and kings: castling on either wing, checks along the rank.
    "bare-b1": "1r4kr/8/8/8/8/8/8/RK5R w AHbh - 0 1",
    "bare-g1": "r5kr/8/8/8/8/8/8/R5KR w AHah - 0 1",
    # A rook between king and corner: Shredder letters name the inner rook.
    "inner-rook": "4k3/8/8/8/8/8/8/1R2K1RR w GB - 0 1",
    # A bishop attacks a square the king passes; a knight the rook's target.
    "through-check": "r3k2r/8/8/8/8/8/5b2/R3K2R w AHah - 0 1",
    "rook-target-attacked": "2r1k1r1/8/8/8/8/3n4/8/2R1K1R1 w CGcg - 0 1",
    # The rook stands on the king's target square.
    "rook-on-target": "1k4r1/8/8/8/8/8/8/4K1R1 w G - 0 1",
}


def play(game_id, board, chooser, cap):
    rng = rng_for(game_id)
    start = board.fen()
    shredder = board.fen(shredder=True)
    key_counts = collections.Counter()
    key_counts[board._transposition_key()] += 1
    positions = [position_record(board, key_counts)]
    moves = []
    while board.outcome(claim_draw=False) is None and len(moves) < cap:
        move = chooser(board, rng)
        moves.append(board.uci(move))
        board.push(move)
        key_counts[board._transposition_key()] += 1
        positions.append(position_record(board, key_counts))
    return {"id": game_id, "start": start, "start_shredder": shredder,
            "moves": moves, "positions": positions}


def castling_first(board, rng):
    """Castle whenever possible, else play as the biased chooser does."""
    castles = [m for m in board.legal_moves if board.is_castling(m)]
    if castles and rng.random() < 0.8:
        return rng.choice(castles)
    return BIASED(board, rng)


BIASED = make_biased(mate_prob=0.7)


def main():
    rng = random.Random(SEED)
    games = []
    for number in sorted(rng.sample(range(960), STARTS)):
        board = chess.Board.from_chess960_pos(number)
        game = play(f"start-{number}", board, castling_first, 160)
        game["start_number"] = number
        games.append(game)
    for name, fen in TRICKY.items():
        board = chess.Board(fen, chess960=True)
        assert board.is_valid(), (name, board.status())
        games.append(play(f"tricky-{name}", board, castling_first, 60))
    with open(OUT, "w") as f:
        for g in games:
            f.write(dump_line(g) + "\n")
    print(f"{len(games)} games, {sum(len(g['moves']) for g in games)} moves -> {OUT}")


if __name__ == "__main__":
    main()
