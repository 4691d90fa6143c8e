#!/usr/bin/env python3
"""Engine-vs-engine matches over UCI, refereed by the reference rules libraries.

Plays the engine under test (by default `arbiter uci`) against an opponent
engine, game pairs from a file of openings (each opening once with each
colour), and reports W/D/L from the engine's point of view, the score, the
Elo difference with a 95% error bar, and the engine's average nodes/s.

    # chess against Stockfish limited to 2000 Elo
    python3 tools/match.py --variant chess --engine "target/release/arbiter uci" \
        --opponent stockfish --opponent-option UCI_LimitStrength=true \
        --opponent-option UCI_Elo=2000 --movetime 100 --games 20 --pgn chess.pgn

    # xiangqi against Fairy-Stockfish at skill level 0
    python3 tools/match.py --variant xiangqi --engine "target/release/arbiter uci" \
        --opponent fairy-stockfish --opponent-option "Skill Level=0" \
        --movetime 100 --games 20 --pgn xiangqi.pgn

    # xiangqi self-play at a fixed number of nodes (deterministic searches:
    # openings from tools/gen_xiangqi_openings.py keep the games apart)
    python3 tools/match.py --variant xiangqi --engine "new/arbiter uci" \
        --opponent "old/arbiter uci" --nodes 25000 --games 200 \
        --xiangqi-move-rule 120 --openings tools/openings/xiangqi-selfplay.txt

The rules are never the engines' word: chess is adjudicated by python-chess
(`board.outcome(claim_draw=True)` after every move), xiangqi by pyffish
(no legal move -> `game_result`; `is_optional_game_end` for repetition,
perpetual check and the move rule -- pyffish's 100 plies without a capture,
or --xiangqi-move-rule 120 for the Asian rule that Arbiter's own rules use;
`has_insufficient_material`). Games longer than --max-plies are drawn. An
engine that gives no `bestmove` within movetime + --timeout-margin ms (with
--nodes N, `go nodes N` for both engines, N/20 ms + the margin), plays
an illegal move, or dies, loses the game (the reason is recorded) and is
restarted for the next game.

Xiangqi notation: the referee works in Fairy-Stockfish's coordinates (ranks
1-10, `h3e3`); so are Fairy-Stockfish and engines with a XiangqiRanks option
(Arbiter) spoken to, the others in ICCS (ranks 0-9, `h2e2`).
--engine-notation / --opponent-notation override the guess (and set
XiangqiRanks to match where the engine has it).

Only the standard library, python-chess and pyffish are needed.
"""

import argparse
import math
import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

import chess
import chess.pgn
import pyffish

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
XIANGQI_START = pyffish.start_fen("xiangqi")
# The pyffish variant the xiangqi referee asks; --xiangqi-move-rule other than
# pyffish's own 100 plies defines a derived variant with another move rule.
XIANGQI_VARIANT = "xiangqi"
XIANGQI_MOVE_RULE = 100
# With --nodes, an engine has N / NODES_FLOOR ms (plus the margin) to answer:
# it is expected to search at least NODES_FLOOR nodes a millisecond.
NODES_FLOOR = 20


def set_xiangqi_move_rule(plies):
    global XIANGQI_VARIANT, XIANGQI_MOVE_RULE
    if plies == 100:
        return
    if plies < 0 or plies % 2:
        sys.exit("--xiangqi-move-rule: an even number of plies (0 = none)")
    pyffish.load_variant_config(f"[xiangqi-match:xiangqi]\nnMoveRule = {plies // 2}\n")
    XIANGQI_VARIANT, XIANGQI_MOVE_RULE = "xiangqi-match", plies

# ---------------------------------------------------------------- notation

_SQUARES = re.compile(r"^([a-i])(\d{1,2})([a-i])(\d{1,2})$")


def shift_ranks(move, delta):
    """h2e2 -> h3e3 (delta +1: ICCS to FSF) or back (delta -1)."""
    m = _SQUARES.match(move)
    if not m:
        return None
    f1, r1, f2, r2 = m.group(1), int(m.group(2)) + delta, m.group(3), int(m.group(4)) + delta
    lo = 0 if delta < 0 else 1
    if not (lo <= r1 <= lo + 9 and lo <= r2 <= lo + 9):
        return None
    return f"{f1}{r1}{f2}{r2}"


def iccs_to_fsf(move):
    return shift_ranks(move, +1)


def fsf_to_iccs(move):
    return shift_ranks(move, -1)


# ---------------------------------------------------------------- rules


class ChessReferee:
    """Moves are UCI strings in the e1g1 castling form."""

    variant = "chess"

    def __init__(self):
        self.board = chess.Board()

    def parse(self, text):
        """The engine's move text as a legal move in canonical form, or None."""
        try:
            move = self.board.parse_uci(text)
        except ValueError:
            return None
        return move.uci()

    def push(self, move):
        self.board.push_uci(move)

    @property
    def moves(self):
        return [m.uci() for m in self.board.move_stack]

    def outcome(self):
        """None while the game goes on, else (result, reason) with result '1-0' etc."""
        o = self.board.outcome(claim_draw=True)
        if o is None:
            return None
        reason = {
            chess.Termination.CHECKMATE: "checkmate",
            chess.Termination.STALEMATE: "stalemate",
            chess.Termination.INSUFFICIENT_MATERIAL: "insufficient material",
            chess.Termination.SEVENTYFIVE_MOVES: "75-move rule",
            chess.Termination.FIVEFOLD_REPETITION: "fivefold repetition",
            chess.Termination.FIFTY_MOVES: "50-move rule",
            chess.Termination.THREEFOLD_REPETITION: "threefold repetition",
        }.get(o.termination, o.termination.name.lower())
        return o.result(), reason

    def in_check(self):
        return self.board.is_check()


class XiangqiReferee:
    """Moves are Fairy-Stockfish coordinates (ranks 1-10)."""

    variant = "xiangqi"

    def __init__(self):
        self.history = []
        self._legal = None

    def legal(self):
        if self._legal is None:
            self._legal = set(pyffish.legal_moves(XIANGQI_VARIANT, XIANGQI_START, self.history))
        return self._legal

    def parse(self, text):
        return text if text in self.legal() else None

    def push(self, move):
        self.history.append(move)
        self._legal = None

    @property
    def moves(self):
        return list(self.history)

    def _result(self, value):
        """A pyffish value from the side to move's view as a PGN result."""
        red_to_move = len(self.history) % 2 == 0
        if value == 0:
            return "1/2-1/2"
        mover_wins = value > 0
        return "1-0" if mover_wins == red_to_move else "0-1"

    def in_check(self):
        return pyffish.gives_check(XIANGQI_VARIANT, XIANGQI_START, self.history)

    def outcome(self):
        if not self.legal():
            value = pyffish.game_result(XIANGQI_VARIANT, XIANGQI_START, self.history)
            return self._result(value), "checkmate" if self.in_check() else "stalemate (loses)"
        ended, value = pyffish.is_optional_game_end(XIANGQI_VARIANT, XIANGQI_START, self.history)
        if ended:
            fen = pyffish.get_fen(XIANGQI_VARIANT, XIANGQI_START, self.history)
            halfmoves = int(fen.split()[4])
            if XIANGQI_MOVE_RULE and halfmoves >= XIANGQI_MOVE_RULE:
                reason = f"move rule ({XIANGQI_MOVE_RULE} plies without capture)"
            elif value == 0:
                reason = "repetition"
            else:
                reason = "perpetual check (repetition)"
            return self._result(value), reason
        red, black = pyffish.has_insufficient_material(XIANGQI_VARIANT, XIANGQI_START, self.history)
        if red and black:
            return "1/2-1/2", "insufficient material"
        return None


def referee_for(variant):
    return ChessReferee() if variant == "chess" else XiangqiReferee()


# ---------------------------------------------------------------- engines


class EngineError(Exception):
    pass


def resolve_command(command):
    """Splits a command line; finds a bare program name on PATH or in /usr/games."""
    argv = shlex.split(command)
    if argv and os.sep not in argv[0] and shutil.which(argv[0]) is None:
        for folder in ("/usr/games", "/usr/local/games"):
            candidate = os.path.join(folder, argv[0])
            if os.access(candidate, os.X_OK):
                argv[0] = candidate
                break
    return argv


def parse_options(pairs):
    options = []
    for pair in pairs or []:
        if "=" not in pair:
            sys.exit(f"option {pair!r}: expected NAME=VALUE")
        name, value = pair.split("=", 1)
        options.append((name.strip(), value.strip()))
    return options


class Engine:
    """One UCI engine process, read by a thread so that every read can time out."""

    def __init__(self, label, command, options, variant, notation, log=None):
        self.label = label
        self.argv = resolve_command(command)
        self.options = options
        self.variant = variant
        self.notation_choice = notation
        self.log = log
        self.proc = None
        self.name = label
        self.notation = "uci"

    # -- process

    def start(self):
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()
        self.send("uci")
        advertised = []
        for line in self.expect("uciok", 15):
            if line.startswith("id name "):
                self.name = line[len("id name "):].strip()
            elif line.startswith("option name "):
                advertised.append(line[len("option name "):].split(" type ")[0].strip().lower())
        if self.variant == "xiangqi":
            if self.notation_choice == "auto":
                fsf = "fairy" in self.name.lower() or "xiangqiranks" in advertised
                self.notation = "fsf" if fsf else "iccs"
            else:
                self.notation = self.notation_choice
        if self.variant != "chess" or "uci_variant" in advertised:
            self.send(f"setoption name UCI_Variant value {self.variant}")
        if self.variant == "xiangqi" and "xiangqiranks" in advertised:
            ranks = "1-10" if self.notation == "fsf" else "0-9"
            self.send(f"setoption name XiangqiRanks value {ranks}")
        for name, value in self.options:
            self.send(f"setoption name {name} value {value}")
        self.ready()

    def _read(self, proc, lines):
        for line in proc.stdout:
            line = line.strip()
            if self.log:
                self.log(f"{self.label} > {line}")
            lines.put(line)
        lines.put(None)

    def send(self, text):
        if self.log:
            self.log(f"{self.label} < {text}")
        try:
            self.proc.stdin.write(text + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise EngineError(f"crashed (write failed: {e})") from None

    def expect(self, word, timeout):
        """Lines up to and including the one that starts with `word`."""
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise EngineError(f"no {word} within {timeout:g} s")
            try:
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                raise EngineError(f"no {word} within {timeout:g} s") from None
            if line is None:
                raise EngineError(f"crashed (exit code {self.proc.poll()}) while waiting for {word}")
            seen.append(line)
            if line == word or line.startswith(word + " "):
                return seen

    def ready(self, timeout=15):
        self.send("isready")
        self.expect("readyok", timeout)

    def stop_process(self):
        if self.proc is None:
            return
        try:
            if self.proc.poll() is None:
                self.send("quit")
                self.proc.wait(timeout=2)
        except (EngineError, subprocess.TimeoutExpired):
            pass
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def restart(self):
        self.stop_process()
        self.start()

    # -- notation

    def to_engine(self, move):
        return fsf_to_iccs(move) if self.notation == "iccs" else move

    def from_engine(self, text):
        if self.notation == "iccs":
            return iccs_to_fsf(text)
        return text

    # -- play

    def new_game(self):
        if self.proc is None or self.proc.poll() is not None:
            self.restart()
            return
        try:
            self.send("ucinewgame")
            self.ready()
        except EngineError:
            self.restart()

    def go(self, moves, movetime, margin, nodes=None):
        """The engine's answer for the position after `moves` (referee notation).

        With `nodes`, sends `go nodes N` and waits N / NODES_FLOOR ms (plus
        `margin`) instead of `go movetime`. Returns a dict: move (engine
        text), time (s), and the last info's depth, score, nps, plus any info
        strings; raises EngineError on a timeout or crash.
        """
        position = "position startpos"
        if moves:
            position += " moves " + " ".join(self.to_engine(m) for m in moves)
        self.send(position)
        if nodes:
            self.send(f"go nodes {nodes}")
            movetime = nodes // NODES_FLOOR
        else:
            self.send(f"go movetime {movetime}")
        started = time.monotonic()
        deadline = started + (movetime + margin) / 1000
        answer = {"depth": None, "score": None, "nps": None, "strings": []}
        while True:
            remaining = deadline - time.monotonic()
            try:
                if remaining <= 0:
                    raise queue.Empty
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                raise EngineError(f"no bestmove within {movetime + margin} ms") from None
            if line is None:
                raise EngineError(f"crashed (exit code {self.proc.poll()})")
            if line.startswith("info string "):
                answer["strings"].append(line[len("info string "):])
            elif line.startswith("info "):
                parse_info(line, answer)
            elif line.startswith("bestmove"):
                words = line.split()
                answer["move"] = words[1] if len(words) > 1 else ""
                answer["time"] = time.monotonic() - started
                return answer


def parse_info(line, answer):
    words = line.split()
    for i, word in enumerate(words[:-1]):
        if word == "pv":
            break
        if word == "nps":
            answer["nps"] = int(words[i + 1])
        elif word == "depth":
            answer["depth"] = int(words[i + 1])
        elif word == "score" and i + 2 < len(words):
            kind, value = words[i + 1], words[i + 2]
            if kind in ("cp", "mate"):
                answer["score"] = (kind, int(value))


# ---------------------------------------------------------------- openings


def load_openings(path, variant):
    openings = []
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            text, _, name = raw.partition("#")
            moves = text.split()
            if not moves:
                continue
            name = name.strip() or " ".join(moves)
            referee = referee_for(variant)
            internal = []
            for move in moves:
                m = move if variant == "chess" else iccs_to_fsf(move)
                parsed = referee.parse(m) if m else None
                if parsed is None:
                    sys.exit(f"{path}:{number}: illegal opening move {move} in {name}")
                referee.push(parsed)
                if referee.outcome() is not None:
                    sys.exit(f"{path}:{number}: the game ends inside opening {name}")
                internal.append(parsed)
            openings.append((name, internal, moves))
    if not openings:
        sys.exit(f"{path}: no openings")
    return openings


# ---------------------------------------------------------------- games


def score_text(score):
    if score is None:
        return "?"
    kind, value = score
    return f"#{value}" if kind == "mate" else f"{value / 100:+.2f}"


def play_game(number, opening, engine_white, engine, opponent, args):
    """Plays one game; returns a dict with the result and the move record."""
    name, opening_moves, _ = opening
    referee = referee_for(args.variant)
    for m in opening_moves:
        referee.push(m)
    white, black = (engine, opponent) if engine_white else (opponent, engine)
    comments = [None] * len(opening_moves)
    game = {
        "number": number,
        "opening": name,
        "engine_white": engine_white,
        "white": white.name,
        "black": black.name,
        "notes": [],
        "nps": [],
        "depths": [],
        "times": [],
        "opponent_times": [],
        "engine_plies": 0,
    }
    engine.new_game()
    opponent.new_game()
    result = reason = None
    while result is None:
        ply = len(referee.moves)
        if ply >= args.max_plies:
            result, reason = "1/2-1/2", f"max length ({args.max_plies} plies)"
            break
        white_to_move = ply % 2 == 0
        player = white if white_to_move else black
        is_engine = player is engine
        loss = "0-1" if white_to_move else "1-0"
        move_no = f"{ply // 2 + 1}{'.' if white_to_move else '...'}"
        try:
            answer = player.go(referee.moves, args.movetime, args.timeout_margin, args.nodes)
        except EngineError as e:
            result, reason = loss, f"{player.label} {e} at {move_no}"
            try:
                player.restart()
            except EngineError as e2:
                game["notes"].append(f"{player.label} restart failed: {e2}")
            break
        for s in answer["strings"]:
            if "rejected" in s or "unknown" in s or "invalid" in s.lower():
                game["notes"].append(f"{player.label} at {move_no}: info string {s}")
        text = answer["move"]
        internal = player.from_engine(text)
        move = referee.parse(internal) if internal else None
        if move is None:
            result, reason = loss, f"{player.label} illegal move {text!r} at {move_no}"
            break
        if is_engine:
            game["engine_plies"] += 1
            game["times"].append(answer["time"])
            if answer["nps"] is not None:
                game["nps"].append(answer["nps"])
            if answer["depth"] is not None:
                game["depths"].append(answer["depth"])
        else:
            game["opponent_times"].append(answer["time"])
        referee.push(move)
        comments.append(f"{score_text(answer['score'])}/{answer['depth'] or 0} {answer['time']:.2f}s")
        outcome = referee.outcome()
        if outcome is not None:
            result, reason = outcome
        score = answer["score"]
        if is_engine and score is not None and score[0] == "mate" and score[1] == 1:
            mover_won = result == ("1-0" if white_to_move else "0-1")
            if not mover_won:
                game["notes"].append(
                    f"{player.label} claimed mate in 1 with {text} at {move_no} but the "
                    f"rules library says {'game goes on' if result is None else result + ' ' + reason}"
                )
        if is_engine and result is not None and score is not None and score[0] == "mate":
            mover_won = result == ("1-0" if white_to_move else "0-1")
            if score[1] > 0 and not mover_won and score[1] != 1:
                game["notes"].append(
                    f"{player.label} scored mate {score[1]} at {move_no} but the game ended {result} by {reason}"
                )
    game["result"] = result
    game["reason"] = reason
    game["moves"] = referee.moves
    game["comments"] = comments
    game["plies"] = len(referee.moves)
    game["opening_plies"] = len(opening_moves)
    if result == "1/2-1/2":
        game["points"] = 0.5
    else:
        game["points"] = 1.0 if (result == "1-0") == engine_white else 0.0
    return game


# ---------------------------------------------------------------- PGN


def pgn_text(game, args):
    headers = [
        ("Event", f"Arbiter match ({args.variant}, {per_move(args)})"),
        ("Site", "local"),
        ("Date", time.strftime("%Y.%m.%d")),
        ("Round", str(game["number"])),
        ("White", game["white"]),
        ("Black", game["black"]),
        ("Result", game["result"]),
        ("Opening", game["opening"]),
        ("Termination", game["reason"]),
        ("PlyCount", str(game["plies"])),
    ]
    if args.variant == "chess":
        pgn = chess.pgn.Game()
        for key, value in headers:
            pgn.headers[key] = value
        node = pgn
        for move, comment in zip(game["moves"], game["comments"]):
            node = node.add_variation(chess.Move.from_uci(move))
            if comment:
                node.comment = comment
        pgn.headers["Result"] = game["result"]
        return str(pgn) + "\n\n"
    # Xiangqi: ICCS coordinates (ranks 0-9) in the movetext.
    headers[1:1] = [("Variant", "xiangqi"), ("Format", "ICCS")]
    out = [f'[{k} "{v}"]' for k, v in headers]
    out.append("")
    words = []
    for i, (move, comment) in enumerate(zip(game["moves"], game["comments"])):
        if i % 2 == 0:
            words.append(f"{i // 2 + 1}.")
        words.append(fsf_to_iccs(move))
        if comment:
            words.append("{" + comment + "}")
    words.append(game["result"])
    line, lines = "", []
    for w in words:
        if line and len(line) + 1 + len(w) > 79:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    lines.append(line)
    return "\n".join(out + lines) + "\n\n"


# ---------------------------------------------------------------- statistics


def per_move(args):
    return f"{args.nodes} nodes/move" if args.nodes else f"{args.movetime} ms/move"


def elo(p):
    return -400 * math.log10(1 / p - 1)


def summary(games):
    n = len(games)
    wins = sum(1 for g in games if g["points"] == 1)
    draws = sum(1 for g in games if g["points"] == 0.5)
    losses = n - wins - draws
    s = (wins + draws / 2) / n
    lines = [f"Score of engine vs opponent: W {wins}  D {draws}  L {losses}  ({n} games)  {100 * s:.1f}%"]
    if s in (0.0, 1.0):
        # All losses or all wins: no finite estimate; one-sided 95% bound from the binomial.
        bound = 1 - 0.05 ** (1 / n)
        if s == 0:
            lines.append(f"Elo difference: -inf (score 0%); 95% bound: < {elo(bound):.0f}")
        else:
            lines.append(f"Elo difference: +inf (score 100%); 95% bound: > {elo(1 - bound):+.0f}")
        return lines
    var = sum((g["points"] - s) ** 2 for g in games) / n
    se = math.sqrt(var / n)
    lo, hi = s - 1.96 * se, s + 1.96 * se
    lo_text = f"{elo(lo) + 0.0:+.0f}" if lo > 0 else "-inf"
    hi_text = f"{elo(hi) + 0.0:+.0f}" if hi < 1 else "+inf"
    half = (elo(hi) - elo(lo)) / 2 if 0 < lo and hi < 1 else float("inf")
    lines.append(
        f"Elo difference: {elo(s) + 0.0:+.1f} +/- {half + 0.0:.1f} (95% interval {lo_text} .. {hi_text}; "
        f"score {100 * s:.1f}% +/- {196 * se:.1f}%)"
    )
    return lines


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", choices=["chess", "xiangqi"], default="chess")
    ap.add_argument("--engine", default=os.path.join(ROOT, "target", "release", "arbiter") + " uci",
                    help='engine under test, a command line (default: "target/release/arbiter uci")')
    ap.add_argument("--engine-option", action="append", metavar="NAME=VALUE", help="setoption for the engine (repeatable)")
    ap.add_argument("--engine-notation", choices=["auto", "iccs", "fsf"], default="auto")
    ap.add_argument("--opponent", required=True, help="opponent engine command line")
    ap.add_argument("--opponent-option", action="append", metavar="NAME=VALUE", help="setoption for the opponent (repeatable)")
    ap.add_argument("--opponent-notation", choices=["auto", "iccs", "fsf"], default="auto")
    ap.add_argument("--movetime", type=int, default=100, help="ms per move for both engines (default 100)")
    ap.add_argument("--nodes", type=int, help="search this many nodes a move (`go nodes N`, both engines) "
                    "instead of --movetime; the answer is awaited N/%d ms plus the margin" % NODES_FLOOR)
    ap.add_argument("--timeout-margin", type=int, default=2000, help="ms past movetime before a missing bestmove loses (default 2000)")
    ap.add_argument("--games", type=int, default=20, help="number of games (default 20; pairs share an opening)")
    ap.add_argument("--openings", help="file of openings (default tools/openings/<variant>.txt)")
    ap.add_argument("--opening-offset", type=int, default=0, help="start at this opening (0-based)")
    ap.add_argument("--max-plies", type=int, default=400, help="draw after this many plies (default 400)")
    ap.add_argument("--xiangqi-move-rule", type=int, default=100, metavar="PLIES",
                    help="xiangqi: draw after this many plies without a capture (default 100, pyffish's; "
                         "Asian rules and Arbiter's own rules use 120; 0 = none)")
    ap.add_argument("--concurrency", type=int, default=1, help="games played at once (default 1)")
    ap.add_argument("--pgn", help="write all games to this PGN file")
    ap.add_argument("--uci-log", help="append every UCI line sent and received to this file")
    args = ap.parse_args()

    set_xiangqi_move_rule(args.xiangqi_move_rule)
    openings = load_openings(args.openings or os.path.join(HERE, "openings", f"{args.variant}.txt"), args.variant)
    engine_options = parse_options(args.engine_option)
    opponent_options = parse_options(args.opponent_option)

    log = None
    if args.uci_log:
        log_file = open(args.uci_log, "a", encoding="utf-8")
        log_lock = threading.Lock()

        def log(text):
            with log_lock:
                log_file.write(f"{time.monotonic():.3f} {threading.current_thread().name} {text}\n")
                log_file.flush()

    schedule = []
    for i in range(args.games):
        opening = openings[(args.opening_offset + i // 2) % len(openings)]
        schedule.append((i + 1, opening, i % 2 == 0))

    local = threading.local()
    everyone = []
    everyone_lock = threading.Lock()

    def engines():
        if not hasattr(local, "pair"):
            e = Engine("engine", args.engine, engine_options, args.variant, args.engine_notation, log)
            o = Engine("opponent", args.opponent, opponent_options, args.variant, args.opponent_notation, log)
            with everyone_lock:
                everyone.extend([e, o])
            e.start()
            o.start()
            local.pair = (e, o)
        return local.pair

    def run(item):
        number, opening, engine_white = item
        e, o = engines()
        return play_game(number, opening, engine_white, e, o, args)

    started = time.monotonic()
    games = []
    print(f"{args.variant}: {args.games} games, {per_move(args)}, engine: {args.engine}, "
          f"opponent: {args.opponent} {' '.join(f'{k}={v}' for k, v in opponent_options)}", flush=True)
    try:
        with ThreadPoolExecutor(max_workers=max(1, args.concurrency)) as pool:
            futures = [pool.submit(run, item) for item in schedule]
            for future in as_completed(futures):
                g = future.result()
                games.append(g)
                side = "W" if g["engine_white"] else "B"
                points = {1.0: "win", 0.5: "draw", 0.0: "loss"}[g["points"]]
                nps = sum(g["nps"]) / len(g["nps"]) if g["nps"] else 0
                depth = sum(g["depths"]) / len(g["depths"]) if g["depths"] else 0
                done = len(games)
                total = sum(x["points"] for x in games)
                print(
                    f"[{done:3}/{args.games}] game {g['number']:3} {g['opening']:<34} engine {side}  "
                    f"{g['result']:<7} {points:<4} {g['reason']}, {g['plies']} plies  "
                    f"(depth {depth:.1f}, {nps / 1000:.0f} knps)  running {total:g}/{done}",
                    flush=True,
                )
                for note in g["notes"]:
                    print(f"      note: {note}", flush=True)
    finally:
        for e in everyone:
            e.stop_process()
    elapsed = time.monotonic() - started

    games.sort(key=lambda g: g["number"])
    if args.pgn:
        with open(args.pgn, "w", encoding="utf-8") as f:
            for g in games:
                f.write(pgn_text(g, args))

    names = everyone[0].name if everyone else "engine", everyone[1].name if len(everyone) > 1 else "opponent"
    print()
    print(f"Engine: {names[0]}   Opponent: {names[1]}")
    for line in summary(games):
        print(line)
    all_nps = [x for g in games for x in g["nps"]]
    all_depths = [x for g in games for x in g["depths"]]
    times = [x for g in games for x in g["times"]]
    opp_times = [x for g in games for x in g["opponent_times"]]
    if all_nps:
        print(f"Engine speed: {sum(all_nps) / len(all_nps):,.0f} nodes/s on average over {len(all_nps)} moves; "
              f"average depth {sum(all_depths) / max(1, len(all_depths)):.1f}")
    if times:
        print(f"Move times: engine avg {1000 * sum(times) / len(times):.0f} ms, max {1000 * max(times):.0f} ms; "
              f"opponent avg {1000 * sum(opp_times) / max(1, len(opp_times)):.0f} ms, "
              f"max {1000 * max(opp_times or [0]):.0f} ms")
    reasons = {}
    for g in games:
        key = re.sub(r" at \d+\.+$", "", g["reason"])
        reasons[key] = reasons.get(key, 0) + 1
    print("Endings: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items(), key=lambda kv: -kv[1])))
    notes = [n for g in games for n in g["notes"]]
    print(f"Notes: {len(notes)}" + ("" if not notes else " (see above)"))
    print(f"Wall time: {elapsed:.0f} s")


if __name__ == "__main__":
    main()
