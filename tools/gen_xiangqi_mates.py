#!/usr/bin/env python3
"""Xiangqi wins in 3 for the engine tests, verified with Fairy-Stockfish.

Candidates: positions 5 plies before the end of CCPD games (from
../shared/reference/xiangqi) that end with the loser having no legal move.
A candidate is kept when Fairy-Stockfish (Debian `fairy-stockfish`, searched
to a fixed depth) scores it as a win in exactly 3 moves for the side to move;
its solutions are every legal first move (pyffish's list) after which
Fairy-Stockfish scores the opponent as losing in exactly 2. Moves are written
in ICCS (ranks 0-9), FENs as pyffish reads them.

    python3 tools/gen_xiangqi_mates.py > tests/fixtures/xiangqi/win_in_3_fsf.jsonl
"""
import json
import re
import subprocess
import sys
from pathlib import Path

import pyffish

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "xiangqi"
DEPTH = 12


class Engine:
    def __init__(self):
        self.p = subprocess.Popen(["/usr/games/fairy-stockfish"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("uci")
        self.send("setoption name UCI_Variant value xiangqi")
        self.send("setoption name Threads value 1")
        self.send("isready")
        self.wait("readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait(self, prefix):
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("fairy-stockfish exited")
            if line.startswith(prefix):
                return line

    def mate_in(self, fen, moves=()):
        """FSF's mate score (moves; negative when the side to move loses) or None."""
        self.send("ucinewgame")
        self.send("position fen " + fen + (" moves " + " ".join(moves) if moves else ""))
        self.send(f"go depth {DEPTH}")
        score = None
        while True:
            line = self.p.stdout.readline()
            if line.startswith("bestmove"):
                return score
            words = line.split()
            if "score" in words:
                i = words.index("score")
                score = int(words[i + 2]) if words[i + 1] == "mate" else None


def iccs(move):
    """FSF coordinates (ranks 1-10) to ICCS (ranks 0-9)."""
    m = re.fullmatch(r"([a-i])(\d+)([a-i])(\d+)", move)
    return f"{m[1]}{int(m[2]) - 1}{m[3]}{int(m[4]) - 1}"


def candidates():
    for name in ["ccpd_checkmate_games.jsonl", "ccpd_endgames.jsonl"]:
        for line in open(REFERENCE / name, encoding="utf-8"):
            game = json.loads(line)
            moves = game.get("moves_uci") or game.get("continuation_uci") or []
            if len(moves) < 5:
                continue
            if pyffish.legal_moves("xiangqi", game["fen"], moves):
                continue  # the game did not end with no legal move
            fen = pyffish.get_fen("xiangqi", game["fen"], moves[:-5])
            yield fen, game["source"]


def main():
    engine = Engine()
    seen = set()
    for fen, source in candidates():
        if fen in seen:
            continue
        seen.add(fen)
        if engine.mate_in(fen) != 3:
            continue
        solutions = [m for m in pyffish.legal_moves("xiangqi", fen, [])
                     if engine.mate_in(fen, [m]) == -2]
        if not solutions:
            continue
        print(json.dumps({"fen": fen, "win_in": 3,
                          "solutions_iccs": sorted(iccs(m) for m in solutions),
                          "source": source}, ensure_ascii=False))
        sys.stdout.flush()
    engine.send("quit")


if __name__ == "__main__":
    main()
