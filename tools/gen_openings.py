#!/usr/bin/env python3
"""Builds data/openings/openings.tsv, the chess openings Arbiter names
games by, from the Lichess openings dataset (lichess-org/chess-openings,
CC0: data/openings/COPYING.txt).

Each line of the dataset's a.tsv ... e.tsv (eco, name, pgn) is played with
python-chess, which must accept every move; the output holds the ECO code,
the name, the number of plies and the position reached, as its EPD without
the en passant field (board, side to move, castling), so that a game reaching
it by another order of moves is named too. Arbiter's test
(tests/rules/openings.rs) replays each line's moves with its own rules and
checks that it reaches the position python-chess wrote.

    git clone https://github.com/lichess-org/chess-openings /tmp/chess-openings
    python3 -m venv .venv && .venv/bin/pip install chess==1.11.2
    .venv/bin/python tools/gen_openings.py /tmp/chess-openings
"""

import sys
from pathlib import Path

import chess
import chess.pgn

OUT = Path(__file__).resolve().parent.parent / "data" / "openings" / "openings.tsv"


def position_key(board: chess.Board) -> str:
    """Board, side to move and castling: the EPD's first three fields."""
    return " ".join(board.epd().split()[:3])


def main() -> None:
    source = Path(sys.argv[1])
    lines = ["eco\tname\tuci\tposition"]
    for part in "abcde":
        rows = (source / f"{part}.tsv").read_text(encoding="utf-8").splitlines()
        assert rows[0] == "eco\tname\tpgn", rows[0]
        for row in rows[1:]:
            eco, name, pgn = row.split("\t")
            board = chess.Board()
            uci = []
            for token in pgn.split():
                if token.endswith("."):
                    continue
                move = board.parse_san(token)
                uci.append(move.uci())
                board.push(move)
            lines.append(f"{eco}\t{name}\t{' '.join(uci)}\t{position_key(board)}")
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines) - 1} openings written to {OUT}")


if __name__ == "__main__":
    main()
