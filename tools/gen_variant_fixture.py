#!/usr/bin/env python3
"""Generate tests/fixtures/variants/<key>.jsonl from python-chess's variant boards.

One file per Lichess variant (`crazyhouse`, `antichess`, `atomic`, `horde`,
`kingOfTheHill`, `racingKings`, `threeCheck`), each line one game in the
format of tests/fixtures/chess/games.jsonl (see gen_chess_fixture.py and
tests/fixtures/variants/README.md), played on the `chess.variant` board of
that variant. Positions are `board.fen()` as python-chess writes it
(Crazyhouse pockets in brackets, promoted pieces marked `~`; Three-check with
the remaining checks `3+3` as the fifth field).

Games:
  random-N    from the variant's start, biased towards the variant's own
              moves and ends (drops, explosions, king promotions, checks,
              king marches, races, rank-1 double pushes ...) and towards
              castling, e.p. and promotions
  lopsided-N  one side greedy for the variant's win, the other random
  repetition-N  pieces shuffled back and forth from the start (repetitions)
  clock-0     from a hand-made position at half-move clock 95, zeroing moves
              avoided (the fifty- and seventy-five-move rules)
  tricky-*    hand-made starts next to the variant's special rules

Variant ends (python-chess VARIANT_WIN / VARIANT_LOSS / VARIANT_DRAW) are
named per variant: atomic `explosion`, antichess `all_pieces_lost` (or
`stalemate` with the side that cannot move as winner), King of the Hill
`king_in_the_centre`, Three-check `three_checks`, Racing Kings
`race_finished`, Horde `horde_destroyed`.

How to rerun (deterministic):

    python3 tools/gen_variant_fixture.py

Requires python-chess (generated with 1.11.2).
"""

import collections
import os
import random

import chess
import chess.variant

from gen_chess_fixture import (PIECE_VALUE, counters_consistent,
                               position_record as chess_position_record,
                               creates_ep_chance, dump_line, fix_counters,
                               make_clock_runner, make_shuffler,
                               weighted_choice)

SEED = "arbiter-variant-fixture-v1"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "tests", "fixtures", "variants")

BOARDS = {
    "crazyhouse": chess.variant.CrazyhouseBoard,
    "antichess": chess.variant.AntichessBoard,
    "atomic": chess.variant.AtomicBoard,
    "horde": chess.variant.HordeBoard,
    "kingOfTheHill": chess.variant.KingOfTheHillBoard,
    "racingKings": chess.variant.RacingKingsBoard,
    "threeCheck": chess.variant.ThreeCheckBoard,
}

# The name of a variant's own end (python-chess VARIANT_WIN/LOSS/DRAW).
VARIANT_END = {
    "atomic": "explosion",
    "antichess": "all_pieces_lost",
    "kingOfTheHill": "king_in_the_centre",
    "threeCheck": "three_checks",
    "racingKings": "race_finished",
    "horde": "horde_destroyed",
}

STANDARD_TERMINATIONS = {
    chess.Termination.CHECKMATE: "checkmate",
    chess.Termination.STALEMATE: "stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "insufficient_material",
    chess.Termination.SEVENTYFIVE_MOVES: "seventyfive_moves",
    chess.Termination.FIVEFOLD_REPETITION: "fivefold_repetition",
}

VARIANT_TERMINATIONS = (chess.Termination.VARIANT_WIN,
                        chess.Termination.VARIANT_LOSS,
                        chess.Termination.VARIANT_DRAW)

# Per variant: (random games, lopsided games, ply cap).
PLAN = {
    "crazyhouse": (20, 8, 70),
    "antichess": (26, 8, 200),
    "atomic": (26, 10, 160),
    "horde": (10, 12, 150),
    "kingOfTheHill": (24, 8, 160),
    "racingKings": (28, 8, 120),
    "threeCheck": (24, 8, 160),
}

SIZE_LIMIT = 1_500_000


def rng_for(key, name):
    return random.Random(f"{SEED}/{key}/{name}")


def color_name(color):
    return None if color is None else ("white" if color == chess.WHITE else "black")


# ---------------------------------------------------------------------------
# Position records
# ---------------------------------------------------------------------------

def outcome_record(key, board):
    outcome = board.outcome(claim_draw=False)
    if outcome is None:
        return None
    if outcome.termination in VARIANT_TERMINATIONS:
        name = VARIANT_END[key]
        if key == "antichess" and board.occupied_co[board.turn]:
            # Antichess: the side to move still has pieces but cannot move;
            # it wins.
            assert not any(board.generate_legal_moves()), board.fen()
            assert outcome.winner == board.turn, board.fen()
            name = "stalemate"
    else:
        name = STANDARD_TERMINATIONS[outcome.termination]
    return {"termination": name, "winner": color_name(outcome.winner)}


def position_record(key, board, key_counts):
    """One position, as gen_chess_fixture records it, with the variant's
    ends named by `outcome_record`."""
    return chess_position_record(board, key_counts, lambda b: outcome_record(key, b))


def play_game(key, game_id, start_fen, chooser, cap, prefix=()):
    Board = BOARDS[key]
    start_fen = fix_counters_variant(start_fen)
    board = Board(start_fen)
    assert board.is_valid(), (key, game_id, start_fen, board.status())
    start = board.fen()
    rng = rng_for(key, game_id)
    key_counts = collections.Counter()
    key_counts[board._transposition_key()] += 1
    positions = [position_record(key, board, key_counts)]
    moves = []
    prefix = list(prefix)
    while board.outcome(claim_draw=False) is None and len(moves) < cap:
        if prefix:
            move = chess.Move.from_uci(prefix.pop(0))
            assert move in board.legal_moves, (key, game_id, move, board.fen())
        else:
            move = chooser(board, rng)
        moves.append(move.uci())
        board.push(move)
        key_counts[board._transposition_key()] += 1
        positions.append(position_record(key, board, key_counts))
    assert not prefix, (key, game_id, "prefix not fully played")
    return {"id": game_id, "start": start, "moves": moves,
            "positions": positions}


def fix_counters_variant(fen):
    """gen_chess_fixture.fix_counters, leaving a Three-check `N+N` field in place."""
    parts = fen.split()
    checks = None
    if len(parts) >= 5 and "+" in parts[4]:
        checks = parts.pop(4)
    fixed = fix_counters(" ".join(parts)).split()
    assert counters_consistent(" ".join(fixed)), fen
    if checks is not None:
        fixed.insert(4, checks)
    return " ".join(fixed)


# ---------------------------------------------------------------------------
# Move choosers
# ---------------------------------------------------------------------------

def mover_wins(board, move):
    """The move ends the game in the mover's favour."""
    mover = board.turn
    board.push(move)
    try:
        outcome = board.outcome(claim_draw=False)
        return outcome is not None and outcome.winner == mover
    finally:
        board.pop()


def ends_game(board, move):
    board.push(move)
    try:
        return board.outcome(claim_draw=False) is not None
    finally:
        board.pop()


def king_distance_to_centre(square):
    f, r = chess.square_file(square), chess.square_rank(square)
    return max(max(3 - f, f - 4, 0), max(3 - r, r - 4, 0))


def feature_weight(key, board, m):
    """Base weights as gen_chess_fixture.make_biased, plus each variant's own."""
    w = 1.0
    piece = board.piece_at(m.from_square) if not m.drop else None
    if board.is_en_passant(m):
        w += 60
    if not m.drop and creates_ep_chance(board, m):
        w += 15
    if board.is_castling(m):
        w += 30
    if m.promotion:
        w += 12 if m.promotion == chess.QUEEN else 8
    if board.is_capture(m):
        w += 8
    if key != "antichess" and board.gives_check(m):
        w += 5

    if key == "crazyhouse":
        if m.drop:
            w = 0.25
            rank = chess.square_rank(m.to_square)
            if m.drop == chess.PAWN and rank == (6 if board.turn == chess.WHITE else 1):
                w += 25  # a pawn one step from promoting
            if board.gives_check(m):
                w += 3
        if piece and piece.piece_type == chess.PAWN:
            rank = chess.square_rank(m.to_square)
            if rank in ((5, 6) if board.turn == chess.WHITE else (2, 1)):
                w += 15
        if board.is_capture(m) and board.promoted & chess.BB_SQUARES[m.to_square]:
            w += 40  # a promoted piece goes back to the pocket as a pawn
        if m.promotion:
            w += 40
    elif key == "antichess":
        if m.promotion == chess.KING:
            w += 30
    elif key == "atomic":
        if board.is_capture(m):
            enemy_king = board.king(not board.turn)
            if enemy_king is not None and \
                    chess.BB_KING_ATTACKS[enemy_king] & chess.BB_SQUARES[m.to_square]:
                w += 40
            w += 6
    elif key == "horde":
        if piece and piece.piece_type == chess.PAWN and board.turn == chess.WHITE \
                and chess.square_rank(m.from_square) == 0:
            w += 6
            if abs(m.to_square - m.from_square) == 16:
                w += 20  # double push from the first rank
        if board.turn == chess.BLACK and board.is_capture(m):
            w += 10
    elif key == "kingOfTheHill":
        if piece and piece.piece_type == chess.KING:
            before = king_distance_to_centre(m.from_square)
            after = king_distance_to_centre(m.to_square)
            if after < before:
                w += 12
    elif key == "racingKings":
        if piece and piece.piece_type == chess.KING:
            w += 4
            if chess.square_rank(m.to_square) > chess.square_rank(m.from_square):
                w += 25
    elif key == "threeCheck":
        if board.gives_check(m):
            w += 25
    return w


def make_biased(key, win_prob=0.7):
    def choose(board, rng):
        legal = list(board.legal_moves)
        if rng.random() < win_prob:
            wins = [m for m in legal if mover_wins(board, m)]
            if wins:
                return rng.choice(wins)
        if key == "racingKings" and rng.random() < 0.6:
            # Black answers White's arrival with its own (a drawn race).
            enders = [m for m in legal if ends_game(board, m)]
            if enders:
                return rng.choice(enders)
        items = [(m, feature_weight(key, board, m)) for m in legal]
        return weighted_choice(rng, items)

    return choose


def make_lopsided(key, strong):
    """`strong` plays greedily for the variant's win; the other side randomly."""
    biased = make_biased(key, win_prob=0.95)

    def choose(board, rng):
        legal = list(board.legal_moves)
        if board.turn != strong:
            return rng.choice(legal)
        if key == "antichess":
            # Give material away: prefer moves after which the opponent must
            # capture, and king promotions.
            items = []
            for m in legal:
                w = 1.0 + (30 if m.promotion == chess.KING else 0)
                board.push(m)
                forced = any(board.generate_pseudo_legal_captures())
                board.pop()
                if forced:
                    w += 10
                items.append((m, w))
            if rng.random() < 0.95:
                wins = [m for m in legal if mover_wins(board, m)]
                if wins:
                    return rng.choice(wins)
            return weighted_choice(rng, items)
        if key == "horde" and strong == chess.BLACK:
            wins = [m for m in legal if mover_wins(board, m)]
            if wins:
                return rng.choice(wins)
            items = []
            for m in legal:
                w = 1.0
                captured = board.piece_type_at(m.to_square)
                if captured:
                    w += 20 * max(1, PIECE_VALUE[captured])
                if board.is_attacked_by(chess.WHITE, m.to_square):
                    w *= 0.15
                items.append((m, w))
            return weighted_choice(rng, items)
        return biased(board, rng)

    return choose


# ---------------------------------------------------------------------------
# Hand-made starts
# ---------------------------------------------------------------------------

TRICKY = {
    "crazyhouse": [
        ("drop-mate", "6k1/5ppp/8/8/8/8/5PPP/6K1[Rr] w - - 0 30", ()),
        ("drop-block", "4k3/8/8/8/8/8/8/r3K3[Nn] w - - 0 30", ()),
        ("pawn-drops", "4k3/8/8/8/8/8/8/4K3[PPpp] w - - 0 40", ()),
        ("promote-and-capture", "4k3/1P6/8/8/8/8/6p1/4K2R[] w K - 0 40",
         ("b7b8n", "g2g1q", "h1g1")),
        ("promoted-pieces", "r3k2r/8/8/8/8/8/8/R1Q~1K2q~[Bb] w Qkq - 0 40", ()),
        ("castling-drops", "r3k2r/8/8/8/8/8/8/R3K2R[QNqn] w KQkq - 0 20", ()),
        ("check-no-block", "4k3/8/8/8/8/8/3n4/4K3[Q] w - - 0 20", ()),
    ],
    "antichess": [
        ("king-promotion", "8/P7/8/8/8/8/7p/8 w - - 0 40", ("a7a8k",)),
        ("forced-capture", "8/8/8/3p4/4P3/8/8/8 w - - 0 40", ()),
        ("stalemated-wins", "8/8/8/8/p7/8/P7/8 b - - 0 40", ()),
        ("all-pieces-lost", "8/8/8/8/8/1p6/P7/8 w - - 0 40", ()),
        ("bishops-opposite", "8/8/8/3b4/8/8/8/B7 w - - 0 40", ()),
        ("knights", "8/8/8/8/8/8/1n6/N7 w - - 0 40", ()),
        ("ep-forced", "8/8/8/8/1p6/8/P1P5/8 w - - 0 40", ("c2c4",)),
    ],
    "atomic": [
        ("explode-king", "4k3/3p4/8/8/8/8/8/3RK3 w - - 0 30", ()),
        ("connected-kings", "4r3/8/8/8/3k4/4K3/4P3/8 w - - 0 40", ()),
        ("ep-explosion", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", ()),
        ("castling-near-king", "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 20", ()),
        ("no-self-explosion", "8/8/8/8/8/2kp4/8/3QK3 w - - 0 40", ()),
        ("knight-vs-king", "4k3/8/8/8/8/8/8/4KN2 w - - 0 40", ()),
        ("bishops", "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 40", ()),
        ("mate-or-explode", "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1",
         ("b8c6", "f3g5", "c6d4", "g5f7")),
    ],
    "horde": [
        ("rank1-double", "4k3/8/8/8/8/8/1p6/PPPP4 w - - 0 40", ()),
        ("last-pawn", "4k3/8/8/8/8/8/3q4/4P3 b - - 0 40", ()),
        ("last-piece", "4k3/8/8/8/8/8/8/B2q4 b - - 0 40", ()),
        ("lone-bishop", "4k3/8/8/8/8/8/8/B7 w - - 0 40", ()),
        ("black-castles", "r3k2r/8/8/8/8/P7/PPP5/PPPP4 b kq - 0 40", ()),
        ("ep", "4k3/8/8/8/1p6/8/PPPP4/PPPP4 w - - 0 40", ("a2a4",)),
    ],
    "kingOfTheHill": [
        ("one-step", "4k3/8/8/8/8/3K4/8/8 w - - 0 40", ()),
        ("black-one-step", "8/8/3k4/8/8/8/8/4K3 b - - 0 40", ()),
        ("centre-attacked", "4k3/8/8/8/8/3K4/8/3r4 w - - 0 40", ()),
        ("mate-or-hill", "6rk/8/8/8/8/8/6PP/R5K1 w - - 0 40", ()),
        ("castling", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 20", ()),
    ],
    "racingKings": [
        ("black-equalises", "8/K6k/8/8/8/8/8/8 w - - 0 40", ("a7a8", "h7h8")),
        ("black-too-late", "8/K6k/8/8/8/8/8/8 w - - 0 40", ("a7a8", "h7g6")),
        ("black-cannot-reach", "8/K7/8/8/5k2/8/8/8 w - - 0 40", ()),
        ("goal-guarded", "8/K6k/8/8/8/8/8/1R4R1 w - - 0 40", ()),
        ("black-first", "8/6k1/K7/8/8/8/8/8 b - - 0 40", ()),
        ("no-checks", "8/8/8/8/8/2k5/8/2K1R3 w - - 0 40", ()),
    ],
    "threeCheck": [
        ("third-check", "rnbqkbnr/pppp1ppp/8/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR w KQkq - 1+3 0 3", ()),
        ("black-third", "rnb1kbnr/pppp1ppp/8/4p3/4P2q/8/PPPP1PPP/RNBQKBNR b KQkq - 3+1 1 3", ()),
        ("bare-kings", "4k3/8/8/8/8/8/8/4K3 w - - 2+2 0 40", ()),
        ("mate-beats-checks", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 3+3 0 30", ()),
        ("castling-check", "r3k3/8/8/8/8/8/8/4K2R w K - 1+1 0 20", ()),
    ],
}


# Starts at a high half-move clock for the clock-N games (the clock runner
# avoids zeroing moves): the fifty- and seventy-five-move rules, which
# python-chess does not apply to Crazyhouse.
CLOCK_STARTS = {
    "crazyhouse": "r3k2r/ppp2ppp/2n5/8/8/2N5/PPP2PPP/R3K2R[Bb] w KQkq - 95 60",
    "antichess": "1n4n1/8/8/8/8/8/8/1N4N1 w - - 95 60",
    "atomic": "4k3/8/3n4/8/8/3N4/8/4K3 w - - 95 60",
    "horde": "4k3/8/8/8/8/P7/PPPP4/PPPP2N1 w - - 95 60",
    "kingOfTheHill": "1n2k3/pppp4/8/8/8/8/PPPP4/1N2K3 w - - 95 60",
    "racingKings": "8/8/8/8/8/8/krbn1BRK/qrbn1BRQ w - - 95 60",
    "threeCheck": "r3k3/8/2n5/8/8/2N5/8/R3K3 w Qq - 2+2 95 60",
}


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

def build(key):
    n_random, n_lopsided, cap = PLAN[key]
    start = BOARDS[key]().fen()
    games = []
    for i in range(n_random):
        games.append(play_game(key, f"random-{i}", start, make_biased(key), cap))
    for i in range(n_lopsided):
        strong = chess.WHITE if i % 2 == 0 else chess.BLACK
        if key == "horde":
            strong = chess.BLACK if i % 4 else chess.WHITE
        games.append(play_game(key, f"lopsided-{i}", start,
                               make_lopsided(key, strong), cap))
    for i in range(2):
        games.append(play_game(key, f"repetition-{i}", start,
                               make_shuffler(), 40))
    games.append(play_game(key, "clock-0", CLOCK_STARTS[key],
                           make_clock_runner(), 70))
    for name, fen, prefix in TRICKY[key]:
        games.append(play_game(key, f"tricky-{name}", fen, make_biased(key), 60,
                               prefix))
    return games


def stats(key, games):
    terms = collections.Counter()
    counts = collections.Counter()
    for g in games:
        for p in g["positions"]:
            if p["outcome"]:
                terms[f'{p["outcome"]["termination"]}/{p["outcome"]["winner"]}'] += 1
            counts["check"] += p["check"]
            counts["ep_in_fen"] += p["fen"].split()[3] != "-"
            counts["castling_moves"] += sum(s.startswith("O-O") for s in p["san"])
            counts["promotions"] += sum("=" in s for s in p["san"])
            counts["king_promotions"] += sum("=K" in s for s in p["san"])
            counts["drops"] += sum("@" in s for s in p["uci"])
            counts["promoted_in_fen"] += "~" in p["fen"]
            counts["repetitions>=2"] += p["repetitions"] >= 2
            counts["insufficient"] += p["insufficient"]["white"] or p["insufficient"]["black"]
        for i, m in enumerate(g["moves"]):
            counts["drops_played"] += "@" in m
            if key == "horde":
                before = g["positions"][i]["fen"]
                # a White pawn double push from rank 1
                if m[1] == "1" and m[3] == "3":
                    row = before.split()[0].split("/")[7]
                    file = ord(m[0]) - ord("a")
                    col = 0
                    for c in row:
                        if c.isdigit():
                            col += int(c)
                        else:
                            if col == file and c == "P":
                                counts["rank1_double_pushes"] += 1
                            col += 1
    return terms, counts


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    summary = {}
    for key in BOARDS:
        games = build(key)
        path = os.path.join(OUT_DIR, f"{key}.jsonl")
        with open(path, "w") as f:
            for g in games:
                f.write(dump_line(g) + "\n")
        size = os.path.getsize(path)
        n_pos = sum(len(g["positions"]) for g in games)
        terms, counts = stats(key, games)
        summary[key] = {"games": len(games), "positions": n_pos, "bytes": size,
                        "terminations": dict(sorted(terms.items())),
                        "counts": dict(sorted(counts.items()))}
        print(f"{key}: {len(games)} games, {n_pos} positions, {size} bytes")
        print(f"  terminations {dict(sorted(terms.items()))}")
        print(f"  counts {dict(sorted(counts.items()))}")
        assert size <= SIZE_LIMIT, (key, size)
    return summary


if __name__ == "__main__":
    main()
