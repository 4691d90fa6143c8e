#!/usr/bin/env python3
"""Generate tests/fixtures/xiangqi/repetition_claims_fsf.jsonl: for the
decisive cycles of tests/fixtures/xiangqi/chases*.jsonl, whether the game
ends after each move that brings a position back, as pyffish (Fairy-
Stockfish's Python binding) judges it with the whole history.

A cycle of the chases fixtures is four moves played twice from its start,
so its move `k` (0-based) repeats the position after move `k - 4`: for
`k` = 3 to 6 the position occurs for the second time, for `k` = 7 for the
third. For each decisive cycle (pyffish's `value` not 0) and each such `k`,
one JSON object per line:

    {"id": "chase-17@5", "fen": "<FEN>", "moves": ["d0c2", ...],
     "move": "c3d3", "ended": false, "value": 0}

`moves` (ICCS, ranks 0-9) lead from `fen` to the position where `move` is
played; `ended` and `value` are `sf.is_optional_game_end` after `move`,
`value` from the view of the side to move then (32000 = it wins, -32000 = it
loses; written as 0 when `ended` is false). `legal_after` is the number of
pyffish's legal moves after `move` (0 would end the game as well).

Deterministic; requires pyffish (generated with 0.0.90). Run from anywhere:

    python3 tools/gen_xiangqi_repetition_claims.py

Runtime: a few seconds.
"""

import json
import os

import pyffish as sf

V = "xiangqi"
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "xiangqi")
SOURCES = ["chases.jsonl", "chases-v2.jsonl", "chases-v3.jsonl"]
OUT = os.path.join(FIXTURES, "repetition_claims_fsf.jsonl")


def to_fsf(m):
    """ICCS h2e2 -> FSF h3e3 (ranks one higher)."""
    return f"{m[0]}{int(m[1]) + 1}{m[2]}{int(m[3]) + 1}"


def main():
    lines = []
    for source in SOURCES:
        with open(os.path.join(FIXTURES, source), encoding="utf-8") as f:
            cases = [json.loads(line) for line in f if line.strip()]
        for case in cases:
            if case["value"] == 0:
                continue
            fsf = [to_fsf(m) for m in case["moves"]]
            for k in range(3, 8):
                ended, value = sf.is_optional_game_end(V, case["fen"], fsf[: k + 1])
                legal_after = len(sf.legal_moves(V, case["fen"], fsf[: k + 1]))
                lines.append(
                    json.dumps(
                        {
                            "id": f"{case['id']}@{k}",
                            "fen": case["fen"],
                            "moves": case["moves"][:k],
                            "move": case["moves"][k],
                            "ended": ended,
                            "value": value if ended else 0,
                            "legal_after": legal_after,
                        },
                        separators=(",", ":"),
                    )
                )
    with open(OUT, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{OUT}: {len(lines)} lines")


if __name__ == "__main__":
    main()
