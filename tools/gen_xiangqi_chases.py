#!/usr/bin/env python3
"""Generate tests/fixtures/xiangqi/chases.jsonl: repetition cycles judged by
pyffish (Fairy-Stockfish's Python binding, AXF chasing rules), for the
differential test of the perpetual-chase judge (tests/rules/xiangqi_chase.rs).

Each case is a sparse random position (both generals, two to five other
pieces a side) and a cycle in which each side shuffles one piece between two
points: A x->y, B p->q, A y->x, B q->p, twice, so the start position occurs
for the third time after 8 plies.  Moves are chosen to make chases likely:
A's piece is a chariot, horse, cannon, advisor or elephant that lands near
an enemy piece, B's piece is one near A's landing point.  Every move of the
cycle is checked against pyffish's legal moves, and the last position is
judged with `is_optional_game_end` (history passed in one call).

One JSON object per line:

    {"id": "chase-17", "fen": "<FEN>", "moves": ["d0c2", ...],
     "ended": true, "value": 32000}

Moves are ICCS (ranks 0-9); `value` is from the side to move's view at the
end: 32000 = it wins (the opponent offended), -32000 = it loses, 0 = draw.
The file keeps every decisive cycle found and one drawn cycle in four.

Deterministic (seeded random.Random, no wall clock).  Requires pyffish
(generated with 0.0.90) and tools/gen_xiangqi_fixture.py beside this file.
Run from anywhere:

    python3 tools/gen_xiangqi_chases.py             # chases.jsonl
    python3 tools/gen_xiangqi_chases.py --seed v2   # chases-v2.jsonl

`--seed TAG` draws another set of cycles (seed string
"arbiter-xiangqi-chases-TAG"), written to chases-TAG.jsonl with ids
"chase-TAG-N"; the default tag v1 writes chases.jsonl with ids "chase-N".

Runtime: about three minutes a set.
"""

import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pyffish as sf  # noqa: E402

from gen_xiangqi_fixture import (  # noqa: E402
    BLACK_ADVISOR, BLACK_ELEPHANT, BLACK_PALACE, OUT_DIR, RED_ADVISOR,
    RED_ELEPHANT, RED_PALACE, V, pawn_ok, parse_board, placement, squares,
    to_iccs, validate_start,
)

SEED = "arbiter-xiangqi-chases-"
FIRST_TAG = "v1"
POSITIONS = 1200
PAIRS_PER_POSITION = 12
KEEP_DRAWS = 4  # keep one drawn cycle in this many

ALL_POINTS = [(f, r) for f in range(9) for r in range(1, 11)]


def points_for(piece):
    """Points a piece may stand on (FSF ranks 1-10)."""
    red = piece.isupper()
    kind = piece.lower()
    if kind == "k":
        return sorted(RED_PALACE if red else BLACK_PALACE)
    if kind == "a":
        return sorted(RED_ADVISOR if red else BLACK_ADVISOR)
    if kind == "b":
        return sorted(RED_ELEPHANT if red else BLACK_ELEPHANT)
    if kind == "p":
        return [s for s in ALL_POINTS if pawn_ok(s, red)]
    return ALL_POINTS


def random_position(rng):
    """A valid sparse position (pyffish-normalised FEN) or None."""
    board = {}
    for general in "Kk":
        board[rng.choice(points_for(general))] = general
    for side in (str.upper, str.lower):
        for _ in range(rng.randint(2, 5)):
            piece = side(rng.choice("rrnnccabp"))
            if list(board.values()).count(piece) >= (5 if piece in "Pp" else 2):
                continue
            free = [s for s in points_for(piece) if s not in board]
            board[rng.choice(free)] = piece
    fen = placement(board) + " " + rng.choice("wb") + " - - 0 1"
    try:
        return validate_start(fen)
    except (ValueError, RuntimeError):
        return None


def distance(a, b):
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def legal(fen, moves):
    return sf.legal_moves(V, fen, moves)


def candidate_pairs(rng, fen):
    """(a1, b1) FSF move pairs likely to make a chase, at most
    PAIRS_PER_POSITION."""
    board = parse_board(fen)
    red_to_move = fen.split()[1] == "w"
    pairs = []
    for a1 in legal(fen, []):
        (af, at) = squares(a1)
        if board[af].lower() in "kp" or at in board:
            continue  # a general or soldier move, or a capture
        near = [s for s, p in board.items()
                if p.isupper() != red_to_move and p.lower() != "k"
                and distance(s, at) <= 3]
        if not near:
            continue
        replies = [b1 for b1 in legal(fen, [a1])
                   if squares(b1)[0] in near and squares(b1)[1] not in board]
        for b1 in replies:
            pairs.append((a1, b1))
    rng.shuffle(pairs)
    return pairs[:PAIRS_PER_POSITION]


def cycle(fen, a1, b1):
    """The 8-ply cycle, or None if one of its moves is illegal."""
    (x, y), (p, q) = squares(a1), squares(b1)
    name = lambda s: f"{chr(97 + s[0])}{s[1]}"  # noqa: E731
    a2, b2 = name(y) + name(x), name(q) + name(p)
    moves = [a1, b1, a2, b2] * 2
    for i, m in enumerate(moves):
        if m not in legal(fen, moves[:i]):
            return None
    return moves


def names(tag):
    """The fixture file and the id prefix of the set drawn with `tag`."""
    if tag == FIRST_TAG:
        return "chases.jsonl", "chase-"
    return f"chases-{tag}.jsonl", f"chase-{tag}-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", default=FIRST_TAG, metavar="TAG",
                        help="the set of cycles to draw (default v1)")
    tag = parser.parse_args().seed
    out, prefix = names(tag)
    rng = random.Random(SEED + tag)
    cases, seen, found = [], set(), 0
    for _ in range(POSITIONS):
        fen = random_position(rng)
        if fen is None:
            continue
        for a1, b1 in candidate_pairs(rng, fen):
            moves = cycle(fen, a1, b1)
            if moves is None:
                continue
            ended, value = sf.is_optional_game_end(V, fen, moves)
            if not ended:
                continue
            found += 1
            if value == 0 and found % KEEP_DRAWS:
                continue
            key = (fen, tuple(moves))
            if key in seen:
                continue
            seen.add(key)
            cases.append({
                "id": f"{prefix}{len(cases) + 1}",
                "fen": fen,
                "moves": [to_iccs(m) for m in moves],
                "ended": ended,
                "value": value,
            })
    path = os.path.join(OUT_DIR, out)
    with open(path, "w", encoding="utf-8") as fh:
        for c in cases:
            fh.write(json.dumps(c, separators=(",", ":")) + "\n")
    decisive = sum(1 for c in cases if c["value"])
    print(f"wrote {path}: {len(cases)} cycles, {decisive} decisive "
          f"(of {found} judged)", file=sys.stderr)


if __name__ == "__main__":
    main()
