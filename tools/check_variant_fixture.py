#!/usr/bin/env python3
"""Check tests/fixtures/variants/<key>.jsonl (python-chess) against
Fairy-Stockfish (pyffish), an independent implementation.

Per position, replayed from each game's start with pyffish:
  * piece placement, pockets and side to move of `fen`;
  * the legal moves (UCI), where the game is not over by a variant rule
    (Fairy-Stockfish's move list does not stop at a variant end);
  * SAN of every legal move, without the `+`/`#` suffix (python-chess
    writes `#` for every move that ends the game by a variant rule);
  * `check`;
  * the outcome: a variant end against `is_immediate_game_end`, checkmate
    and stalemate against `game_result`;
  * insufficient material (reported, not counted as a disagreement:
    Fairy-Stockfish judges it by its own, more generic rules).

    python3 tools/check_variant_fixture.py

Requires pyffish (0.0.90). Prints every disagreement and a summary.
"""

import collections
import json
import os
import sys

import pyffish

from check_variant_perft import FFISH_NAMES
from gen_variant_fixture import OUT_DIR

MATE = pyffish.VALUE_MATE


def placement(fen):
    """(board without `~` and pockets, sorted pocket letters, side to move)."""
    board, side = fen.split()[:2]
    pocket = ""
    if board.endswith("]"):
        board, pocket = board[:-1].split("[")
    return board.replace("~", ""), "".join(sorted(pocket)), side


def strip_suffix(san):
    """SAN without `+`/`#`; a pawn drop as python-chess writes it (`@e4`,
    where Fairy-Stockfish writes `P@e4`)."""
    san = san.rstrip("+#")
    return san[1:] if san.startswith("P@") else san


def suffix(san):
    return san[-1] if san[-1] in "+#" else "none"


def expected_result(outcome, side):
    """pyffish's result for the side to move (MATE win, -MATE loss, 0 draw)."""
    if outcome["winner"] is None:
        return 0
    return MATE if outcome["winner"] == side else -MATE


def check_game(key, game, report, stats):
    variant = FFISH_NAMES[key]
    start = game["start"]
    for ply, pos in enumerate(game["positions"]):
        moves = game["moves"][:ply]
        where = f"{key} {game['id']} ply {ply} ({pos['fen']})"
        side = "white" if pos["fen"].split()[1] == "w" else "black"
        stats["positions"] += 1

        ff_fen = pyffish.get_fen(variant, start, moves)
        if placement(ff_fen) != placement(pos["fen"]):
            report.append(f"{where}: fen: Fairy-Stockfish {ff_fen}")

        ended, result = pyffish.is_immediate_game_end(variant, start, moves)
        legal = sorted(pyffish.legal_moves(variant, start, moves))
        outcome = pos["outcome"]
        variant_end = outcome is not None and outcome["termination"] not in (
            "checkmate", "stalemate", "insufficient_material",
            "seventyfive_moves", "fivefold_repetition")
        if key == "antichess" and outcome and outcome["termination"] == "stalemate":
            variant_end = False  # no legal move: pyffish's game_result

        if variant_end:
            stats["variant_ends"] += 1
            if not ended or result != expected_result(outcome, side):
                report.append(f"{where}: variant end {outcome}: Fairy-Stockfish "
                              f"immediate end {ended} result {result}")
            if legal:
                stats["fsf_moves_after_variant_end"] += 1
            continue
        if ended:
            report.append(f"{where}: Fairy-Stockfish ends the game here "
                          f"(result {result}); python-chess {outcome}")
            continue

        if legal != pos["uci"]:
            only_ff = sorted(set(legal) - set(pos["uci"]))
            only_pc = sorted(set(pos["uci"]) - set(legal))
            report.append(f"{where}: legal moves: only Fairy-Stockfish {only_ff}, "
                          f"only python-chess {only_pc}")
        else:
            stats["move_lists_equal"] += 1
            pc_san = {}
            for s in pos["san"]:
                pc_san[strip_suffix(s)] = s
            ff_san = [pyffish.get_san(variant, ff_fen, m) for m in legal]
            if sorted(map(strip_suffix, ff_san)) != sorted(pc_san):
                report.append(f"{where}: SAN: Fairy-Stockfish {sorted(ff_san)}, "
                              f"python-chess {sorted(pos['san'])}")
            for s in ff_san:
                theirs = pc_san.get(strip_suffix(s))
                if theirs is not None and suffix(theirs) != suffix(s):
                    stats[f"san suffix python-chess {suffix(theirs)!r} vs "
                          f"Fairy-Stockfish {suffix(s)!r}"] += 1

        if key != "antichess":
            ff_check = pyffish.gives_check(variant, start, moves)
            if ff_check != pos["check"]:
                report.append(f"{where}: check: Fairy-Stockfish {ff_check}")

        if outcome and outcome["termination"] in ("checkmate", "stalemate"):
            stats["mates_stalemates"] += 1
            result = pyffish.game_result(variant, start, moves)
            if legal or result != expected_result(outcome, side):
                report.append(f"{where}: {outcome}: Fairy-Stockfish moves {len(legal)} "
                              f"result {result}")

        ins = pyffish.has_insufficient_material(variant, start, moves)
        if list(ins) != [pos["insufficient"]["white"], pos["insufficient"]["black"]]:
            stats["insufficient material differs (not counted)"] += 1
            if stats["insufficient material differs (not counted)"] <= 3:
                print(f"note: {where}: insufficient: Fairy-Stockfish {ins}, "
                      f"python-chess {pos['insufficient']}")


def main():
    total = 0
    for key in FFISH_NAMES:
        report = []
        stats = collections.Counter()
        with open(os.path.join(OUT_DIR, f"{key}.jsonl")) as f:
            for line in f:
                check_game(key, json.loads(line), report, stats)
        print(f"{key}: {len(report)} disagreements; {dict(sorted(stats.items()))}")
        for r in report[:40]:
            print("  ", r)
        total += len(report)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
