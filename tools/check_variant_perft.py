#!/usr/bin/env python3
"""Cross-check the variant perft suites in tests/fixtures/variants/*.perft
against python-chess and Fairy-Stockfish (pyffish).

Each suite is in the format of python-chess's examples/perft files:

    id <name>
    variant <key>          (only in fairy-stockfish.perft, which mixes variants)
    epd <EPD or FEN>
    perft <depth> <count>

Every count up to --max-nodes (python-chess) and --max-ffish-nodes
(pyffish, whose recursive perft is slower) is recomputed; every count that
differs, and every position python-chess rejects, is printed.

    python3 tools/check_variant_perft.py [--max-nodes N] [--max-ffish-nodes N]

Requires python-chess (1.11.2) and pyffish (0.0.90).
"""

import argparse
import glob
import os
import sys

import chess
import chess.variant
import pyffish

from gen_variant_fixture import BOARDS, ROOT

FFISH_NAMES = {
    "crazyhouse": "crazyhouse",
    "antichess": "antichess",
    "atomic": "atomic",
    "horde": "horde",
    "kingOfTheHill": "kingofthehill",
    "racingKings": "racingkings",
    "threeCheck": "3check",
}

DIR = os.path.join(ROOT, "tests", "fixtures", "variants")


def read_suite(path):
    """(id, variant key, epd, [(depth, count)]) per entry."""
    default_key = os.path.basename(path)[:-len(".perft")]
    entries = []
    current = None
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        cmd, arg = line.split(None, 1)
        if cmd == "id":
            current = {"id": arg, "key": default_key, "epd": None, "counts": []}
            entries.append(current)
        elif cmd == "variant":
            current["key"] = arg
        elif cmd == "epd":
            if current is None or current["epd"] is not None:
                current = {"id": None, "key": default_key, "epd": None, "counts": []}
                entries.append(current)
            current["epd"] = arg
        elif cmd == "perft":
            depth, count = map(int, arg.split())
            current["counts"].append((depth, count))
        else:
            raise ValueError(f"{path}: unknown line {line!r}")
    return entries


def full_fen(epd):
    """An EPD of 4 fields (5 with Three-check's `N+N`) with counters added."""
    parts = epd.split()
    if len(parts) == 4 or (len(parts) == 5 and "+" in parts[4]):
        return epd + " 0 1"
    return epd


def pc_perft(board, depth):
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += pc_perft(board, depth - 1)
        board.pop()
    return total


def ffish_perft(variant, fen, moves, depth):
    legal = pyffish.legal_moves(variant, fen, moves)
    if depth == 1:
        return len(legal)
    return sum(ffish_perft(variant, fen, moves + [m], depth - 1) for m in legal)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-nodes", type=int, default=300_000)
    parser.add_argument("--max-ffish-nodes", type=int, default=100_000)
    args = parser.parse_args()
    problems = []
    checked_pc = checked_ff = 0
    for path in sorted(glob.glob(os.path.join(DIR, "*.perft"))):
        name = os.path.basename(path)
        for entry in read_suite(path):
            key = entry["key"]
            fen = full_fen(entry["epd"])
            # The atomic960-* positions of python-chess's atomic.perft castle
            # as in Chess960 (king on g1, rooks on b1/h1); python-chess's own
            # perft script reads every suite with chess960=True.
            chess960 = "960" in (entry["id"] or "")
            try:
                board = BOARDS[key](fen, chess960=chess960)
            except ValueError as e:
                problems.append(f"{name} {entry['id']}: python-chess rejects {fen!r}: {e}")
                continue
            if not board.is_valid():
                problems.append(f"{name} {entry['id']}: python-chess: not valid "
                                f"(status {board.status()!r}) {fen!r}")
            if chess960:
                try:
                    strict = BOARDS[key](fen)
                    if not strict.is_valid():
                        print(f"note: {name} {entry['id']} without Chess960: "
                              f"status {strict.status()!r}")
                except ValueError as e:
                    print(f"note: {name} {entry['id']} without Chess960: {e}")
            for depth, count in entry["counts"]:
                line = f"{name} {entry['id']} ({key}) depth {depth} count {count}"
                if count <= args.max_nodes:
                    got = pc_perft(board, depth)
                    checked_pc += 1
                    if got != count:
                        problems.append(f"{line}: python-chess {got}")
                if count <= args.max_ffish_nodes:
                    got = ffish_perft(FFISH_NAMES[key], fen, [], depth)
                    checked_ff += 1
                    if got != count:
                        problems.append(f"{line}: pyffish {got}")
                print(line, "checked" if count <= args.max_nodes else "skipped",
                      flush=True)
    print(f"python-chess checked {checked_pc} counts, pyffish {checked_ff}")
    for p in problems:
        print("PROBLEM", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
