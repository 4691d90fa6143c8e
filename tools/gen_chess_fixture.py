#!/usr/bin/env python3
"""Generate the chess rules fixtures in tests/fixtures/chess/ from python-chess.

What it writes (all paths relative to the repository root):

  tests/fixtures/chess/games.jsonl
      One JSON object per line = one game played from a start FEN:
        {"id", "start", "moves": [UCI...], "positions": [...]}
      positions[0] is the start position, positions[i] the position after
      moves[:i].  Each position records the FEN, the sorted legal moves in UCI
      and SAN, check / outcome flags, fifty-move and repetition data and
      insufficient-material flags (see tests/fixtures/chess/README.md).
      Game families:
        random-N      uniform random moves from the standard start
        biased-N      captures / checks / mates / promotions / e.p. / castling
                      strongly preferred (reaches endgames, mates, stalemates,
                      insufficient material)
        lopsided-N    one side greedy (mates, material, squeezing the enemy
                      king), the other uniform random (mates for both colours,
                      stalemates)
        repetition-N  pieces shuffled back and forth (threefold, fivefold,
                      high half-move clocks, 75-move rule)
        clock-N       start with a high half-move clock and avoid zeroing moves
        tricky-*      hand-made / perft-suite start FENs (e.p. pins, castling
                      edge cases, promotions, material draws, counter edges),
                      optionally with a scripted move prefix, then biased play
  tests/fixtures/chess/fen_validity.jsonl
      Differential FEN-validity table: {"fen", "python_chess"} where
      python_chess is "ok", "error: <ValueError text>" or
      "invalid: <STATUS_* flag names joined by |>".
  tests/fixtures/chess/README.md
      Field definitions, counts and the exact command used.

How to rerun (deterministic: every game uses its own random.Random seeded with
a fixed string, no dependence on hash randomisation or wall-clock):

    python3 tools/gen_chess_fixture.py

Requires only python-chess (generated with 1.11.2) and the standard library.
"""

import collections
import json
import os
import random
import sys

import chess

SEED = "arbiter-chess-fixture-v1"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "tests", "fixtures", "chess")
PERFT_SUITE = "/work/shared/reference/chess/perftsuite.epd"  # optional input

DEFAULT_CAP = 300  # ply cap for a game

TERMINATION_NAMES = {
    chess.Termination.CHECKMATE: "checkmate",
    chess.Termination.STALEMATE: "stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "insufficient_material",
    chess.Termination.SEVENTYFIVE_MOVES: "seventyfive_moves",
    chess.Termination.FIVEFOLD_REPETITION: "fivefold_repetition",
}


def rng_for(name):
    return random.Random(f"{SEED}/{name}")


# ---------------------------------------------------------------------------
# FEN helpers
# ---------------------------------------------------------------------------

def fix_counters(fen):
    """Make sure the FEN has 6 fields and consistent move counters.

    fullmove >= 1 and halfmove <= 2*(fullmove-1) + (1 if black to move);
    the fullmove number is raised where needed.
    """
    parts = fen.split()
    if len(parts) == 4:
        parts += ["0", "1"]
    assert len(parts) == 6, fen
    half, full = int(parts[4]), int(parts[5])
    black = parts[1] == "b"
    full = max(full, 1)
    while half > 2 * (full - 1) + (1 if black else 0):
        full += 1
    parts[4], parts[5] = str(half), str(full)
    return " ".join(parts)


def counters_consistent(fen):
    parts = fen.split()
    half, full = int(parts[4]), int(parts[5])
    return full >= 1 and half <= 2 * (full - 1) + (1 if parts[1] == "b" else 0)


def status_names(status):
    names = []
    flags = sorted(
        (value, name) for name, value in vars(chess).items()
        if name.startswith("STATUS_") and name != "STATUS_VALID"
        and isinstance(value, int) and value and (value & (value - 1)) == 0)
    for value, name in flags:
        if status & value:
            names.append(name)
    return "|".join(names)


def classify_fen(fen):
    try:
        board = chess.Board(fen)
    except ValueError as e:
        return f"error: {e}"
    status = board.status()
    if status == chess.STATUS_VALID:
        return "ok"
    return f"invalid: {status_names(status)}"


# ---------------------------------------------------------------------------
# Position records
# ---------------------------------------------------------------------------

def outcome_record(board):
    """The game's end by python-chess's outcome, or None."""
    outcome = board.outcome(claim_draw=False)
    if outcome is None:
        return None
    return {
        "termination": TERMINATION_NAMES[outcome.termination],
        "winner": None if outcome.winner is None
        else ("white" if outcome.winner == chess.WHITE else "black"),
    }


def position_record(board, key_counts, outcome=outcome_record):
    """One position; `outcome` names its end (a variant names its own)."""
    key = board._transposition_key()
    reps = key_counts[key]
    legal = list(board.legal_moves)
    out = outcome(board)
    threefold_now = reps >= 3
    # Cross-check our full-history count against python-chess's own logic.
    assert threefold_now == board.is_repetition(3), board.fen()
    assert (reps >= 5) == board.is_repetition(5), board.fen()
    return {
        "fen": board.fen(),
        "uci": sorted(m.uci() for m in legal),
        "san": sorted(board.san(m) for m in legal),
        "check": board.is_check(),
        "outcome": out,
        "fifty_now": board.is_fifty_moves(),
        "threefold_now": threefold_now,
        "can_claim_fifty": board.can_claim_fifty_moves(),
        "can_claim_threefold": board.can_claim_threefold_repetition(),
        "repetitions": reps,
        "insufficient": {
            "white": board.has_insufficient_material(chess.WHITE),
            "black": board.has_insufficient_material(chess.BLACK),
        },
    }


def play_game(game_id, start_fen, chooser, cap=DEFAULT_CAP, prefix=()):
    start_fen = fix_counters(start_fen)
    board = chess.Board(start_fen)
    assert board.is_valid(), (game_id, start_fen, board.status())
    assert counters_consistent(start_fen), start_fen
    rng = rng_for(game_id)
    key_counts = collections.Counter()
    key_counts[board._transposition_key()] += 1
    positions = [position_record(board, key_counts)]
    moves = []
    prefix = list(prefix)
    while board.outcome(claim_draw=False) is None and len(moves) < cap:
        if prefix:
            move = chess.Move.from_uci(prefix.pop(0))
            assert move in board.legal_moves, (game_id, move, board.fen())
        else:
            move = chooser(board, rng)
        moves.append(move.uci())
        board.push(move)
        key_counts[board._transposition_key()] += 1
        positions.append(position_record(board, key_counts))
    assert not prefix, (game_id, "prefix not fully played")
    return {"id": game_id, "start": start_fen, "moves": moves,
            "positions": positions}


# ---------------------------------------------------------------------------
# Move choosers
# ---------------------------------------------------------------------------

def choose_uniform(board, rng):
    return rng.choice(list(board.legal_moves))


def weighted_choice(rng, items):
    total = sum(w for _, w in items)
    r = rng.random() * total
    for item, w in items:
        r -= w
        if r < 0:
            return item
    return items[-1][0]


def is_mating(board, move):
    board.push(move)
    try:
        return board.is_checkmate()
    finally:
        board.pop()


def is_stalemating(board, move):
    board.push(move)
    try:
        return board.is_stalemate()
    finally:
        board.pop()


def creates_ep_chance(board, move):
    """Double pawn push landing next to an enemy pawn (an e.p. capture may follow)."""
    if board.piece_type_at(move.from_square) != chess.PAWN:
        return False
    if abs(chess.square_rank(move.to_square) - chess.square_rank(move.from_square)) != 2:
        return False
    enemy_pawns = board.pieces(chess.PAWN, not board.turn)
    f, r = chess.square_file(move.to_square), chess.square_rank(move.to_square)
    return any(chess.square(f + d, r) in enemy_pawns for d in (-1, 1) if 0 <= f + d < 8)


PIECE_VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5,
               chess.QUEEN: 9, chess.KING: 0}


def make_lopsided(strong_color):
    """One side plays greedily (mates, material, restricting the enemy king's
    mobility), the other side plays uniformly at random.  Produces checkmates
    (for both colours) and stalemates."""

    def choose(board, rng):
        legal = list(board.legal_moves)
        if board.turn != strong_color:
            return rng.choice(legal)
        mates = [m for m in legal if is_mating(board, m)]
        if mates and rng.random() < 0.95:
            return rng.choice(mates)
        items = []
        for m in legal:
            w = 1.0
            captured = board.piece_type_at(m.to_square)
            if board.is_en_passant(m):
                captured = chess.PAWN
            if captured:
                w += 6 * PIECE_VALUE[captured]
            if m.promotion:
                w += 40 if m.promotion == chess.QUEEN else 4
            board.push(m)
            replies = board.legal_moves.count()
            # Do not hang the moved piece for free too often.
            attacked = board.is_attacked_by(board.turn, m.to_square)
            board.pop()
            w *= 4.0 / (1 + replies) ** 0.5
            if attacked and not board.is_attacked_by(not board.turn, m.to_square) and \
                    board.piece_type_at(m.from_square) != chess.KING:
                w *= 0.2
            items.append((m, w))
        return weighted_choice(rng, items)

    return choose


def make_biased(mate_prob=0.9, stalemate_prob=0.0):
    """Prefer special moves: mates, e.p., castling, promotions, captures, checks."""

    def choose(board, rng):
        legal = list(board.legal_moves)
        if rng.random() < mate_prob:
            mates = [m for m in legal if is_mating(board, m)]
            if mates:
                return rng.choice(mates)
        if stalemate_prob and rng.random() < stalemate_prob:
            stale = [m for m in legal if is_stalemating(board, m)]
            if stale:
                return rng.choice(stale)
        items = []
        for m in legal:
            w = 1.0
            if board.is_en_passant(m):
                w += 60
            if creates_ep_chance(board, m):
                w += 15
            if board.is_castling(m):
                w += 30
            if m.promotion:
                w += 12 if m.promotion == chess.QUEEN else 8
            if board.is_capture(m):
                w += 8
            if board.gives_check(m):
                w += 5
            items.append((m, w))
        return weighted_choice(rng, items)

    return choose


def make_shuffler(reverse_prob=0.8, zeroing_weight=0.02, minor_bias=4.0):
    """Move pieces back and forth to produce repetitions / long clocks.

    With probability reverse_prob the side to move undoes its own previous
    move (if that is legal and not zeroing); otherwise a non-zeroing move is
    preferred, knights and kings more than other pieces.
    """

    def choose(board, rng):
        legal = list(board.legal_moves)
        if len(board.move_stack) >= 2 and rng.random() < reverse_prob:
            prev = board.move_stack[-2]
            back = chess.Move(prev.to_square, prev.from_square)
            if back in legal and not board.is_zeroing(back):
                return back
        items = []
        for m in legal:
            if board.is_zeroing(m):
                w = zeroing_weight
            else:
                pt = board.piece_type_at(m.from_square)
                w = minor_bias if pt in (chess.KNIGHT, chess.KING) else 1.0
            items.append((m, w))
        return weighted_choice(rng, items)

    return choose


def make_clock_runner(mate_prob=0.5):
    """Avoid zeroing moves (to run the half-move clock up), take mates sometimes."""
    shuffle = make_shuffler(reverse_prob=0.15, zeroing_weight=0.001, minor_bias=2.0)

    def choose(board, rng):
        if rng.random() < mate_prob:
            mates = [m for m in board.legal_moves if is_mating(board, m)]
            if mates:
                return rng.choice(mates)
        return shuffle(board, rng)

    return choose


# ---------------------------------------------------------------------------
# Start positions
# ---------------------------------------------------------------------------

STANDARD = chess.STARTING_FEN

PERFT_POSITIONS = [
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ("perft3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
    ("perft4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"),
    ("perft4-mirrored", "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1"),
    ("perft5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"),
    ("perft6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/3P1N1P/PPP1NPP1/R2Q1RK1 w - - 0 10"),
]

# (id suffix, FEN, scripted prefix of UCI moves, ply cap)
TRICKY = [
    # --- en passant -------------------------------------------------------
    ("ep-pin-h-1", "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2", [], 20),
    ("ep-pin-h-2", "8/8/8/8/k2pP2R/8/8/4K3 b - e3 0 1", [], 20),
    ("ep-pin-h-3", "8/2p5/8/KP5r/8/8/4k3/8 b - - 0 1", ["c7c5"], 20),
    ("ep-pin-d-1", "4k3/6b1/8/3pP3/8/8/1K6/8 w - d6 0 2", [], 20),
    ("ep-pin-d-along-1", "4k3/6b1/8/4Pp2/8/8/1K6/8 w - f6 0 2", [], 20),
    ("ep-resolves-check-1", "4k3/8/8/3pP3/4K3/8/8/8 w - d6 0 2", [], 20),
    ("ep-resolves-check-2", "8/8/8/4k3/3Pp3/8/8/4K3 b - d3 0 1", [], 20),
    ("ep-discovered-check-1", "2b1k3/8/8/3pP3/8/7K/8/8 w - d6 0 2", [], 20),
    ("ep-mate-discovered-1", "k7/3p4/1Q6/2P5/8/KP6/6B1/N7 b - - 0 1", ["d7d5", "c5d6"], 4),
    ("ep-scripted-2", STANDARD,
     ["a2a4", "h7h5", "a4a5", "b7b5", "a5b6", "h5h4", "g2g4", "h4g3"], 30),
    ("ep-no-capturer-1", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
     ["g8f6", "g1f3", "f6g8", "f3g1", "g8f6", "g1f3", "f6g8", "f3g1"], 20),
    ("ep-two-capturers-1", "4k3/8/8/2PpP3/8/8/8/4K3 w - d6 0 2", [], 20),
    ("ep-scripted-1", STANDARD, ["e2e4", "a7a6", "e4e5", "d7d5", "e5d6"], 30),
    ("ep-key-1", STANDARD,
     ["e2e4", "g8f6", "e4e5", "d7d5", "g1f3", "f6g8", "f3g1", "g8f6",
      "g1f3", "f6g8", "f3g1", "g8f6", "g1f3", "f6g8", "f3g1", "g8f6"], 40),
    # --- castling --------------------------------------------------------
    ("castle-all-rights-1", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", [], 30),
    ("castle-through-check-1", "r3k3/8/8/8/8/8/5r2/R3K2R w KQq - 0 1", [], 20),
    ("castle-into-check-1", "4k3/8/8/8/8/8/6r1/R3K2R w KQ - 0 1", [], 20),
    ("castle-b1-attacked-1", "4k3/8/8/8/8/8/1r6/R3K2R w KQ - 0 1", [], 20),
    ("castle-out-of-check-1", "4k3/8/8/8/4r3/8/8/R3K2R w KQ - 0 1", [], 20),
    ("castle-blocked-1", "r3k2r/8/8/8/8/8/8/RN2K2R w KQkq - 0 1", [], 20),
    ("castle-blocked-2", "rn2k1nr/8/8/8/8/8/8/R3K2R b KQkq - 0 1", [], 20),
    ("castle-rook-captured-1", "r3k2r/8/8/8/8/8/6b1/R3K2R b KQkq - 0 1", ["g2h1"], 30),
    ("castle-rook-captured-2", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", ["a1a8"], 30),
    ("castle-rook-moved-back-1", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
     ["h1h2", "h8h7", "h2h1", "h7h8", "e1e2", "e8e7", "e2e1", "e7e8"], 30),
    ("castle-king-moved-back-1", STANDARD,
     ["e2e4", "e7e5", "e1e2", "e8e7", "e2e1", "e7e8", "e1e2", "e8e7",
      "e2e1", "e7e8", "e1e2", "e8e7", "e2e1", "e7e8"], 40),
    # --- promotions ------------------------------------------------------
    ("promo-capture-check-1", "1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", [], 20),
    ("promo-mate-1", "k7/2P5/1K6/8/8/8/8/8 w - - 0 1", [], 20),
    ("promo-under-1", "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", [], 30),
    ("promo-under-2", "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1", [], 30),
    ("promo-black-capture-1", "4k3/8/8/8/8/8/6p1/4K2R b K - 0 1", [], 20),
    # --- material --------------------------------------------------------
    ("bare-kings-1", "8/8/4k3/8/8/3K4/8/8 w - - 0 1", [], 10),
    ("kb-vs-k-1", "8/8/4k3/8/8/3K4/3B4/8 w - - 0 1", [], 10),
    ("kn-vs-k-1", "8/8/4k3/8/8/3K4/3N4/8 b - - 0 1", [], 10),
    ("kb-vs-kb-same-1", "8/8/4k3/2b5/8/3K4/3B4/8 w - - 0 1", [], 10),
    ("kb-vs-kb-opposite-1", "8/8/4k3/8/b7/3K4/3B4/8 w - - 0 1", [], 30),
    ("kbb-same-vs-k-1", "8/8/4k3/8/8/3K4/8/2B1B3 w - - 0 1", [], 10),
    ("kn-vs-kp-1", "8/8/4k3/4p3/8/3K4/3N4/8 w - - 0 1", [], 40),
    ("kn-vs-kn-1", "8/8/4k3/4n3/8/3K4/3N4/8 w - - 0 1", [], 30),
    ("knn-vs-k-1", "8/8/4k3/8/8/3K4/3NN3/8 w - - 0 1", [], 30),
    ("kb-vs-kn-1", "8/8/4k3/4n3/8/3K4/3B4/8 w - - 0 1", [], 30),
    ("kb-vs-kq-1", "8/8/4k3/4q3/8/3K4/8/5B2 b - - 0 1", [], 30),
    ("kn-vs-kq-1", "8/8/4k3/4q3/8/3K4/8/5N2 b - - 0 1", [], 30),
    ("capture-to-bare-1", "8/8/8/8/8/8/1q6/K6k w - - 0 1", [], 10),
    # --- move counters ---------------------------------------------------
    ("clock-98-1", "8/8/4k3/8/8/3K4/3R4/8 w - - 98 80", [], 12),
    ("clock-99-1", "8/8/4k3/8/8/3K4/3R4/8 w - - 99 80", [], 12),
    ("clock-99-b-1", "8/8/4k3/8/8/3K4/3R4/8 b - - 99 80", [], 12),
    ("clock-99-only-capture-1", "k7/8/8/8/8/8/1q6/K7 w - - 99 80", [], 12),
    ("clock-99-pawn-1", "4k3/8/8/8/8/8/4P3/4K3 w - - 99 80", [], 12),
    ("clock-100-1", "8/8/4k3/8/8/3K4/3R4/8 w - - 100 80", [], 12),
    ("clock-148-1", "8/8/4k3/8/8/3K4/3R4/8 w - - 148 80", [], 12),
    ("clock-149-1", "8/8/4k3/8/8/3K4/3R4/8 w - - 149 80", [], 12),
    ("clock-150-1", "8/8/4k3/8/8/3K4/3R4/8 w - - 150 80", [], 12),
    ("clock-149-mate-1", "7k/8/6K1/8/8/8/8/R7 w - - 149 120", ["a1a8"], 12),
    ("clock-149-stalemate-1", "7k/8/8/8/8/8/8/K5Q1 w - - 149 120", ["g1g6"], 12),
    ("clock-149-nonmate-1", "7k/8/6K1/8/8/8/8/R7 w - - 149 120", ["a1a7"], 12),
    ("clock-149-check-1", "7k/8/5K2/8/8/8/8/R7 w - - 149 120", ["a1a8"], 12),
    ("clock-99-mate-1", "7k/8/6K1/8/8/8/8/R7 w - - 99 80", ["a1a8"], 12),
    ("clock-149-capture-1", "7k/8/6K1/8/8/8/r7/R7 w - - 149 120", ["a1a2"], 12),
]


def perft_suite_fens(limit_every=9):
    """A sample of the shared perft suite (optional, skipped if missing)."""
    out = []
    if not os.path.exists(PERFT_SUITE):
        return out
    with open(PERFT_SUITE) as f:
        lines = [l.strip() for l in f if l.strip()]
    for i, line in enumerate(lines):
        if i % limit_every:
            continue
        fen = line.split(";")[0].strip()
        if len(fen.split()) == 4:
            fen += " 0 1"
        out.append((f"perftsuite-{i + 1}", fen))
    return out


# ---------------------------------------------------------------------------
# Games
# ---------------------------------------------------------------------------

def build_games():
    games = []
    for i in range(1, 7):
        games.append(play_game(f"random-{i}", STANDARD, choose_uniform,
                               cap=[120, 300, 200, 160, 300, 100][i - 1]))
    for i in range(1, 17):
        chooser = make_biased(mate_prob=0.9,
                              stalemate_prob=0.5 if i % 4 == 0 else 0.0)
        games.append(play_game(f"biased-{i}", STANDARD, chooser))
    for i in range(1, 17):
        strong = chess.WHITE if i % 2 else chess.BLACK
        games.append(play_game(f"lopsided-{i}", STANDARD, make_lopsided(strong)))
    # Repetition games from the standard start and from a few middlegames.
    rep_starts = [STANDARD,
                  "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
                  PERFT_POSITIONS[5][1],
                  "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
                  "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 30",
                  "8/8/4k3/8/8/3K4/3R4/8 w - - 96 80",
                  "r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R b KQkq - 4 9"]
    for i in range(1, 15):
        start = rep_starts[(i - 1) % len(rep_starts)]
        chooser = make_shuffler(reverse_prob=[0.9, 0.75, 0.6][i % 3])
        games.append(play_game(f"repetition-{i}", start, chooser, cap=200))
    # Clock games: start with high half-move clocks, avoid zeroing moves.
    clock_starts = [
        "8/8/4k3/8/8/3K4/3R4/8 w - - 96 80",
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 96 80",
        "r3k3/8/8/8/8/8/8/4K2R b - - 95 80",
        "4k3/8/8/8/8/8/8/1Q2K3 w - - 130 90",
        "8/5k2/8/8/8/2K5/8/1R5R b - - 97 80",
        "7k/8/8/8/8/8/8/KQ6 w - - 120 90",
    ]
    for i, start in enumerate(clock_starts, 1):
        games.append(play_game(f"clock-{i}", start,
                               make_clock_runner(mate_prob=0.3 if i % 2 else 0.05),
                               cap=120))
    # Tricky start positions.
    tricky_biased = make_biased(mate_prob=0.7)
    for name, fen, prefix, cap in TRICKY:
        games.append(play_game(f"tricky-{name}", fen, tricky_biased, cap=cap,
                               prefix=prefix))
    for name, fen in PERFT_POSITIONS:
        games.append(play_game(f"tricky-{name}", fen, tricky_biased, cap=24))
    for name, fen in perft_suite_fens():
        games.append(play_game(f"tricky-{name}", fen, tricky_biased, cap=16))
    return games


# ---------------------------------------------------------------------------
# FEN validity table
# ---------------------------------------------------------------------------

def split_fen(fen):
    return fen.split(" ")


def join_fen(parts):
    return " ".join(parts)


def board_rows(fen):
    return split_fen(fen)[0].split("/")


def expand_row(row):
    out = []
    for c in row:
        if c.isdigit():
            out.extend(["."] * int(c))
        else:
            out.append(c)
    return out


def compress_row(cells):
    out, run = "", 0
    for c in cells:
        if c == ".":
            run += 1
        else:
            if run:
                out += str(run)
                run = 0
            out += c
    if run:
        out += str(run)
    return out


def with_board(fen, grid):
    parts = split_fen(fen)
    parts[0] = "/".join(compress_row(r) for r in grid)
    return join_fen(parts)


def grid_of(fen):
    return [expand_row(r) for r in board_rows(fen)]


def set_field(fen, index, value):
    parts = split_fen(fen)
    parts[index] = value
    return join_fen(parts)


def sq_to_rc(sq):
    """Square name -> (row index in FEN grid, column)."""
    return 8 - int(sq[1]), ord(sq[0]) - ord("a")


def put(fen, placements):
    grid = grid_of(fen)
    for sq, piece in placements.items():
        r, c = sq_to_rc(sq)
        grid[r][c] = piece
    return with_board(fen, grid)


def mutations(fen, rng):
    """Systematic mutations of a (valid) 6-field FEN."""
    out = []
    rows = board_rows(fen)
    parts = split_fen(fen)
    grid = grid_of(fen)

    # Rank with one square too many / too few.
    r = rng.randrange(8)
    bad = list(rows)
    bad[r] = rows[r] + ("p" if not rows[r][-1].isdigit() else "P")
    out.append(set_field(fen, 0, "/".join(bad)))
    bad = list(rows)
    cells = expand_row(rows[r])
    bad[r] = compress_row(cells[:-1])
    out.append(set_field(fen, 0, "/".join(bad)))
    bad = list(rows)
    row = rows[r]
    if row[-1].isdigit():
        bad[r] = row[:-1] + str(int(row[-1]) + 1)  # e.g. "8" -> "9", "3" -> "4"
    else:
        bad[r] = row + "1"
    out.append(set_field(fen, 0, "/".join(bad)))
    # Seven and nine ranks.
    out.append(set_field(fen, 0, "/".join(rows[:7])))
    out.append(set_field(fen, 0, "/".join(rows + ["8"])))
    # Bad piece letter.
    occupied = [(ri, ci) for ri in range(8) for ci in range(8) if grid[ri][ci] not in ".kK"]
    if occupied:
        ri, ci = rng.choice(occupied)
        g = [row[:] for row in grid]
        g[ri][ci] = rng.choice(["x", "A", "z", "E", "0"])
        out.append(with_board(fen, g))
    # Second king of each colour / missing king.
    empties = [(ri, ci) for ri in range(8) for ci in range(8) if grid[ri][ci] == "."]
    if empties:
        ri, ci = rng.choice(empties)
        g = [row[:] for row in grid]
        g[ri][ci] = rng.choice(["K", "k"])
        out.append(with_board(fen, g))
    for king in "Kk":
        g = [[("." if c == king else c) for c in row] for row in grid]
        out.append(with_board(fen, g))
    # Pawn on back rank.
    for ri in (0, 7):
        cols = [ci for ci in range(8) if grid[ri][ci] == "."]
        if cols:
            g = [row[:] for row in grid]
            g[ri][rng.choice(cols)] = rng.choice(["P", "p"])
            out.append(with_board(fen, g))
    # Bad turn letters.
    out.append(set_field(fen, 1, rng.choice(["W", "B", "x", "-", "white"])))
    # Flip side to move (may leave the side not to move in check).
    out.append(set_field(fen, 1, "b" if parts[1] == "w" else "w"))
    # Castling rights for which rook/king is missing.
    out.append(set_field(fen, 2, rng.choice(["KQkq", "K", "Qk", "kq", "Kq"])))
    # Syntactically bad castling fields.
    out.append(set_field(fen, 2, rng.choice(["KQkqX", "x", "kQ", "KQ-", "Kkq1"])))
    # En passant fields: wrong rank, random empty 3rd/6th-rank square, bad text.
    out.append(set_field(set_field(fen, 3, rng.choice(["e4", "d5", "a1", "h8", "c2", "f7"])), 4, "0"))
    ep_rank = "6" if parts[1] == "w" else "3"
    out.append(set_field(set_field(fen, 3, rng.choice("abcdefgh") + ep_rank), 4, "0"))
    out.append(set_field(fen, 3, rng.choice(["e9", "i3", "E3", "3e", "e"])))
    # Counters: negative / non-numeric.
    out.append(set_field(fen, 4, rng.choice(["-1", "-5", "x", "1.5", "one"])))
    out.append(set_field(fen, 5, rng.choice(["-1", "-3", "y", "2.0", "ten"])))
    return out


def handmade_fen_cases():
    base = "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
    cases = [
        STANDARD,
        "8/8/8/8/8/8/8/8 w - - 0 1",  # empty
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1",
        # 17 white pieces, 9 white pawns, 9 black pawns
        "rnbqkbnr/pppppppp/8/8/8/P7/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/N7/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/p7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1",
        "4k3/pppppppp/p7/8/8/8/8/4K3 b - - 0 1",
        # 17 pieces without too many pawns (promoted material)
        "4k3/8/8/8/8/QQQQQQQQ/QQQQQQQQ/4K3 w - - 0 1",
        "4k3/8/8/8/8/QQQQQQQQ/QQQQQQQ1/4K3 w - - 0 1",
        # kings
        "4k3/8/8/8/8/8/8/8 w - - 0 1",
        "8/8/8/8/8/8/8/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/3KK3 w - - 0 1",
        "3kk3/8/8/8/8/8/8/4K3 w - - 0 1",
        "3kk3/8/8/8/8/8/8/3KK3 w - - 0 1",
        "4k3/8/8/8/8/8/8/3K4 w - - 0 1",
        "8/8/8/8/8/8/8/3Kk3 w - - 0 1",  # adjacent kings
        # side not to move in check
        "4k3/8/8/8/8/8/8/4K2R b - - 0 1",
        "4k3/4R3/8/8/8/8/8/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
        "4k3/8/8/8/8/8/4r3/4K3 b - - 0 1",
        # double check (possible) and impossible / triple checks
        "4k3/8/8/8/8/8/3q4/r3K3 w - - 0 1",
        "4k3/8/8/8/8/8/4r3/4K1n1 w - - 0 1",
        "4k3/8/8/8/8/3n4/4r3/r3K3 w - - 0 1",
        "4k3/8/8/8/1b6/3n4/4r3/r3K3 w - - 0 1",
        "4k3/8/8/8/4r3/8/8/r3K3 w - - 0 1",
        "4k3/4r3/8/8/8/8/8/4K2r w - - 0 1",
        "4k3/8/8/8/8/8/8/r3K2r w - - 0 1",
        "4k3/8/8/8/7b/8/8/b3K3 w - - 0 1",
        "4k3/8/8/8/1b5b/8/8/4K3 w - - 0 1",
        "4k3/8/8/8/8/3n1n2/8/4K3 w - - 0 1",  # double knight check (python-chess: ok)
        "4k3/8/8/8/4q3/8/8/4K2r w - - 0 1",
        "4k3/8/8/8/8/8/3p4/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/3p1p2/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/3pn3/4K3 w - - 0 1",
        # pawns on back ranks
        "P3k3/8/8/8/8/8/8/4K3 w - - 0 1",
        "p3k3/8/8/8/8/8/8/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/P3K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/p3K3 b - - 0 1",
        # castling rights
        "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
        "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
        "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w K - 0 1",
        "4k3/8/8/8/8/8/8/R6R w KQ - 0 1",
        "4k3/8/8/8/8/8/8/R2K3R w KQ - 0 1",
        "4k3/8/8/8/8/8/8/4K1R1 w K - 0 1",
        "r3k2r/8/8/8/8/8/8/4K3 w kq - 0 1",
        "r3k2r/8/8/8/8/8/8/4K3 w KQkq - 0 1",
        "r2k3r/8/8/8/8/8/8/4K3 w kq - 0 1",
        "r3k3/8/8/8/8/8/8/4K3 w k - 0 1",
        "4k2R/8/8/8/8/8/8/4K3 w k - 0 1",
        "4k3/8/8/8/8/8/8/4K2r w K - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w Kk - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w Qq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1",
        # en passant
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e6 0 1",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq d3 0 1",
        "rnbqkbnr/pppppppp/8/8/4P3/4N3/PPPP1PPP/RNBQKB1R b KQkq e3 0 1",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPPPPPP/RNBQKBNR b KQkq e3 0 1",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e4 0 1",
        "rnbqkbnr/ppp1pppp/8/3p4/8/8/PPPPPPPP/RNBQKBNR w KQkq d6 0 2",
        "rnbqkbnr/ppp1pppp/8/3p4/8/8/PPPPPPPP/RNBQKBNR w KQkq d3 0 2",
        "rnbqkbnr/ppp1pppp/8/3p4/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 2",
        "rnbqkbnr/ppp1pppp/3p4/3p4/8/8/PPPPPPPP/RNBQKBNR w KQkq d6 0 2",
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",
        "4k3/8/8/3pP3/8/8/8/4K3 w - e6 0 2",
        "4k3/8/8/3pP3/8/8/8/4K3 w - c6 0 2",
        "4k3/8/8/3pP3/8/8/8/4K3 b - d6 0 1",
        "4k3/8/8/3PP3/8/8/8/4K3 w - d6 0 2",
        "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1",
        "4k3/8/8/8/3pP3/8/8/4K3 b - e6 0 1",
        "4k3/8/8/8/3pP3/8/8/4K3 w - e3 0 1",
        "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2",
        "4k3/6b1/8/3pP3/8/8/1K6/8 w - d6 0 2",
        "4k3/8/8/3pP3/4K3/8/8/8 w - d6 0 2",
        "2b1k3/8/8/3pP3/8/7K/8/8 w - d6 0 2",
        # ep with impossible check (checker is not the pushed pawn and the
        # check would have existed before the push)
        "4k3/8/8/3pP3/8/8/8/r3K3 w - d6 0 2",
        # e.p. capture illegal because of a horizontal pin (still a valid FEN)
        "4k3/8/8/2KpP2r/8/8/8/8 w - d6 0 2",
        # counters
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - - 5 10",
        "4k3/8/8/8/8/8/8/4K3 w - - 150 80",
        "4k3/8/8/8/8/8/8/4K3 w - - -1 1",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 -1",
        "4k3/8/8/8/8/8/8/4K3 w - - a 1",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 b",
        "4k3/8/8/8/8/8/8/4K3 w - - 1.0 1",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1.5",
        "4k3/8/8/8/8/8/8/4K3 w - - - 1",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 -",
        "4k3/8/8/8/8/8/8/4K3 w - - 0x1 1",
        # syntax
        "4k3/8/8/8/8/8/8/4K3 x - - 0 1",
        "4k3/8/8/8/8/8/8/4K3 W - - 0 1",
        "4k3/8/8/8/8/8/8/4K3 B - - 0 1",
        "4k3/8/8/8/8/8/8/4K3 - - - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - e 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - e9 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - i6 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - E6 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - 66 0 1",
        "4k3/8/8/8/8/8/8/4K3 w X - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w kQ - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w KQkqK - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w 0 - 0 1",
        "4k3/8/8/8/8/8/8/4K4 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K2 w - - 0 1",
        "4k3/8/8/8/8/8/8/9 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K3/8 w - - 0 1",
        "4k3/8/8/8/8/8/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K30 w - - 0 1",
        "4k3/8/8/8/8/8/8/4X3 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K3/ w - - 0 1",
        "/4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        "4k3//8/8/8/8/8/8/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/44 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K12 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K3~ w - - 0 1",
        "4k3/8/8/8/8/8/8/4K1Q2 w - - 0 1",
        "4k3/8/8/8/8/8/8/R3K3Q w - - 0 1",
        "4k3/8/8/8/8/8/8/RNBQKBNRR w - - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1",
    ]
    return cases


# FENs where python-chess is lax in ways the Rust side is expected to reject
# (or where python-chess silently normalises); deliberately NOT in the table.
PYTHON_CHESS_QUIRKS = [
    ("4k3/8/8/8/8/8/8/4K3 w Q - 0 1",
     "'Q' without any white rook on the back rank is silently dropped -> status VALID "
     "(whereas 'K' without a rook gives STATUS_BAD_CASTLING_RIGHTS)"),
    ("4k3/8/8/8/8/8/8/4K2R w KK - 0 1", "duplicate castling letters accepted by the castling regex"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1", "Shredder/X-FEN file letters accepted in standard chess"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w QK - 0 1", "castling letters in non-canonical order accepted"),
    ("4k3/8/8/8/8/8/8/4K3 w - - 1_0 1", "counters parsed with Python int(): '1_0' == 10"),
    ("4k3/8/8/8/8/8/8/4K3 w - - +3 1", "counters parsed with Python int(): '+3' == 3"),
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 0", "fullmove 0 accepted and silently replaced by 1"),
    ("4k3/8/8/8/8/8/8/4K3 w - - 100 1", "inconsistent counters (halfmove > plies played) accepted"),
    ("4k3/8/8/8/8/8/8/Q~3K3 w - - 0 1", "'~' promoted-piece marker accepted"),
]


def build_fen_table(games):
    rng = rng_for("fen-validity")
    # (a) a sample of valid positions from the games
    all_fens = []
    seen = set()
    for g in games:
        for p in g["positions"]:
            if p["fen"] not in seen:
                seen.add(p["fen"])
                all_fens.append(p["fen"])
    sample = rng.sample(all_fens, 120)
    starts = []
    for g in games:
        if g["start"] not in starts:
            starts.append(g["start"])
    rows = []
    rows.extend(starts)
    rows.extend(sample)
    rows.extend(handmade_fen_cases())
    # (b) systematic mutations of some valid FENs
    bases = [STANDARD] + [f for _, f, _, _ in TRICKY[:12]] + rng.sample(all_fens, 8)
    for base in bases:
        rows.extend(mutations(base, rng))

    out, seen, skipped = [], set(), []
    for fen in rows:
        if fen in seen:
            continue
        seen.add(fen)
        parts = fen.split(" ")
        assert len(parts) == 6 and all(parts), fen
        # Counters: keep them consistent unless the counter itself is the mutation.
        if parts[4].isdigit() and parts[5].isdigit():
            assert counters_consistent(fen) or fen in dict(PYTHON_CHESS_QUIRKS), fen
        if is_castling_quirk(fen) and classify_fen(fen) == "ok":
            skipped.append(fen)
            continue
        out.append({"fen": fen, "python_chess": classify_fen(fen)})
    return out, skipped


def is_castling_quirk(fen):
    """python-chess silently drops some castling letters (e.g. 'Q' when there is
    no white rook on the back rank at all) or merges duplicates.  Such FENs are
    left out of the table when python-chess would call them "ok", because a
    strict parser rejects them (when python-chess already reports them invalid,
    the verdict agrees and they are kept)."""
    try:
        board = chess.Board(fen)
    except ValueError:
        return False
    field = fen.split(" ")[2]
    if field == "-":
        return False
    return chess.popcount(board.castling_rights) != len(field)


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------

def dump_line(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=True)


def summarize(games, table):
    n_pos = sum(len(g["positions"]) for g in games)
    terms = collections.Counter()
    stats = collections.Counter()
    max_reps = 0
    for g in games:
        for p in g["positions"]:
            if p["outcome"]:
                terms[p["outcome"]["termination"]] += 1
            stats["can_claim_threefold"] += p["can_claim_threefold"]
            stats["can_claim_fifty"] += p["can_claim_fifty"]
            stats["fifty_now"] += p["fifty_now"]
            stats["threefold_now"] += p["threefold_now"]
            stats["check"] += p["check"]
            stats["repetitions>=3"] += p["repetitions"] >= 3
            stats["repetitions>=2"] += p["repetitions"] >= 2
            max_reps = max(max_reps, p["repetitions"])
            stats["insufficient_white"] += p["insufficient"]["white"]
            stats["insufficient_black"] += p["insufficient"]["black"]
            b = chess.Board(p["fen"])
            stats["ep_moves_in_legal_lists"] += sum(1 for m in b.legal_moves if b.is_en_passant(m))
            stats["castling_moves_in_legal_lists"] += sum(1 for m in b.legal_moves if b.is_castling(m))
            stats["underpromotions_in_legal_lists"] += sum(
                1 for m in b.legal_moves if m.promotion and m.promotion != chess.QUEEN)
            stats["positions_with_ep_in_fen"] += b.ep_square is not None
    kinds = collections.Counter(r["python_chess"].split(":")[0] for r in table)
    return {
        "games": len(games),
        "positions": n_pos,
        "moves": sum(len(g["moves"]) for g in games),
        "terminations": dict(sorted(terms.items())),
        "stats": dict(sorted(stats.items())),
        "max_repetitions": max_reps,
        "fen_table": dict(sorted(kinds.items())),
        "fen_lines": len(table),
    }


README_TEMPLATE = """# Chess rules fixtures

Generated by `tools/gen_chess_fixture.py` with python-chess {version}
(deterministic; regenerate from the repository root with

    python3 tools/gen_chess_fixture.py

which rewrites all three files in this directory).

## games.jsonl

{games} games, {positions} positions ({moves} moves), one game per line:

    {{"id": "random-3", "start": "<6-field FEN>", "moves": ["e2e4", ...],
     "positions": [ ... ]}}

`moves` are python-chess standard UCI (castling as `e1g1`, promotions as
`e7e8q`).  `positions[0]` is the start position, `positions[i]` the position
after `moves[:i]`.  A game stops when `board.outcome(claim_draw=False)` is not
None (that final position is included) or at its ply cap (then the last
position's `outcome` is null).  Start FENs have 6 fields and consistent
counters (fullmove >= 1, halfmove <= 2*(fullmove-1) + (1 if black to move)).
Repetition history starts at the start FEN (no earlier history).

Each position:

| field | meaning |
|---|---|
| fen | `board.fen()` (python-chess default: the e.p. square is written only if an e.p. capture is legal) |
| uci | sorted legal moves, `move.uci()` |
| san | sorted legal moves, `board.san(m)` (with `+`/`#`; e.p. has no suffix; castling `O-O`/`O-O-O`) |
| check | `board.is_check()` |
| outcome | null or `{{"termination": "checkmate" / "stalemate" / "insufficient_material" / "seventyfive_moves" / "fivefold_repetition", "winner": "white" / "black" / null}}` from `board.outcome(claim_draw=False)` |
| fifty_now | `board.is_fifty_moves()` (halfmove clock >= 100 and a legal move exists) |
| threefold_now | the current transposition key occurred >= 3 times in the game including now (== `board.is_repetition(3)`) |
| can_claim_fifty | `board.can_claim_fifty_moves()` |
| can_claim_threefold | `board.can_claim_threefold_repetition()` |
| repetitions | occurrences of the current transposition key in the game so far, including now (>= 1) |
| insufficient | `{{"white": board.has_insufficient_material(WHITE), "black": ...(BLACK)}}` |

Transposition key = piece placement, side to move, castling rights, and the
e.p. square only if an e.p. capture is legal (python-chess `_transposition_key`).

Game families (ids): `random-N` uniform random from the start position;
`biased-N` prefer mates, e.p., castling, promotions, captures, checks;
`lopsided-N` one side greedy (mates, material, restricting the enemy king),
the other uniform random;
`repetition-N` shuffle pieces back and forth; `clock-N` start at a high
half-move clock and avoid zeroing moves; `tricky-*` hand-made start FENs
(e.p. pins/checks, castling edge cases, promotions, material draws, clock
edges 98/99/100/148/149/150, mate/stalemate on the move reaching 150) plus the
chessprogramming.org perft positions 2-6 and a sample of
/work/shared/reference/chess/perftsuite.epd.

Terminations over all positions: {terminations}.
Other counts: {stats}; max repetitions {max_reps}.

## fen_validity.jsonl

{fen_lines} lines `{{"fen": ..., "python_chess": ...}}` where `python_chess` is

* `"ok"`: `chess.Board(fen)` succeeded and `board.is_valid()`;
* `"error: <text>"`: the constructor raised `ValueError` (text = `str(e)`);
* `"invalid: <flags>"`: constructed but `board.status() != STATUS_VALID`;
  flags are the `STATUS_*` names joined with `|` in ascending bit order.

Counts: {fen_table}.  All lines are 6 space-separated fields.  Sources: start
FENs and a sample of positions of games.jsonl, hand-written cases and
systematic mutations (bad rank lengths, 7/9 ranks, bad letters, king count,
back-rank pawns, side not to move in check, castling rights without
rook/king, bad e.p. squares, bad turn letters, negative / non-numeric
counters, too many pieces/pawns, impossible/triple checks).  Counters are kept
consistent except where the counter itself is the mutation.

Deliberately excluded (python-chess is more lenient than a strict FEN parser):
{quirks}
## chess960.jsonl and chess960.epd

`chess960.jsonl` is written by `tools/gen_chess960_fixture.py` (python-chess's
`Board(chess960=True)`), in the format of games.jsonl plus `start_shredder`
(the start as Shredder-FEN) and, for a numbered start, `start_number`: 40
numbered starts with castling preferred and ten hand-made castling cases.
Positions are X-FEN; castling is UCI king takes rook (`e1h1`).

`chess960.epd` holds the published perft counts of 960 Chess960 positions
(one from each start, depths 1-6, Shredder-FEN) from
https://www.chessprogramming.org/Chess960_Perft_Results, one line each:
`FEN;count at depth 1;...;count at depth 6`.
"""


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    games = build_games()
    table, skipped = build_fen_table(games)
    summary = summarize(games, table)

    with open(os.path.join(OUT_DIR, "games.jsonl"), "w") as f:
        for g in games:
            f.write(dump_line(g) + "\n")
    with open(os.path.join(OUT_DIR, "fen_validity.jsonl"), "w") as f:
        for row in table:
            f.write(dump_line(row) + "\n")
    quirks = "\n".join(
        f"* `{fen}` -> python-chess: {classify_fen(fen)}; {why}"
        for fen, why in PYTHON_CHESS_QUIRKS)
    if skipped:
        quirks += "\n\nGenerated mutations dropped for the castling quirk above:\n" + "\n".join(
            f"* `{fen}` -> python-chess: {classify_fen(fen)}" for fen in skipped)
    with open(os.path.join(OUT_DIR, "README.md"), "w") as f:
        f.write(README_TEMPLATE.format(
            version=chess.__version__, games=summary["games"],
            positions=summary["positions"], moves=summary["moves"],
            terminations=json.dumps(summary["terminations"]),
            stats=json.dumps(summary["stats"]), max_reps=summary["max_repetitions"],
            fen_lines=summary["fen_lines"], fen_table=json.dumps(summary["fen_table"]),
            quirks=quirks))
    json.dump(summary, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
