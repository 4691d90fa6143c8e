#!/usr/bin/env python3
"""Generate the xiangqi rules fixtures in tests/fixtures/xiangqi/ from pyffish
(Fairy-Stockfish's Python binding) and the Debian fairy-stockfish binary.

What it writes (all paths relative to the repository root):

  tests/fixtures/xiangqi/games.jsonl
      One JSON object per line = one game played from a start FEN:
        {"id", "start", "moves": [ICCS...], "positions": [...]}
      positions[0] is the start position, positions[i] the position after
      moves[:i].  Every position records the pyffish FEN, the sorted legal
      moves in ICCS, check, the no-legal-move result, is_optional_game_end,
      per-side insufficient material and (every 4th position) the WXF name
      of every legal move.  See tests/fixtures/xiangqi/README.md.
      Game families (ids):
        random-N       uniform random moves from the start position
        biased-N       captures / checks / mates / stalemates preferred
        endgame-N      CCPD endgame positions continued with random or
                       biased play
        ccpd-end-N     played continuations of CCPD endgame positions
        ccpd-mate-N    complete CCPD checkmate-folder games ending in mate
        ccpd-win1-N    CCPD win-in-1 positions plus the winning move
        tricky-*       hand-made positions (flying-general pins, cannon
                       screens, horse legs, elephant eyes, soldiers across
                       the river, palace edges) then biased play
        repetition-N   pieces moved back and forth (threefold repetition,
                       perpetual check, chases)
        perpetual-N    one side checks back and forth
        fsf-rep-N      the 33 repetition/perpetual/chase adjudication cases
                       of Fairy-Stockfish test.py (fen + moves)
        fsf-insuf-N    the 7 insufficient-material cases of FSF test.py,
                       continued randomly for a few plies
        clock-*        high half-move clock: the 50-move (100-ply) rule,
                       mate on the 100th ply, and FSF's AXF check offset
  tests/fixtures/xiangqi/perft.txt
      Lines "FEN;d1;d2;..." with perft node counts from Debian
      fairy-stockfish (`go perft N`), depth 1-2 cross-checked against
      pyffish legal_moves.

Coordinates: everything written is ICCS (files a-i from Red's left, ranks
0-9 from Red's side).  pyffish / FSF use ranks 1-10; FENs are unchanged.

How to rerun (deterministic: every game uses its own random.Random seeded
with a fixed string; no hash randomisation, no wall clock):

    python3 tools/gen_xiangqi_fixture.py            # games + perft
    python3 tools/gen_xiangqi_fixture.py --no-perft # games only

Requires pyffish (generated with 0.0.90), the standard library, and for
perft.txt /usr/games/fairy-stockfish (Debian 11.1).  Inputs (read-only):
/work/shared/reference/xiangqi/{ccpd_endgames.jsonl, ccpd_checkmate_games.jsonl,
win_in_n_ccpd_verified.jsonl, repetition_rules_fsf.json,
insufficient_material_fsf.json} (CCPD data: CC BY 4.0, Yu-Han Tseng;
FSF test cases: Fairy-Stockfish test.py, GPL-3.0).
Runtime: a few minutes (pyffish ~1.5 ms per call here) plus ~1 minute of
perft.
"""

import collections
import json
import os
import random
import re
import subprocess
import sys

import pyffish as sf

V = "xiangqi"
SEED = "arbiter-xiangqi-fixture-v1"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "tests", "fixtures", "xiangqi")
REF = "/work/shared/reference/xiangqi"
FSF_BIN = "/usr/games/fairy-stockfish"
WXF = sf.NOTATION_XIANGQI_WXF
START = sf.start_fen(V)

PERFT_LIMIT = 3_000_000      # include depths while the count stays <= this
PERFT_DEEP_LIMIT = 140_000_000  # for the few positions marked deep

MOVE_RE = re.compile(r"^([a-i])(10|[1-9])([a-i])(10|[1-9])$")
ICCS_RE = re.compile(r"^([a-i])([0-9])([a-i])([0-9])$")


def rng_for(name):
    return random.Random(f"{SEED}/{name}")


# ---------------------------------------------------------------------------
# coordinates
# ---------------------------------------------------------------------------

def to_iccs(m):
    """FSF/pyffish move (ranks 1-10) -> ICCS (ranks 0-9)."""
    g = MOVE_RE.match(m)
    assert g, m
    return f"{g[1]}{int(g[2]) - 1}{g[3]}{int(g[4]) - 1}"


def to_fsf(m):
    g = ICCS_RE.match(m)
    assert g, m
    return f"{g[1]}{int(g[2]) + 1}{g[3]}{int(g[4]) + 1}"


def squares(m):
    """FSF move -> ((file, rank), (file, rank)), file 0-8, rank 1-10."""
    g = MOVE_RE.match(m)
    assert g, m
    return (ord(g[1]) - 97, int(g[2])), (ord(g[3]) - 97, int(g[4]))


# ---------------------------------------------------------------------------
# local board helpers (only used to steer move choice and validate starts;
# every recorded fact comes from pyffish)
# ---------------------------------------------------------------------------

def parse_board(fen):
    board = {}
    rows = fen.split()[0].split("/")
    assert len(rows) == 10, fen
    for i, row in enumerate(rows):
        rank = 10 - i
        f = 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            else:
                board[(f, rank)] = ch
                f += 1
        assert f == 9, fen
    return board


def placement(board):
    rows = []
    for rank in range(10, 0, -1):
        s, empty = "", 0
        for f in range(9):
            ch = board.get((f, rank))
            if ch is None:
                empty += 1
            else:
                if empty:
                    s += str(empty)
                    empty = 0
                s += ch
        if empty:
            s += str(empty)
        rows.append(s)
    return "/".join(rows)


def key_of(fen):
    p = fen.split()
    return p[0] + " " + p[1]


def key_after(board, stm, m):
    a, b = squares(m)
    nb = dict(board)
    nb[b] = nb.pop(a)
    return placement(nb) + " " + ("b" if stm == "w" else "w")


VALUE = {"r": 9, "c": 4.5, "n": 4, "b": 2, "a": 2, "p": 1, "k": 0}

RED_PALACE = {(f, r) for f in (3, 4, 5) for r in (1, 2, 3)}
BLACK_PALACE = {(f, r) for f in (3, 4, 5) for r in (8, 9, 10)}
RED_ADVISOR = {(3, 1), (5, 1), (4, 2), (3, 3), (5, 3)}
BLACK_ADVISOR = {(f, 11 - r) for f, r in RED_ADVISOR}
RED_ELEPHANT = {(2, 1), (6, 1), (0, 3), (4, 3), (8, 3), (2, 5), (6, 5)}
BLACK_ELEPHANT = {(f, 11 - r) for f, r in RED_ELEPHANT}


def pawn_ok(sq, red):
    f, r = sq
    if not red:
        r = 11 - r
    if r <= 3:
        return False
    if r <= 5:
        return f in (0, 2, 4, 6, 8)
    return True


def validate_start(fen):
    """Return the pyffish-normalised FEN or raise ValueError."""
    if sf.validate_fen(fen, V) != sf.FEN_OK:
        raise ValueError(f"validate_fen rejects {fen!r}")
    norm = sf.get_fen(V, fen, [])
    sf.legal_moves(V, norm, [])  # must not raise
    board = parse_board(norm)
    kings = {c: [s for s, p in board.items() if p == c] for c in "Kk"}
    if len(kings["K"]) != 1 or len(kings["k"]) != 1:
        raise ValueError(f"need one general each: {fen}")
    if kings["K"][0] not in RED_PALACE or kings["k"][0] not in BLACK_PALACE:
        raise ValueError(f"general outside palace: {fen}")
    for s, p in board.items():
        if p == "A" and s not in RED_ADVISOR or p == "a" and s not in BLACK_ADVISOR:
            raise ValueError(f"advisor off its points: {fen}")
        if p == "B" and s not in RED_ELEPHANT or p == "b" and s not in BLACK_ELEPHANT:
            raise ValueError(f"elephant off its points: {fen}")
        if p in "Pp" and not pawn_ok(s, p == "P"):
            raise ValueError(f"soldier on an impossible square: {fen}")
    (kf, kr), (bf, br) = kings["K"][0], kings["k"][0]
    if kf == bf and not any((kf, r) in board for r in range(kr + 1, br)):
        raise ValueError(f"generals face each other: {fen}")
    parts = norm.split()
    parts[1] = "b" if parts[1] == "w" else "w"
    if sf.gives_check(V, " ".join(parts), []):
        raise ValueError(f"side not to move is in check: {fen}")
    return norm


# ---------------------------------------------------------------------------
# game recording
# ---------------------------------------------------------------------------

STATS = collections.Counter()
SKIPPED = []


class Ctx:
    def __init__(self, start, moves, fen, legal, check, keys, rng):
        self.start, self.moves, self.fen, self.legal = start, moves, fen, legal
        self.check, self.keys, self.rng = check, keys, rng
        self.stm = fen.split()[1]
        self._board = None

    @property
    def board(self):
        if self._board is None:
            self._board = parse_board(self.fen)
        return self._board

    def capture(self, m):
        return squares(m)[1] in self.board

    def gives_check(self, m):
        return sf.gives_check(V, self.fen, [m])

    def replies(self, m):
        return sf.legal_moves(V, self.fen, [m])

    def key_after(self, m):
        return key_after(self.board, self.stm, m)


def play(gid, start, chooser=None, cap=150, forced=None, after_end=0):
    """Play and record one game.

    chooser(ctx) -> FSF move or None (stop).  forced: FSF moves to play
    first (the game stops when they run out if chooser is None).  The game
    stops when there is no legal move, at `cap` plies, or `after_end` plies
    after is_optional_game_end first returned True (forced moves are always
    played).
    """
    start = validate_start(start)
    rng = rng_for(gid)
    moves, positions, keys = [], [], []
    first_end = None
    while True:
        i = len(moves)
        fen = sf.get_fen(V, start, moves)
        legal = sorted(sf.legal_moves(V, start, moves))
        check = sf.gives_check(V, start, moves)
        end, value = sf.is_optional_game_end(V, start, moves)
        if not end:
            value = 0  # pyffish leaves the value uninitialised when False
        red_ins, black_ins = sf.has_insufficient_material(V, fen, [])
        pos = {
            "fen": fen,
            "moves": sorted(to_iccs(m) for m in legal),
            "check": check,
            "no_moves_result": None if legal else sf.game_result(V, start, moves),
            "optional_end": [end, value],
            "insufficient": [red_ins, black_ins],
        }
        if i % 4 == 0:
            pos["wxf"] = {to_iccs(m): sf.get_san(V, fen, m, False, WXF)
                          for m in legal}
        positions.append(pos)
        keys.append(key_of(fen))
        if not legal:
            break
        if forced is not None and i < len(forced):
            m = forced[i]
            if m not in legal:
                raise ValueError(f"{gid}: forced move {m} illegal at ply {i}")
        else:
            if chooser is None or i >= cap:
                break
            if end:
                if first_end is None:
                    first_end = i
                if i - first_end >= after_end:
                    break
            m = chooser(Ctx(start, moves, fen, legal, check, keys, rng))
            if m is None:
                break
            assert m in legal, (gid, m)
        if end and first_end is None:
            first_end = i
        moves.append(m)
    return {"id": gid, "start": start, "moves": [to_iccs(m) for m in moves],
            "positions": positions}


# ---------------------------------------------------------------------------
# move choosers
# ---------------------------------------------------------------------------

def uniform(ctx):
    return ctx.rng.choice(ctx.legal)


def biased(ctx, mate_prob=0.95, stalemate_scan=14):
    """Prefer mates, stalemates (a loss in xiangqi), captures and checks."""
    rng = ctx.rng
    few = len(ctx.board) <= stalemate_scan
    weights = []
    for m in ctx.legal:
        w = 1.0
        victim = ctx.board.get(squares(m)[1])
        if victim:
            w += 3 + 2 * VALUE[victim.lower()]
        chk = ctx.gives_check(m)
        if chk:
            w += 5
        if chk or few:
            if not ctx.replies(m) and rng.random() < mate_prob:
                return m
        weights.append(w)
    return rng.choices(ctx.legal, weights)[0]


def mixed(p_biased):
    def choose(ctx):
        if ctx.rng.random() < p_biased:
            return biased(ctx)
        return uniform(ctx)
    return choose


def prefix_then(n, first, then):
    def choose(ctx):
        return (first if len(ctx.moves) < n else then)(ctx)
    return choose


def repetition(p_rev=0.85, p_seen=0.7, checker=None):
    """Move pieces back and forth.

    The side to move replays the reverse of its previous move with
    probability p_rev, else goes to an already seen position with
    probability p_seen, else plays a random quiet move.  If `checker` is
    "w" or "b", that side prefers checking moves (perpetual check).
    """
    def choose(ctx):
        rng, legal = ctx.rng, ctx.legal
        seen = set(ctx.keys)
        if checker == ctx.stm:
            checks = [m for m in legal if ctx.gives_check(m) and ctx.replies(m)]
            if checks:
                rep = [m for m in checks if ctx.key_after(m) in seen]
                if rep and rng.random() < 0.9:
                    return rng.choice(rep)
                safe = [m for m in checks if not any(
                    squares(r)[1] == squares(m)[1] for r in ctx.replies(m))]
                return rng.choice(safe or checks)
        if len(ctx.moves) >= 2:
            a, b = squares(ctx.moves[-2])
            rev = [m for m in legal if squares(m) == (b, a)]
            if rev and rng.random() < p_rev:
                return rev[0]
        if rng.random() < p_seen:
            rep = [m for m in legal if ctx.key_after(m) in seen]
            if rep:
                return rng.choice(rep)
        quiet = [m for m in legal if not ctx.capture(m)]
        movers = [m for m in quiet if ctx.board[squares(m)[0]].lower() in "rnck"]
        return rng.choice(movers or quiet or legal)
    return choose


def quiet_chooser(ctx):
    """Avoid captures (keeps the half-move clock running)."""
    quiet = [m for m in ctx.legal if not ctx.capture(m)]
    fresh = [m for m in quiet if ctx.key_after(m) not in set(ctx.keys)]
    return ctx.rng.choice(fresh or quiet or ctx.legal)


def axf_checker(ctx):
    """Red gives as many (safe, non-mating) checks as possible, nobody
    captures, no position occurs a third time; used to exercise FSF's
    extension of the 100-ply rule by the number of checks."""
    counts = collections.Counter(ctx.keys)
    cands = []
    for m in ctx.legal:
        if ctx.capture(m) or counts[ctx.key_after(m)] >= 2:
            continue
        chk = False
        if ctx.stm == "w":
            chk = ctx.gives_check(m)
            if chk:
                rep = ctx.replies(m)
                if not rep:
                    continue
                after = parse_board(sf.get_fen(V, ctx.fen, [m]))
                if any(squares(r)[1] in after for r in rep):
                    continue
        cands.append((chk, m))
    if ctx.stm == "w" and any(c for c, _ in cands):
        cands = [x for x in cands if x[0]]
    if not cands:
        return None
    return ctx.rng.choice(sorted(cands))[1]


# ---------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------

def load_jsonl(name):
    with open(os.path.join(REF, name), encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def load_json(name):
    with open(os.path.join(REF, name), encoding="utf-8") as fh:
        return json.load(fh)


def clean_fen(fen):
    return fen.replace("[]", "")


# Hand-made positions.  Each: (name, FEN, scripted FSF moves or None, cap).
TRICKY = [
    # flying general: the only piece between the generals is pinned
    ("fg-horse-pin", "r3k4/9/9/9/9/4N4/9/9/9/4K4 w - - 0 1", None, 30),
    ("fg-advisor-pin", "4k4/4a4/9/9/9/9/9/2R6/9/4K4 b - - 0 1", None, 30),
    ("fg-cannon-pin", "2b1k4/9/9/9/4C4/9/2r6/9/9/4K4 w - - 0 1", None, 30),
    ("fg-chariot-check-block", "4k4/9/1c7/9/9/9/9/4R4/9/4K4 b - - 0 1", None, 30),
    ("fg-king-steps", "3k5/9/9/9/9/9/9/9/4A4/4K4 w - - 0 1", None, 20),
    ("fg-pawn-pin", "3k5/9/9/9/9/3p5/9/9/9/3K5 w - - 0 1", None, 20),
    # cannon screens
    ("cannon-two-screens", "3ak4/4a4/4b4/9/4C4/9/4P4/9/9/3K5 w - - 0 1", None, 30),
    ("cannon-check-block", "3ak4/9/9/4P4/9/4C4/9/9/9/3K5 b - - 0 1", None, 30),
    ("cannon-general-screen", "2c1k4/9/4c4/9/9/9/9/9/4A4/3AK4 w - - 0 1", None, 30),
    ("cannon-battery", "3ak1b2/4a4/4b4/9/4C4/9/9/4C4/4A4/3AK4 w - - 0 1", None, 30),
    ("cannon-opening", START, ["h3e3", "h8e8", "e3e7", "e8e4"], 20),
    # horse legs
    ("horse-leg-discovery", "3k5/9/9/9/9/9/9/9/5Rn2/4K4 w - - 0 1", None, 30),
    ("horse-legs-blocked", "3k5/9/9/9/4p4/3pNp3/4p4/9/9/4K4 w - - 0 1", None, 30),
    ("horse-check-leg", "4k4/4a4/3N5/9/9/9/9/9/9/3K5 b - - 0 1", None, 30),
    # elephant eyes and the river
    ("elephant-eyes", "3k5/9/4b4/5P3/6b2/9/5N3/4B4/3N5/2B1K4 w - - 0 1", None, 30),
    ("elephant-river", "2bk2b2/9/9/9/9/2B3B2/9/9/9/4K4 w - - 0 1", None, 30),
    # soldiers across the river, on the last rank
    ("soldiers", "3k3P1/2P3P2/9/4P4/9/p8/9/5K3/4p4/5p3 w - - 0 1", None, 30),
    ("soldiers-mate", "3k5/4P4/3P5/9/9/9/9/9/9/4K4 w - - 0 1", None, 20),
    # palace / general / advisor edge cases, discovered and double checks
    ("double-check", "3ak4/4a4/4b4/9/4R4/9/9/4C4/9/3AK4 w - - 0 1", None, 30),
    ("smothered", "3akab2/4n4/4b4/6N2/9/9/9/9/9/3K5 w - - 0 1", None, 30),
    ("stalemate-net", "4k4/R8/9/9/9/5R3/9/9/9/3K5 w - - 0 1", None, 20),
    ("stalemate-now", "4k4/R8/9/9/9/5R3/9/9/9/3K5 b - - 0 1", None, 5),
    # WXF tandem forms (pawns: index + file, no letter; other pieces + / -)
    ("tandem-pawns-red", "3k5/9/9/2P1P4/2P1P4/2P6/9/9/9/4K4 w - - 0 1", None, 12),
    ("tandem-pawns-black", "4k4/9/9/9/2p1p4/2p1p4/2p6/9/9/3K5 b - - 0 1", None, 12),
    ("tandem-pieces", "3k5/2n6/2n6/9/9/2N6/9/2N1R4/4R4/4K4 w - - 0 1", None, 12),
]

CLOCK_BASE = "4k4/R8/9/9/9/1R7/9/9/9/3K5 w - - 99 70"


# ---------------------------------------------------------------------------
# game list
# ---------------------------------------------------------------------------

def build_games():
    games = []

    def add(g):
        games.append(g)
        STATS["plies"] += len(g["moves"])
        print(f"  {g['id']}: {len(g['positions'])} positions", file=sys.stderr)

    for n in range(1, 9):
        add(play(f"random-{n}", START, uniform, cap=150))
    for n in range(1, 15):
        add(play(f"biased-{n}", START, biased, cap=200))

    ends = load_jsonl("ccpd_endgames.jsonl")
    step = len(ends) / 40
    picked = [ends[int(k * step)] for k in range(40)]
    for n, e in enumerate(picked, 1):
        chooser = mixed(0.0 if n % 3 == 0 else 0.6)
        add(play(f"endgame-{n}", e["fen"], chooser, cap=36))
    played = [e for e in ends if e["final_no_legal_moves"]][:4]
    played += [e for e in ends if e["result"] not in ("1-0", "0-1")][:2]
    for n, e in enumerate(played, 1):
        add(play(f"ccpd-end-{n}", e["fen"], forced=e["moves_uci"]))
    mates = [g for g in load_jsonl("ccpd_checkmate_games.jsonl")
             if g["final_no_legal_moves"] and len(g["moves_uci"]) <= 40][:4]
    for n, g in enumerate(mates, 1):
        add(play(f"ccpd-mate-{n}", g["fen"], forced=g["moves_uci"]))
    wins = [w for w in load_jsonl("win_in_n_ccpd_verified.jsonl") if w["win_in"] == 1][:6]
    for n, w in enumerate(wins, 1):
        add(play(f"ccpd-win1-{n}", w["fen"], forced=w["game_line_uci"]))

    for name, fen, script, cap in TRICKY:
        add(play(f"tricky-{name}", fen, mixed(0.5), cap=cap, forced=script))

    # repetition: back-and-forth play from the start, after random prefixes,
    # and in CCPD endgames
    for n in range(1, 7):
        prefix = [0, 0, 6, 12, 20, 30][n - 1]
        add(play(f"repetition-{n}", START,
                 prefix_then(prefix, uniform, repetition()), cap=120, after_end=4))
    rep_ends = [e for e in ends if "r" in e["fen"].split()[0].lower()]
    for n in range(7, 13):
        e = rep_ends[(n - 7) * 17]
        add(play(f"repetition-{n}", e["fen"], repetition(p_rev=0.7), cap=60,
                 after_end=2))
    # perpetual check: the side to move (or the other side) checks back and forth
    chk_ends = [e for e in ends if "R" in e["fen"].split()[0] or "r" in e["fen"].split()[0]]
    for n in range(1, 11):
        e = chk_ends[(n * 23) % len(chk_ends)]
        stm = e["fen"].split()[1]
        checker = stm if n % 4 else ("b" if stm == "w" else "w")
        add(play(f"perpetual-{n}", e["fen"], repetition(checker=checker),
                 cap=60, after_end=2 if n % 2 else 0))
    add(play("perpetual-11", "4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1",
             repetition(checker="w"), cap=40, after_end=4))
    add(play("perpetual-12", "3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1",
             repetition(checker="w"), cap=40, after_end=4))
    # mutual checking
    add(play("perpetual-13", "9/4c4/3k5/3r5/9/9/4C4/9/4K4/3R5 w - - 0 1",
             repetition(checker="w"), cap=40))

    expect = {"MATE": 32000, "-MATE": -32000, "DRAW": 0, None: None}
    for n, c in enumerate(load_json("repetition_rules_fsf.json")["cases"], 1):
        g = play(f"fsf-rep-{n}", clean_fen(c["fen"]), forced=c["moves"])
        end, value = g["positions"][-1]["optional_end"]
        want = expect[c["expected_value_side_to_move"]]
        if end != c["expected_end"] or (want is not None and value != want):
            SKIPPED.append(f"fsf-rep-{n}: got {[end, value]}, FSF test.py expects "
                           f"{[c['expected_end'], c['expected_value_side_to_move']]}")
        add(g)
    for n, c in enumerate(load_json("insufficient_material_fsf.json")["cases"], 1):
        try:
            add(play(f"fsf-insuf-{n}", c["fen"], uniform, cap=6))
        except ValueError as e:  # FSF's K vs K case has the generals facing
            SKIPPED.append(f"fsf-insuf-{n}: {e}")
            print(f"  skipped fsf-insuf-{n}: {e}", file=sys.stderr)

    # clock: 100-ply rule
    add(play("clock-draw-100", CLOCK_BASE, quiet_chooser, forced=["b5b6"],
             cap=8, after_end=3))
    add(play("clock-mate-100", CLOCK_BASE, forced=["b5b10"]))
    for n in range(1, 5):
        e = ends[n * 31]
        parts = clean_fen(e["fen"]).split()
        parts[4] = str(84 + 3 * n)
        parts[5] = str(max(int(parts[5]), 60))
        add(play(f"clock-quiet-{n}", " ".join(parts), quiet_chooser, cap=40,
                 after_end=3))
    # FSF (AXF) extension: limit + 2 plies per check beyond 10 by one side
    for attempt in range(1, 40):
        g = play(f"clock-checks-{attempt}", "4k4/9/9/9/9/9/9/9/9/R2K5 w - - 70 60",
                 axf_checker, cap=160, after_end=1)
        last = g["positions"][-1]
        hm = int(last["fen"].split()[4])
        if last["optional_end"][0] and hm > 101 and last["optional_end"][1] == 0:
            add(g)
            break
    else:
        print("  (no clock-checks game reached the extended limit)", file=sys.stderr)
    return games


# ---------------------------------------------------------------------------
# perft
# ---------------------------------------------------------------------------

class Engine:
    def __init__(self):
        self.p = subprocess.Popen([FSF_BIN], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("uci")
        self.wait("uciok")
        self.send("setoption name UCI_Variant value xiangqi")
        self.send("isready")
        self.wait("readyok")
        self.version = self.id_name

    def send(self, s):
        self.p.stdin.write(s + "\n")
        self.p.stdin.flush()

    def wait(self, token):
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("fairy-stockfish exited")
            if line.startswith("id name"):
                self.id_name = line[8:].strip()
            if line.startswith(token):
                return line

    def perft(self, fen, depth):
        self.send(f"position fen {fen}")
        self.send(f"go perft {depth}")
        line = self.wait("Nodes searched")
        return int(line.split(":")[1])

    def close(self):
        self.send("quit")
        self.p.wait()


def pyffish_perft12(fen):
    legal = sf.legal_moves(V, fen, [])
    return len(legal), sum(len(sf.legal_moves(V, fen, [m])) for m in legal)


def build_perft(games):
    by_id = {g["id"]: g for g in games}
    entries = [(START, True, "start")]

    def pos_at(gid, ply):
        ps = by_id[gid]["positions"]
        p = ps[min(ply, len(ps) - 1)]
        return p["fen"] if p["moves"] else ps[-2]["fen"]

    for gid, ply in [("random-1", 20), ("random-2", 40), ("random-3", 60),
                     ("random-4", 30), ("random-5", 80), ("biased-1", 20),
                     ("biased-2", 30), ("biased-3", 16), ("biased-4", 40),
                     ("repetition-4", 12)]:
        entries.append((pos_at(gid, ply), gid == "random-1", f"{gid}@{ply}"))
    ends = load_jsonl("ccpd_endgames.jsonl")
    for k in range(10):
        entries.append((validate_start(ends[k * 24]["fen"]), False, f"ccpd-end[{k*24}]"))
    for name, fen, script, _ in TRICKY:
        if script is None and name not in ("stalemate-now",):
            entries.append((validate_start(fen), False, f"tricky-{name}"))
    # in-check positions from the games
    incheck = [p["fen"] for g in games if g["id"].startswith("biased")
               for p in g["positions"] if p["check"] and len(p["moves"]) > 3]
    for fen in incheck[:3]:
        entries.append((fen, False, "in-check"))
    entries.append(("4k4/R8/9/9/9/5R3/9/9/9/3K5 b - - 0 1", False, "stalemate"))

    eng = Engine()
    lines, notes = [], []
    seen = set()
    for fen, deep, label in entries:
        if fen in seen:
            continue
        seen.add(fen)
        counts = []
        d = 1
        while True:
            if counts:
                # estimate the next count from the last branching factor
                bf = counts[-1] / max(counts[-2], 1) if len(counts) > 1 else counts[-1]
                est = counts[-1] * max(bf, 1)
                limit = PERFT_DEEP_LIMIT if deep else PERFT_LIMIT
                if est > limit * 1.5 or counts[-1] == 0 or d > 8:
                    break
            c = eng.perft(fen, d)
            limit = PERFT_DEEP_LIMIT if deep else PERFT_LIMIT
            if c > limit and counts:
                # keep it only for the deep positions (<= deep limit)
                break
            counts.append(c)
            d += 1
        p1, p2 = pyffish_perft12(fen)
        ok = counts[0] == p1 and (len(counts) < 2 or counts[1] == p2)
        if not ok:
            notes.append(f"{label}: FSF {counts[:2]} vs pyffish {[p1, p2]}")
        STATS["perft_crosscheck_ok" if ok else "perft_crosscheck_bad"] += 1
        lines.append(fen + ";" + ";".join(str(c) for c in counts))
        print(f"  perft {label}: {counts}", file=sys.stderr)
    version = eng.version
    eng.close()
    return lines, notes, version


# ---------------------------------------------------------------------------
# statistics and README
# ---------------------------------------------------------------------------

def family(gid):
    if gid.startswith("tricky-"):
        return "tricky-*"
    if gid.startswith("clock-"):
        return "clock-*"
    return re.sub(r"-\d+$", "-N", gid)


def game_stats(games):
    c = collections.Counter()
    fam = collections.OrderedDict()
    ends = collections.Counter()
    for g in games:
        f = fam.setdefault(family(g["id"]), [0, 0])
        f[0] += 1
        f[1] += len(g["positions"])
        c["games"] += 1
        c["moves"] += len(g["moves"])
        for p in g["positions"]:
            c["positions"] += 1
            c["legal_moves_total"] += len(p["moves"])
            c["check"] += p["check"]
            c["wxf"] += "wxf" in p
            c["wxf_entries"] += len(p.get("wxf", {}))
            if not p["moves"]:
                c["no_moves"] += 1
                kind = "checkmate" if p["check"] else "stalemate"
                c[f"no_moves_{kind}"] += 1
                ends[f"no legal moves ({kind}), no_moves_result {p['no_moves_result']}"] += 1
            if p["optional_end"][0]:
                c["optional_end"] += 1
                ends[f"optional_end [true, {p['optional_end'][1]}]"] += 1
            c["insufficient_red"] += p["insufficient"][0]
            c["insufficient_black"] += p["insufficient"][1]
            c["insufficient_both"] += p["insufficient"][0] and p["insufficient"][1]
    return c, fam, ends


README = """# Xiangqi rules fixtures

Generated by `tools/gen_xiangqi_fixture.py` (deterministic; regenerate from
the repository root with

    python3 tools/gen_xiangqi_fixture.py

which rewrites `games.jsonl`, `perft.txt` and this README; `--no-perft`
rewrites only `games.jsonl`).  Versions: pyffish {pyffish} (PyPI, the
Fairy-Stockfish Python binding), `{engine}` = Debian `fairy-stockfish`
{deb}, Python {python}.  Runtime about 5 minutes.

`insufficient_material_fsf.json` and `repetition_rules_fsf.json` in this
directory are byte-identical copies of /work/shared/reference/xiangqi/ placed
here by the Rust side; the script does not touch them.

**Coordinates.**  Every move in these files is ICCS: files `a`-`i` from
Red's left, ranks `0`-`9` from Red's side (`h2e2` = C2=5).  pyffish and
Fairy-Stockfish (FSF) use ranks `1`-`10` (`h3e3`); the script converts with
rank - 1 (two-digit rank: FSF `e10f10` = ICCS `e9f9`).  FENs are unchanged
(they have no coordinates): rank 10 first, upper case = Red, `w` = Red to
move, castling/e.p. fields always `- -`.

## games.jsonl

{games} games, {positions} positions ({moves} moves), {size} bytes, one game
per line, compact JSON:

    {{"id": "random-3", "start": "<FEN>", "moves": ["h2e2", ...],
     "positions": [ ... ]}}

`start` is the start FEN as pyffish writes it (`sf.get_fen(V, fen, [])`,
6 fields).  Every start FEN was validated: `sf.validate_fen` == FEN_OK
(syntactic only), `sf.legal_moves` runs, and the script's own checks (one
general each inside its palace, advisors / elephants on their points,
soldiers on reachable squares, generals not facing on an open file, the
side not to move not in check).  FSF's K-vs-K insufficient-material case
`4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1` fails the last-but-one check (the
generals face each other) and is skipped.

`positions[0]` is the start position, `positions[i]` the position after
`moves[:i]`; with `fsf` = the moves in FSF coordinates, every field comes
from one pyffish call with the whole history (`V = "xiangqi"`):

| field | meaning |
|---|---|
| fen | `sf.get_fen(V, start, fsf[:i])` |
| moves | sorted ICCS list of `sf.legal_moves(V, start, fsf[:i])` |
| check | `sf.gives_check(V, start, fsf[:i])` = the side to move is in check |
| no_moves_result | `null` if there is a legal move, else `sf.game_result(V, start, fsf[:i])` from the side to move's view (always -32000 = the side to move loses: checkmate and stalemate alike) |
| optional_end | `[bool, value]` from `sf.is_optional_game_end(V, start, fsf[:i])`; value from the side to move's view: 32000 = side to move wins, -32000 = side to move loses, 0 = draw.  **When bool is false the value is written as 0** (pyffish returns an uninitialised int there; observed 0 and -32000) |
| insufficient | `[red, black]` = `sf.has_insufficient_material(V, fen, [])` |
| wxf | only on positions 0, 4, 8, ...: `{{ICCS move: sf.get_san(V, fen, fsf_move, False, sf.NOTATION_XIANGQI_WXF)}}` for every legal move (an empty object when there is no legal move) |

A game stops when the side to move has no legal move (that position is
included, with `no_moves_result`), at its ply cap, when a chooser gives up,
or a family-specific number of plies (0-4) after `optional_end` first
became true; scripted games (`ccpd-*`, `fsf-rep-*`, scripted prefixes)
always play all their moves, even past an optional end.  So the
positions after an `optional_end` true are deliberate: they show what FSF
reports if play goes on.  History starts at `start` (pyffish knows nothing
before it), which matters for repetition and for the check offset below.

Game families (games / positions):

{families}

* `random-N`: uniform random moves from the start (cap 150 plies).
* `biased-N`: from the start; a move that leaves the opponent without a
  legal move (mate, or stalemate when <= 14 pieces are left) is taken with
  probability 0.95, otherwise weights 1 + captures (3 + 2 x victim value)
  + checks (5); cap 200.
* `endgame-N`: 40 evenly spaced FENs of
  /work/shared/reference/xiangqi/ccpd_endgames.jsonl continued with random
  (every 3rd) or 60 % biased play, 36 plies.
* `ccpd-end-N`: the played continuations (`moves_uci`) of 6 CCPD endgames
  (4 ending with no legal move, 2 draws); `ccpd-mate-N`: 4 complete games
  of ccpd_checkmate_games.jsonl ending in mate; `ccpd-win1-N`: 6 win-in-1
  positions of win_in_n_ccpd_verified.jsonl plus the winning move.
* `tricky-*`: hand-made positions, then 50 % biased play: flying-general
  pins (`fg-*`: a horse, advisor, cannon, soldier as the only piece between
  the generals; a chariot check answered by interposing a cannon; a general
  that may not step onto the open file), cannon screens (two screens, a
  cannon check blocked by adding a second screen, the general as a screen,
  a cannon battery, an opening with cannon captures), horse legs (a chariot
  on a horse's leg that may not move away, a horse with all legs blocked,
  a horse check), elephant eyes and the river, soldiers across the river and
  on the last rank, double check, stalemate net / stalemate now, WXF tandem
  positions (`tandem-*`).
* `repetition-N`: pieces moved back and forth (the side to move reverses
  its previous move with p = 0.85 / 0.7, else goes to an already seen
  position with p = 0.7, else a random quiet move of R/H/C/K); 1-6 from the
  start after 0-30 random plies, 7-12 from CCPD endgames with chariots.
* `perpetual-N`: one side (the side to move in 3 of 4 games, else the
  other) plays checks, preferring checks that return to a seen position;
  the other side plays as in `repetition-N`.  They end in perpetual check
  (32000 when the checked side is to move at the third occurrence, -32000
  when the checking side is) or in plain repetition (0).  No random game
  ends in a chase verdict; those are in `fsf-rep-N`.
* `fsf-rep-N`: the 33 cases of repetition_rules_fsf.json (FSF test.py:
  chases, perpetual checks, mutual perpetual checks), N in file order; the
  last position is the adjudicated one (all agree with the expected values
  there).  `fsf-insuf-N`: the insufficient-material cases of
  insufficient_material_fsf.json (N in file order, 3 skipped) + 6 random
  plies.
* `clock-*`: `clock-draw-100` / `clock-mate-100` start from
  `{clock}` (halfmove clock 99): a quiet move reaches 100 plies =>
  `optional_end` [true, 0]; the mating move `b5b10` (ICCS `b4b9`) reaches
  100 plies with checkmate => no legal moves, `optional_end` false (mate
  beats the move limit).  `clock-quiet-N`: CCPD endgames with the clock set
  to 87-96, no captures.  `clock-checks-N`: Red checks as often as possible
  (no captures, no threefold) from `4k4/9/9/9/9/9/9/9/9/R2K5 w - - 70 60`,
  showing FSF's check extension of the move limit (below).

Totals: check {check}; no legal moves {no_moves} ({no_moves_checkmate}
checkmates, {no_moves_stalemate} stalemates); optional_end true
{optional_end}; positions with a wxf map {wxf} ({wxf_entries} entries);
insufficient red {insufficient_red}, black {insufficient_black}, both
{insufficient_both}.  Breakdown of the game-ending facts:

{ends}

## perft.txt

{perft_lines} lines `FEN;d1;d2;...;dN`: the node counts for depths 1..N from
`{engine}` (`uci`, `setoption name UCI_Variant value xiangqi`,
`position fen <FEN>`, `go perft <d>`, the `Nodes searched: <n>` line).
Depths are included while the count is <= 3,000,000 (estimated from the
previous branching factor before running; the depth is capped at 8), except
for the two "deep" lines, the start position (depth 5 = 133312995) and one
middlegame (depth 5 = 95953970), which go up to about 1.4e8: run those only
in release / ignored tests (filter by count).  Positions: the start
position, 10 middlegames from `random-*`, `biased-*`, `repetition-4`
games, 10 CCPD endgames (`ccpd_endgames.jsonl` lines 0, 24, ..., 216), the
`tricky-*` start positions, 3 in-check positions from `biased-*` games, and
a stalemate (`...;0`).  Depths 1 and 2 were re-computed with pyffish
`legal_moves` (a different FSF version): {perft_check}.

## pyffish / Fairy-Stockfish behaviour observed (pyffish 0.0.90, FSF 11.1)

* Ranks 1-10 in all moves (see Coordinates).  pyffish takes
  `(variant, fen, moves)`; `validate_fen` takes `(fen, variant)` and
  returns 1 (FEN_OK) for syntactically valid FENs only: it accepts
  generals outside the palace, facing generals, the side not to move in
  check.  `legal_moves` on a FEN with facing generals runs anyway.
* pyffish is ~1.5 ms per call here (not 10 ms), slightly more with long
  histories.
* `gives_check(V, fen, moves)` answers "is the side to move in check after
  `moves`" (with an empty list: in the FEN itself).
* `game_result` always returns -32000 (side to move loses) for xiangqi,
  for checkmate **and stalemate** (stalemate loses in xiangqi); it does not
  look at legal moves, so it also returns -32000 in the start position:
  only meaningful when there is no legal move.  `is_immediate_game_end` is
  always false for xiangqi.
* The FEN half-move clock is reset only by captures; soldier moves do not
  reset it (FSF xiangqi), e.g. `a3a4` from the start gives `... b - - 1 1`.
* `is_optional_game_end` (source: FSF `Position::is_optional_game_end`):
  1. **Move limit**: true with value 0 when the half-move clock is >= 100
     (FSF's 50 moves / 100 plies; our default is 60 moves / 120 plies, so
     compare only with the limit set to 50 moves) unless the side to move is
     checkmated (then there are no legal moves and it is false; see
     `clock-mate-100`).  **AXF check extension**: when at least 20 plies of
     history exist, the limit is raised by 2 plies for every check beyond
     10 given by the side that gave more checks within the last
     min(half-move clock, plies of history) positions: the clock must
     exceed 99 + 2 x max(0, checks - 10).  Consequence: the flag is not
     monotonic; in `clock-checks-N` it is true at one ply, false after the
     next check raised the limit, and true again (positions 46-48 of
     clock-checks-2 at clocks 116-118 after 19 red checks).  This was
     verified against pyffish on every prefix of such a game.  The
     half-move clock given in a start FEN counts, but checks before the
     start FEN are unknown, so a FEN with clock >= 100 and no history is an
     immediate draw claim.
  2. **Repetition**: true at the **third occurrence** of a position
     (placement + side to move), counting only positions within the last
     min(half-move clock, plies since the start FEN) plies, so a capture
     (or the start FEN) cuts the history.  The value is decided over the
     plies since the first of those three occurrences (for a 4th
     occurrence: the last three): if the side not to move gave check in
     every one of its moves there (perpetual check by the opponent) the
     value is 32000 (side to move wins), if the side to move did it -32000,
     both => 0 (draw); otherwise FSF's AXF chase detection decides the
     same way (perpetual chase of an unprotected piece / a chariot by a
     horse or cannon, etc.; incomplete by FSF's own account), else 0
     (draw).  Positions that are not the third occurrence in that window
     read false again, so `optional_end` can flip back to false when play
     continues past a claim (see `repetition-5`).
  3. The value is uninitialised when the flag is false (normalised to 0
     here).
* `has_insufficient_material` = per side: the side has no chariot, horse,
  cannon or soldier (K, K+A, K+B, K+A+B... => true).  A lone soldier, even
  on the last rank, or a lone cannon (which cannot mate without a screen)
  count as sufficient.
* WXF (`NOTATION_XIANGQI_WXF`): piece letters K A E H R C P, file counted
  from the mover's right (Red 1-9 from i to a, Black 1-9 from a to i),
  `+` forward, `-` backward, **`=` sideways** (not `.`), then the
  destination file (A, E, H, sideways) or the number of steps; no check
  suffix.  Examples: `C2=5` (h2e2), `H8+7` (Black h9g7), `K5=6`, `E7+9`.
  Tandems: two chariots / cannons / horses on a file: the file is replaced
  by `+` (front) or `-` (rear): `R+=5`, `C-+1`, `H++7`, `H--8`.  Two
  advisors or elephants on a file keep the file number (the direction
  disambiguates: `E7+9` / `E7-9`).  Soldiers: two on one file: `P+=4`,
  `P-=6`, `P++1`; three or more on a file, or two files with tandem
  soldiers: **an index from the front plus the file digit, no letter**:
  `17+1`, `27=8` (Red, file 7), `13=2`, `23=4` (Black, file 3).  Forms seen
  in this file: {wxf_forms}.
* Debian fairy-stockfish answers `go perft N` synchronously (a following
  `quit` is processed after the count), prints one `move: count` line per
  root move and then `Nodes searched: N`.
"""


def wxf_forms(games):
    forms = collections.Counter()
    for g in games:
        for p in g["positions"]:
            for w in p.get("wxf", {}).values():
                forms[re.sub(r"[0-9]", "n", w)] += 1
    return ", ".join(f"`{k}` {v}" for k, v in sorted(forms.items(), key=lambda x: -x[1]))


def write_readme(games, perft_lines, perft_notes, engine, path_games):
    c, fam, ends = game_stats(games)
    deb = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "fairy-stockfish"],
                         capture_output=True, text=True).stdout.strip() or "?"
    fams = "\n".join(f"| {k} | {g} | {p} |" for k, (g, p) in fam.items())
    fams = "| family | games | positions |\n|---|---|---|\n" + fams
    ends_txt = "\n".join(f"* {k}: {v}" for k, v in sorted(ends.items()))
    if SKIPPED:
        print("NOTES:\n  " + "\n  ".join(SKIPPED), file=sys.stderr)
    if perft_notes:
        check = "MISMATCHES: " + "; ".join(perft_notes)
    else:
        check = f"all {len(perft_lines)} agree"
    text = README.format(
        pyffish=".".join(map(str, sf.version())), engine=engine, deb=deb,
        python=sys.version.split()[0], size=os.path.getsize(path_games),
        families=fams, ends=ends_txt, perft_lines=len(perft_lines),
        perft_check=check, clock=CLOCK_BASE, wxf_forms=wxf_forms(games), **c)
    with open(os.path.join(OUT_DIR, "README.md"), "w", encoding="utf-8") as fh:
        fh.write(text)


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------

def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    games = build_games()
    path = os.path.join(OUT_DIR, "games.jsonl")
    with open(path, "w", encoding="utf-8") as fh:
        for g in games:
            fh.write(json.dumps(g, ensure_ascii=False, separators=(",", ":")) + "\n")
    c, _, ends = game_stats(games)
    print(f"wrote {path}: {dict(c)}", file=sys.stderr)
    for k, v in sorted(ends.items()):
        print(f"  {k}: {v}", file=sys.stderr)
    if "--no-perft" in sys.argv:
        return
    lines, notes, engine = build_perft(games)
    ppath = os.path.join(OUT_DIR, "perft.txt")
    with open(ppath, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"wrote {ppath} ({len(lines)} lines) with {engine}", file=sys.stderr)
    for n in notes:
        print("  MISMATCH " + n, file=sys.stderr)
    write_readme(games, lines, notes, engine, path)
    print("wrote README.md", file=sys.stderr)


if __name__ == "__main__":
    main()
