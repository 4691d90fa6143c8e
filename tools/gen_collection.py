#!/usr/bin/env python3
"""Writes a PGN collection of generated chess and xiangqi games, the same
collection for the same seed.

Every game is a playout: each move drawn at random among the legal ones,
with a bias toward checks and captures, and a mate in one played whenever
there is one, so that a good share of the games ends by the rules
(checkmate, stalemate, insufficient material). The others are cut after a
random number of plies (10-160; xiangqi 10-150) and get a result tag drawn
at random (1-0, 0-1, 1/2-1/2, now and then *).

    python3 -m venv .venv && .venv/bin/pip install -r tools/requirements-history.txt
    .venv/bin/python tools/gen_collection.py --games 2000 --seed 1 --out /tmp/history.pgn
    .venv/bin/python tools/gen_collection.py --games 100000 --seed 1 \\
        --xiangqi-share 0.3 --out /tmp/history-100k.pgn

Chess is played by python-chess. A playout stops at every end python-chess
sees without a claim (checkmate, stalemate, insufficient material, fivefold
repetition, the 75-move rule), so no game goes on past the rules' end. A
tenth of the chess games start from a position reached by a short random
playout (`[SetUp "1"]`, `[FEN ...]`).

Xiangqi (`[Variant "xiangqi"]`) is played by this script's own move
generator and refereed by pyffish (variant "xiangqi"): for every game,
pyffish confirms the legal moves of the final position and of
--xiangqi-checks random earlier ones, the final board, and the end (no
legal move: the side to move loses; bare material: a draw). pyffish builds
its position anew for each call (about a millisecond), too slow to be asked
about every move of 100,000 games. Moves are written in ICCS coordinates
(`h2e2`: files a-i, ranks 0-9 from Red's side; pyffish numbers ranks 1-10).
A playout stops before the repetition rules or the move limit could judge
the game: at a position the game has seen before, after 100 plies without
a capture (the Asian rules draw at 120), and at 150 plies.

Each game carries the Seven Tag Roster: Event, Site, Date, Round (the
game's index in the collection, from 0), White and Black (from a pool of
3,600 names, some with non-ASCII letters), Result. About 3% of the games
have comments (some over several lines), NAGs, move suffixes (chess),
variations and `;` comments in their movetext. A summary goes to stderr.
Each game depends only on the seed, its index and --xiangqi-share: a shorter
collection is the start of a longer one. 100,000 games (60 MB) take
about 500 s of one core; about a quarter end by the rules.

Only the standard library, python-chess and pyffish are needed.
"""

import argparse
import collections
import random
import sys
import time

import chess
import pyffish

# ---------------------------------------------------------------- tags

FIRST = [
    "Anna", "Ben", "Chen", "Dmitri", "Élodie", "Farid", "Greta", "Hiro", "Ines", "Jürgen",
    "Kamala", "Lars", "Maëlle", "Nikolai", "Olufemi", "Paola", "Quentin", "Rosa", "Søren",
    "Tomás", "Ulla", "Viktor", "Wen", "Xavier", "Yusuf", "Zoë", "Łukasz", "Ana María",
    "Björn", "Çağlar", "Dương", "Eamon", "Fatima", "Gökhan", "Hélène", "Ivana", "José",
    "Kateřina", "Li", "Mårten", "Nadia", "Ólafur", "Priya", "Rafał", "Sébastien", "Tanja",
    "Uwe", "Vesna", "Władysław", "Yara", "Ahmed", "Bongani", "Carmen", "Deniz", "Erik",
    "Françoise", "Giulia", "Hanna", "Ilse", "Ngọc",
]
LAST = [
    "Smith", "Müller", "Wang", "Ivanov", "García", "Nakamura", "Kowalski", "Öztürk",
    "Nguyễn", "Lefèvre", "Søndergaard", "Petrović", "Dvořák", "O'Brien", "Andersson",
    "Rossi", "Kim", "Haddad", "Fernández", "Novák", "Zhang", "Silva", "Jansen", "Papadopoulos",
    "Horváth", "Kaya", "Lindqvist", "Moreau", "Nowak", "Popescu", "Quispe", "Ramírez",
    "Schäfer", "Tanaka", "Usmanov", "Virtanen", "Wójcik", "Xu", "Yılmaz", "Zieliński",
    "Abebe", "Bauer", "Castro", "Dubois", "Eriksen", "Fischer", "Gómez", "Hoffmann",
    "Ishikawa", "Jovanović", "König", "Liu", "Mendoza", "Nielsen", "Okafor", "Park",
    "Říha", "Straße", "Takács", "Ulrich",
]
NAMES = [f"{last}, {first}" for last in LAST for first in FIRST]
EVENTS = [
    "Club Championship", "Spring Open", "Blitz Arena", "Online Rapid", "Tournoi d'été",
    "Stadtmeisterschaft", "Campeonato Regional", "象棋公开赛", "Team League", "Casual games",
    "Training match", "Memorial Ödön", "Weekend Swiss", "Simul", "Correspondence Cup",
]
SITES = [
    "Zürich SUI", "Kraków POL", "北京 CHN", "São Paulo BRA", "Reykjavík ISL", "London ENG",
    "Hà Nội VIE", "Göteborg SWE", "Online", "?", "Paris FRA", "Chennai IND", "Ankara TUR",
]
EXTRA_TAGS = [("TimeControl", "300+2"), ("Annotator", "Ödön"), ("Mode", "OTB"), ("WhiteElo", "1850")]
COMMENTS = [
    "A bold choice", "Très bien joué", "Sharp!", "Zeitnot", "The only move",
    "紅方佔優", "An idea of Ölçer's", "Both sides have chances",
]


def date(rng):
    r = rng.random()
    if r < 0.02:
        return "????.??.??"
    year = rng.randint(1985, 2026)
    if r < 0.07:
        return f"{year}.??.??"
    return f"{year}.{rng.randint(1, 12):02d}.{rng.randint(1, 28):02d}"


def cut_result(rng):
    r = rng.random()
    if r < 0.05:
        return "*"
    return rng.choice(["1-0", "0-1", "1/2-1/2"])


def pick(rng, moves, checks, captures):
    """A move: a check, a capture or any move, each with some chance."""
    r = rng.random()
    if checks and r < 0.3:
        return rng.choice(checks)
    if captures and r < 0.7:
        return rng.choice(captures)
    return rng.choice(moves)


# ---------------------------------------------------------------- chess


def chess_pick(board, moves, rng):
    """The move to play among the legal `moves`. Only the moves that may
    give check are asked (python-chess's gives_check plays the move): those
    landing where their piece would attack the king, castling, en passant,
    and the moves of a piece that stands on a line from the king (a
    discovered check)."""
    king = board.king(not board.turn)
    occupied = board.occupied
    diagonal = chess.BB_DIAG_ATTACKS[king][chess.BB_DIAG_MASKS[king] & occupied]
    straight = (chess.BB_RANK_ATTACKS[king][chess.BB_RANK_MASKS[king] & occupied]
                | chess.BB_FILE_ATTACKS[king][chess.BB_FILE_MASKS[king] & occupied])
    reach = [0, chess.BB_PAWN_ATTACKS[not board.turn][king], chess.BB_KNIGHT_ATTACKS[king], diagonal,
             straight, diagonal | straight, 0]
    lines = diagonal | straight
    checks, captures = [], []
    for move in moves:
        kind = move.promotion or board.piece_type_at(move.from_square)
        maybe = (chess.BB_SQUARES[move.to_square] & reach[kind] or chess.BB_SQUARES[move.from_square] & lines
                 or (kind == chess.KING and abs(move.to_square - move.from_square) == 2)
                 or (kind == chess.PAWN and move.to_square == board.ep_square))
        if maybe and board.gives_check(move):
            board.push(move)
            mate = not any(board.generate_legal_moves())
            board.pop()
            if mate:
                return move
            checks.append(move)
        elif board.is_capture(move):
            captures.append(move)
    return pick(rng, moves, checks, captures)


def chess_end(board, moves):
    """('1-0' etc., the ending) when the rules end the game here (`moves`:
    the legal ones), else None."""
    if not moves:
        if board.is_check():
            return ("0-1" if board.turn == chess.WHITE else "1-0"), "checkmate"
        return "1/2-1/2", "stalemate"
    if board.is_insufficient_material():
        return "1/2-1/2", "insufficient material"
    if board.halfmove_clock >= 150:
        return "1/2-1/2", "75-move rule"
    if board.halfmove_clock >= 16 and board.is_fivefold_repetition():
        return "1/2-1/2", "fivefold repetition"
    return None


def chess_game(rng, stats):
    """(start FEN or None, SAN moves, result)."""
    board = chess.Board()
    fen = None
    if rng.random() < 0.1:
        # A custom start: a short random playout that does not end the game.
        for _ in range(rng.randint(2, 16)):
            board.push(rng.choice(list(board.legal_moves)))
            if board.outcome(claim_draw=False) is not None:
                board.pop()
                break
        fen = board.fen()
        board = chess.Board(fen)
        stats["custom start"] += 1
    target = rng.randint(10, 160)
    sans = []
    while True:
        moves = list(board.legal_moves)
        result = chess_end(board, moves)
        if result or len(sans) >= target:
            break
        move = chess_pick(board, moves, rng)
        sans.append(board.san(move))
        board.push(move)
    if result is None:
        text = cut_result(rng)
        stats["cut " + text] += 1
    else:
        text = result[0]
        stats[result[1]] += 1
    return fen, sans, text


def chess_alternative(fen, sans, ply, rng):
    """Another legal move than `sans[ply]` at that ply, as SAN, or None."""
    board = chess.Board(fen) if fen else chess.Board()
    for san in sans[:ply]:
        board.push_san(san)
    others = [m for m in board.legal_moves if board.san(m) != sans[ply]]
    return board.san(rng.choice(others)) if others else None


# ---------------------------------------------------------------- xiangqi

# Squares: rank * 9 + file, files a-i = 0-8, ranks 0-9 from Red's side (ICCS).
# Pieces as in FEN: Red upper case, Black lower case; '.' an empty square.
RED, BLACK = 0, 1
XQ_START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"


def _on(f, r):
    return 0 <= f < 9 and 0 <= r < 10


def _tables():
    rays, horse, horse_checkers = [], [], [[] for _ in range(90)]
    king = [[[] for _ in range(90)] for _ in range(2)]
    advisor = [[[] for _ in range(90)] for _ in range(2)]
    elephant = [[[] for _ in range(90)] for _ in range(2)]
    pawn = [[[] for _ in range(90)] for _ in range(2)]
    pawn_checkers = [[[] for _ in range(90)] for _ in range(2)]
    lines, diagonal = [], []

    def palace(side, f, r):
        return 3 <= f <= 5 and (0 <= r <= 2 if side == RED else 7 <= r <= 9)

    for s in range(90):
        f, r = s % 9, s // 9
        rays.append([[g * 9 + f for g in range(r + 1, 10)], [g * 9 + f for g in range(r - 1, -1, -1)],
                     [r * 9 + g for g in range(f + 1, 9)], [r * 9 + g for g in range(f - 1, -1, -1)]])
        lines.append({t for t in range(90) if t != s and (t % 9 == f or t // 9 == r)})
        diagonal.append({(r + dr) * 9 + f + df for dr in (-1, 1) for df in (-1, 1) if _on(f + df, r + dr)})
        steps = []
        for df, dr in ((1, 2), (-1, 2), (1, -2), (-1, -2), (2, 1), (2, -1), (-2, 1), (-2, -1)):
            if _on(f + df, r + dr):
                # The leg: the square next to the horse toward the long side.
                leg = (r + dr // 2) * 9 + f if abs(dr) == 2 else r * 9 + f + df // 2
                steps.append(((r + dr) * 9 + f + df, leg))
        horse.append(steps)
        for to, leg in steps:
            horse_checkers[to].append((s, leg))
        for side in (RED, BLACK):
            if palace(side, f, r):
                king[side][s] = [(r + dr) * 9 + f + df for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1))
                                 if palace(side, f + df, r + dr)]
                advisor[side][s] = [(r + dr) * 9 + f + df for df in (-1, 1) for dr in (-1, 1)
                                    if palace(side, f + df, r + dr)]
            own_half = (lambda rr: rr <= 4) if side == RED else (lambda rr: rr >= 5)
            if own_half(r):
                elephant[side][s] = [((r + dr) * 9 + f + df, (r + dr // 2) * 9 + f + df // 2)
                                     for df in (-2, 2) for dr in (-2, 2)
                                     if _on(f + df, r + dr) and own_half(r + dr)]
            forward = 1 if side == RED else -1
            crossed = r >= 5 if side == RED else r <= 4
            targets = [(r + forward) * 9 + f] if _on(f, r + forward) else []
            if crossed:
                targets += [r * 9 + f + df for df in (-1, 1) if _on(f + df, r)]
            pawn[side][s] = targets
            for t in targets:
                pawn_checkers[side][t].append(s)
    return rays, lines, diagonal, horse, horse_checkers, king, advisor, elephant, pawn, pawn_checkers


(RAYS, LINES, DIAGONAL, HORSE, HORSE_CHECKERS, KING, ADVISOR, ELEPHANT, PAWN,
 PAWN_CHECKERS) = _tables()
HORSE_REACH = [{h for h, _ in HORSE_CHECKERS[s]} for s in range(90)]
PIECES = [dict(zip("RNBAKCP", "RNBAKCP")), dict(zip("RNBAKCP", "rnbakcp"))]


def xq_board(fen):
    board = ["."] * 90
    for i, row in enumerate(fen.split()[0].split("/")):
        f = 0
        for c in row:
            if c.isdigit():
                f += int(c)
            else:
                board[(9 - i) * 9 + f] = c
                f += 1
    return board


def xq_fen_board(board):
    rows = []
    for r in range(9, -1, -1):
        row, empty = "", 0
        for f in range(9):
            c = board[r * 9 + f]
            if c == ".":
                empty += 1
            else:
                row += (str(empty) if empty else "") + c
                empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


def xq_attacked(board, k, by):
    """Whether side `by` attacks square k (the generals facing each other
    count, as the general on k would be "attacked")."""
    p = PIECES[by]
    rook, cannon, king, horse, soldier = p["R"], p["C"], p["K"], p["N"], p["P"]
    for d, ray in enumerate(RAYS[k]):
        screen = False
        for t in ray:
            q = board[t]
            if q == ".":
                continue
            if not screen:
                if q == rook or (q == king and d < 2):
                    return True
                screen = True
            else:
                if q == cannon:
                    return True
                break
    for h, leg in HORSE_CHECKERS[k]:
        if board[h] == horse and board[leg] == ".":
            return True
    for s in PAWN_CHECKERS[by][k]:
        if board[s] == soldier:
            return True
    return False


def xq_pseudo(board, side):
    """Pseudo-legal moves of `side` as (from, to)."""
    own = str.isupper if side == RED else str.islower
    out = []
    for s in range(90):
        c = board[s]
        if c == "." or not own(c):
            continue
        kind = c.upper()
        if kind == "R":
            for ray in RAYS[s]:
                for t in ray:
                    q = board[t]
                    if q == ".":
                        out.append((s, t))
                    else:
                        if not own(q):
                            out.append((s, t))
                        break
        elif kind == "C":
            for ray in RAYS[s]:
                screen = False
                for t in ray:
                    q = board[t]
                    if not screen:
                        if q == ".":
                            out.append((s, t))
                        else:
                            screen = True
                    elif q != ".":
                        if not own(q):
                            out.append((s, t))
                        break
        elif kind == "N":
            for t, leg in HORSE[s]:
                if board[leg] == "." and not own(board[t]):
                    out.append((s, t))
        elif kind == "B":
            for t, eye in ELEPHANT[side][s]:
                if board[eye] == "." and not own(board[t]):
                    out.append((s, t))
        else:
            table = ADVISOR if kind == "A" else KING if kind == "K" else PAWN
            for t in table[side][s]:
                if not own(board[t]):
                    out.append((s, t))
    return out


def xq_legal(board, side, kings, first_only=False):
    """Legal moves of `side` (kings: the generals' squares): pseudo-legal
    moves that leave its general unattacked. A move that is not the
    general's, made out of check, can only expose the general by touching
    its rank or file, or by freeing a horse's leg next to it: the others
    are legal as they are."""
    other = 1 - side
    k = kings[side]
    in_check = xq_attacked(board, k, other)
    line, diagonal = LINES[k], DIAGONAL[k]
    king = PIECES[side]["K"]
    out = []
    for fr, to in xq_pseudo(board, side):
        p = board[fr]
        if not in_check and p != king and fr not in line and to not in line and fr not in diagonal:
            ok = True
        else:
            taken = board[to]
            board[to], board[fr] = p, "."
            ok = not xq_attacked(board, to if p == king else k, other)
            board[fr], board[to] = p, taken
        if ok:
            if first_only:
                return [(fr, to)]
            out.append((fr, to))
    return out


def xq_gives_check(board, move, side, kings):
    fr, to = move
    e = kings[1 - side]
    p = board[fr]
    # A soldier checks from a square next to the general: on its rank or file.
    if not (to in LINES[e] or fr in LINES[e] or fr in DIAGONAL[e]
            or (p in "Nn" and to in HORSE_REACH[e])):
        return False
    taken = board[to]
    board[to], board[fr] = p, "."
    check = xq_attacked(board, e, side)
    board[fr], board[to] = p, taken
    return check


def xq_make(board, move, kings):
    fr, to = move
    p = board[fr]
    taken = board[to]
    board[to], board[fr] = p, "."
    if p in "Kk":
        kings[0 if p == "K" else 1] = to
    return taken


def xq_unmake(board, move, kings, taken):
    fr, to = move
    p = board[to]
    board[fr], board[to] = p, taken
    if p in "Kk":
        kings[0 if p == "K" else 1] = fr


def iccs(move):
    fr, to = move
    return f"{'abcdefghi'[fr % 9]}{fr // 9}{'abcdefghi'[to % 9]}{to // 9}"


def fsf(move):
    fr, to = move
    return f"{'abcdefghi'[fr % 9]}{fr // 9 + 1}{'abcdefghi'[to % 9]}{to // 9 + 1}"


def bare(board, side):
    """No chariot, horse, cannon or soldier: the side cannot win."""
    p = PIECES[side]
    return not any(c in (p["R"], p["N"], p["C"], p["P"]) for c in board)


def xiangqi_game(rng, checks, stats):
    """(ICCS moves, result); refereed by pyffish (see the docstring)."""
    board = xq_board(XQ_START)
    kings = [board.index("K"), board.index("k")]
    side = RED
    target = rng.randint(10, 150)
    moves, seen = [], {"".join(board) + "0"}
    halfmoves = 0
    result = None
    repeated = False
    check_at = {rng.randrange(target) for _ in range(checks)}
    confirmed = {}
    while True:
        legal = xq_legal(board, side, kings)
        if len(moves) in check_at:
            confirmed[len(moves)] = legal
        if not legal:
            result = ("0-1" if side == RED else "1-0", "checkmate" if xq_attacked(board, kings[side], 1 - side)
                      else "stalemate")
            break
        if bare(board, RED) and bare(board, BLACK):
            result = ("1/2-1/2", "insufficient material")
            break
        if repeated or len(moves) >= target or halfmoves >= 100:
            break
        mates, checking, captures = None, [], []
        for m in legal:
            if xq_gives_check(board, m, side, kings):
                taken = xq_make(board, m, kings)
                mate = not xq_legal(board, 1 - side, kings, first_only=True)
                xq_unmake(board, m, kings, taken)
                if mate:
                    mates = m
                    break
                checking.append(m)
            elif board[m[1]] != ".":
                captures.append(m)
        move = mates or pick(rng, legal, checking, captures)
        taken = xq_make(board, move, kings)
        halfmoves = 0 if taken != "." else halfmoves + 1
        moves.append(move)
        side = 1 - side
        key = "".join(board) + str(side)
        repeated = key in seen
        seen.add(key)
    # pyffish referees: the final position and the sampled ones.
    history = [fsf(m) for m in moves]
    confirmed[len(moves)] = legal
    for ply, mine in confirmed.items():
        theirs = set(pyffish.legal_moves("xiangqi", XQ_START, history[:ply]))
        if theirs != {fsf(m) for m in mine}:
            raise SystemExit(f"xiangqi move generator disagrees with pyffish after {history[:ply]}: "
                             f"{sorted(theirs)} != {sorted(fsf(m) for m in mine)}")
    theirs = pyffish.get_fen("xiangqi", XQ_START, history).split()[0]
    if theirs != xq_fen_board(board):
        raise SystemExit(f"xiangqi board differs from pyffish's after {history}")
    if result is None:
        text = cut_result(rng)
        stats["cut " + text] += 1
    else:
        if result[1] == "insufficient material":
            assert pyffish.has_insufficient_material("xiangqi", XQ_START, history) == (True, True)
        else:
            # No legal move: pyffish scores the side to move's loss.
            assert pyffish.game_result("xiangqi", XQ_START, history) < 0
        text = result[0]
        stats["xiangqi " + result[1]] += 1
    return [iccs(m) for m in moves], text


# ---------------------------------------------------------------- PGN


def movetext(tokens):
    """Tokens (a ';' comment ends its line) wrapped before 80 characters."""
    lines, line = [], ""
    for token in tokens:
        if "\n" in token:
            # A comment over several lines.
            head, *rest = token.split("\n")
            line = f"{line} {head}" if line else head
            lines.append(line)
            lines.extend(rest[:-1])
            line = rest[-1]
            continue
        if line and len(line) + 1 + len(token) > 79:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
        if token.startswith(";"):
            lines.append(line)
            line = ""
    if line:
        lines.append(line)
    return "\n".join(lines)


def annotate(rng, plies, alternative):
    """Comments, NAGs, suffixes and variations at random plies: a dict ply ->
    (suffix, tokens after the move)."""
    notes = {}
    for _ in range(rng.randint(1, 4)):
        if not plies:
            break
        ply = rng.randrange(len(plies))
        r = rng.random()
        if r < 0.3:
            note = ("", ["{" + rng.choice(COMMENTS) + "}"])
        elif r < 0.45:
            note = ("", ["{" + rng.choice(COMMENTS) + "\n[%s] a line starting with a bracket}" % rng.choice(NAMES)])
        elif r < 0.65:
            note = ("", [f"${rng.randint(1, 19)}"])
        elif r < 0.75:
            note = (rng.choice(["!", "?", "!?", "?!", "!!"]), [])
        elif r < 0.9:
            alt = alternative(ply)
            note = ("", [f"({alt})"] if alt else [])
        else:
            note = ("", ["; " + rng.choice(COMMENTS)])
        notes[ply] = note
    return notes


def game_text(index, rng, xiangqi_share, checks, stats):
    tags = [
        ("Event", rng.choice(EVENTS)),
        ("Site", rng.choice(SITES)),
        ("Date", date(rng)),
        ("Round", str(index)),
        ("White", rng.choice(NAMES)),
        ("Black", rng.choice(NAMES)),
    ]
    annotated = rng.random() < 0.03
    fen = None
    if rng.random() < xiangqi_share:
        stats["xiangqi"] += 1
        plies, result = xiangqi_game(rng, checks, stats)
        extra = [("Variant", "xiangqi")]
        suffixes_ok = False

        def alternative(ply):
            board = xq_board(XQ_START)
            kings = [board.index("K"), board.index("k")]
            side = RED
            for text in plies[:ply]:
                xq_make(board, ("abcdefghi".index(text[0]) + 9 * int(text[1]),
                                "abcdefghi".index(text[2]) + 9 * int(text[3])), kings)
                side = 1 - side
            others = [iccs(m) for m in xq_legal(board, side, kings) if iccs(m) != plies[ply]]
            return rng.choice(others) if others else None
        first_white, number = True, 1
    else:
        stats["chess"] += 1
        fen, plies, result = chess_game(rng, stats)
        extra = [("SetUp", "1"), ("FEN", fen)] if fen else []
        suffixes_ok = True

        def alternative(ply):
            alt = chess_alternative(fen, plies, ply, rng)
            if alt is None:
                return None
            white = first_white == (ply % 2 == 0)
            n = number + (ply + (0 if first_white else 1)) // 2
            return f"{n}. {alt}" if white else f"{n}... {alt}"
        first_white = fen is None or fen.split()[1] == "w"
        number = 1 if fen is None else int(fen.split()[5])
    tags.append(("Result", result))
    tags += extra
    if rng.random() < 0.05:
        tags.append(rng.choice(EXTRA_TAGS))
    notes = {}
    if annotated:
        stats["annotated"] += 1
        notes = annotate(rng, plies, alternative)
    tokens = []
    if annotated and rng.random() < 0.2:
        tokens.append("{Game notes}")
    for ply, move in enumerate(plies):
        white = first_white == (ply % 2 == 0)
        n = number + (ply + (0 if first_white else 1)) // 2
        if white:
            tokens.append(f"{n}.")
        elif ply == 0:
            tokens.append(f"{n}...")
        suffix, after = notes.get(ply, ("", []))
        tokens.append(move + (suffix if suffixes_ok else ""))
        tokens.extend(after)
    tokens.append(result)
    head = "\n".join(f'[{name} "{value}"]' for name, value in tags)
    return f"{head}\n\n{movetext(tokens)}\n\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--xiangqi-share", type=float, default=0.3)
    parser.add_argument("--xiangqi-checks", type=int, default=1,
                        help="random plies of each xiangqi game whose legal moves pyffish confirms, "
                             "besides the final position (default 1)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    stats = collections.Counter()
    started, cpu = time.monotonic(), time.process_time()
    size = 0
    with open(args.out, "w", encoding="utf-8", newline="\n") as out:
        for index in range(args.games):
            rng = random.Random(f"{args.seed}:{index}")
            text = game_text(index, rng, args.xiangqi_share, args.xiangqi_checks, stats)
            size += len(text.encode())
            out.write(text)
            if index and index % 10000 == 0:
                print(f"  {index} games, {time.monotonic() - started:.0f} s", file=sys.stderr)
    elapsed, cpu = time.monotonic() - started, time.process_time() - cpu
    by_rules = sum(v for k, v in stats.items() if not k.startswith("cut") and k not in
                   ("chess", "xiangqi", "custom start", "annotated"))
    print(f"{args.games} games ({stats['chess']} chess, {stats['xiangqi']} xiangqi), {size / 1e6:.1f} MB "
          f"in {elapsed:.1f} s ({cpu:.1f} s of CPU); {by_rules} ended by the rules", file=sys.stderr)
    print("  " + ", ".join(f"{k}: {v}" for k, v in sorted(stats.items())), file=sys.stderr)


if __name__ == "__main__":
    main()
