#!/usr/bin/env python3
"""Check the hand-built repetition cycles of tests/rules/xiangqi_chase.rs (the
`Clause` tables) against pyffish, the Fairy-Stockfish Python binding.

Each clause (`Clause::draw`, `Clause::check` or `Clause::chase`) gives a
name, a FEN, a cycle of any even length (ICCS) and, unless it is a draw, the
winner.  The cycle is played twice, every move checked against pyffish's
legal moves, and the last position judged with `is_optional_game_end`
(history passed in one call).  The script prints one line per clause, with
the plies that give check, and exits non-zero if a move is illegal or
pyffish's winner differs from the test's.  A clause in a `Differs` block
(where the exact judge and Fairy-Stockfish's approximation disagree, with
the rule that decides it) expects the winner given as `pyffish:` there, and
so does a clause in a `Diagram` (an AXF example diagram, whose published
verdict is the clause's winner and pyffish's its `pyffish:` field); the line
then shows the test's winner too.

Run from anywhere (generated with pyffish 0.0.90):

    python3 tools/check_xiangqi_clauses.py
"""

import os
import re
import sys

import pyffish as sf

V = "xiangqi"
TESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                     "tests", "xiangqi_chase.rs")
CLAUSE = re.compile(
    r'Clause::(?P<kind>draw|check|chase)\(\s*"(?P<name>[^"]+)",'
    r'\s*"(?P<fen>[^"]+)",\s*&\[(?P<cycle>[^\]]+)\]'
    r'(?:,\s*Side::(?P<winner>\w+))?')


def fsf(m):
    """ICCS (ranks 0-9) to Fairy-Stockfish coordinates (ranks 1-10)."""
    return f"{m[0]}{int(m[1]) + 1}{m[2]}{int(m[3]) + 1}"


def winner(fen, moves):
    """pyffish's winner after `moves` ("White" = Red, "Black" or None), or
    an error text."""
    for i, m in enumerate(moves):
        if m not in sf.legal_moves(V, fen, moves[:i]):
            return f"illegal move {m} at ply {i}"
    ended, value = sf.is_optional_game_end(V, fen, moves)
    if not ended:
        return "no game end"
    to_move = "White" if sf.get_fen(V, fen, moves).split()[1] == "w" else "Black"
    other = "Black" if to_move == "White" else "White"
    return {0: None, 32000: to_move, -32000: other}.get(value, f"value {value}")


def checks(fen, cycle):
    """The cycle's plies that give check, as a string of + and ."""
    return "".join("+" if sf.gives_check(V, fen, cycle[:i + 1]) else "."
                   for i in range(len(cycle)))


def main():
    with open(TESTS, encoding="utf-8") as fh:
        text = fh.read()
    clauses = list(CLAUSE.finditer(text))
    wrong = 0
    for i, c in enumerate(clauses):
        cycle = [fsf(m) for m in re.findall(r'"(\w+)"', c["cycle"])]
        expected = test = c["winner"]
        # The text up to the next clause: a `Differs` or `Diagram` block's
        # pyffish winner.
        nxt = clauses[i + 1].start() if i + 1 < len(clauses) else len(text)
        differs = re.search(r"pyffish: (?:None|Some\(Side::(\w+)\))",
                            text[c.end():nxt])
        if differs:
            expected = differs.group(1)
        got = winner(c["fen"], cycle * 2)
        ok = got == expected
        wrong += not ok
        shown = f"test {test}, pyffish expected {expected}" if differs \
            else f"test {expected}"
        print(f"{'ok ' if ok else 'BAD'} {c['name']}: {shown}, "
              f"pyffish {got}, checks {checks(c['fen'], cycle)}")
    print(f"{len(clauses)} clauses, {wrong} differ", file=sys.stderr)
    return 1 if wrong or not clauses else 0


if __name__ == "__main__":
    sys.exit(main())
