#!/usr/bin/env python3
"""The export and import round trip of a PGN collection through a running
Arbiter server, with its figures.

Against a server whose database is empty (default 127.0.0.1:50051):

  1. imports the collection through Games.ImportGames, sent in pieces of
     64 KiB: every game must be IMPORTED (a refused game is printed with its
     index, tags, reason and message);
  2. exports every game through Games.ExportGames, oldest first, in
     standard notation (chess SAN, xiangqi WXF), and the xiangqi games once
     more in coordinates (ICCS) to compare their moves;
  3. checks the export: one game out for each game in (matched by the game
     id the import answered and the export's GameId tag); python-chess
     (chess.pgn.read_game) reads every chess game without an error and its
     mainline is the source game's moves; each xiangqi game's ICCS moves are
     the source's; the start (FEN), the result and the Seven Tag Roster are
     the source's;
  4. imports the collection again, then the export: every game a DUPLICATE
     of the game it came from;
  5. exports again: byte for byte the first export.

It prints the collection's size, each phase's games/s (and MB/s), and with
--server-pid the server's RSS: the largest VmRSS sampled every 0.5 s during
each phase, and VmRSS and VmHWM (the peak so far) at its end, from
/proc/PID/status.

    python3 -m venv .venv && .venv/bin/pip install -r tools/requirements-history.txt
    .venv/bin/python tools/gen_collection.py --games 2000 --seed 1 --out /tmp/history.pgn
    target/release/arbiter serve --listen 127.0.0.1:50051 \\
        --database-url sqlite:///tmp/history.db --import-kib-per-second 0 --create-rate 0 &
    .venv/bin/python tools/history_roundtrip.py --addr 127.0.0.1:50051 \\
        --pgn /tmp/history.pgn --server-pid $!

The protos are compiled at run time with grpcio-tools, as tools/walkthrough.py
does. Every phase runs even after a check failed, so that the figures are
there; the script then prints what did not hold and exits 1. It exits 0 and
prints "ok" when everything held.
"""

import argparse
import hashlib
import io
import logging
import os
import re
import sys
import tempfile
import threading
import time

import chess
import chess.pgn
import grpc

from walkthrough import load_stubs, reason  # the protos compiled at run time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
PIECE = 64 * 1024


# ---------------------------------------------------------------- PGN


def split_games(lines):
    """The games of a PGN collection (an iterable of lines), as texts: a game
    ends where a tag line follows its movetext outside a {comment}."""
    game, moves_seen, in_comment = [], False, False
    for line in lines:
        stripped = line.lstrip()
        if not in_comment and stripped.startswith("["):
            if moves_seen:
                yield "".join(game)
                game, moves_seen = [], False
        elif not stripped.startswith("%"):
            for c in stripped:
                if in_comment:
                    in_comment = c != "}"
                elif c == "{":
                    in_comment = True
                elif c == ";":
                    break
                elif not c.isspace():
                    moves_seen = True
        game.append(line)
    if "".join(game).strip():
        yield "".join(game)


TAG = re.compile(r'^\s*\[([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
TOKEN = re.compile(r"\{[^}]*\}|;[^\n]*|\(|\)|[^\s{}();]+")
NUMBER = re.compile(r"^\d+\.+")
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


def parse_game(text):
    """(tags, moves, result) of one game's text: the tags unescaped, the
    mainline's moves without move numbers, suffixes (!?), NAGs, comments
    and variations."""
    tags, body = {}, []
    lines = text.split("\n")
    i = 0
    while i < len(lines) and (not lines[i].strip() or lines[i].lstrip().startswith("[")):
        m = TAG.match(lines[i])
        if m:
            tags[m.group(1)] = re.sub(r"\\(.)", r"\1", m.group(2))
        i += 1
    body = "\n".join(line for line in lines[i:] if not line.startswith("%"))
    moves, result, depth = [], None, 0
    for token in TOKEN.findall(body):
        c = token[0]
        if c in "{;":
            continue
        if c == "(":
            depth += 1
            continue
        if c == ")":
            depth -= 1
            continue
        if depth or c == "$":
            continue
        token = NUMBER.sub("", token)
        if not token:
            continue
        if token in RESULTS:
            result = token
            continue
        moves.append(token.rstrip("!?"))
    return tags, moves, result


def variant_of(tags):
    v = tags.get("Variant", "").lower()
    return "xiangqi" if v in ("xiangqi", "chinese chess") or tags.get("Game", "").lower() == "chinese chess" \
        else "chess"


# ---------------------------------------------------------------- server memory


class Rss:
    """Samples the server's VmRSS every 0.5 s during a phase."""

    def __init__(self, pid):
        self.pid = pid
        self.rows = []
        self._stop = None

    def status(self):
        values = {}
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    values[key] = int(rest.split()[0]) / 1024
        return values

    def start(self, phase):
        if not self.pid:
            return
        self._stop = threading.Event()
        self._max = self.status()["VmRSS"]

        def sample():
            while not self._stop.wait(0.5):
                try:
                    self._max = max(self._max, self.status()["VmRSS"])
                except OSError:
                    return
        self._phase = phase
        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()

    def stop(self):
        if not self.pid:
            return
        self._stop.set()
        self._thread.join()
        end = self.status()
        self._max = max(self._max, end["VmRSS"])
        self.rows.append((self._phase, self._max, end["VmRSS"], end["VmHWM"]))


# ---------------------------------------------------------------- the round trip


class RoundTrip:
    def __init__(self, args):
        self.args = args
        self.pb = load_stubs()
        options = [("grpc.max_receive_message_length", 64 << 20)]
        self.channel = grpc.insecure_channel(args.addr, options=options)
        self.games = self.pb["games_pb2_grpc"].GamesStub(self.channel)
        self.failures = []
        self.figures = []
        self.rss = Rss(args.server_pid)

    def fail(self, text):
        self.failures.append(text)
        print("FAIL:", text, flush=True)

    def figure(self, text):
        self.figures.append(text)
        print(text, flush=True)

    # -- source

    def read_source(self):
        """Each source game's variant, FEN, roster tags, moves and result, by
        index."""
        self.source = []
        with open(self.args.pgn, encoding="utf-8", newline="") as f:
            for text in split_games(f):
                tags, moves, result = parse_game(text)
                self.source.append((variant_of(tags), tags.get("FEN"),
                                    tuple(tags.get(t) for t in ROSTER), " ".join(moves), result))
        self.size = os.path.getsize(self.args.pgn)
        chess_games = sum(1 for s in self.source if s[0] == "chess")
        self.figure(f"collection: {len(self.source)} games ({chess_games} chess, "
                    f"{len(self.source) - chess_games} xiangqi), {self.size / 1e6:.1f} MB")

    # -- calls

    def import_file(self, path, label):
        """Imports the file; the answers as a list of (result name, game id),
        and the seconds it took."""
        games_pb = self.pb["games_pb2"]
        results = games_pb.ImportResult

        def pieces():
            with open(path, "rb") as f:
                while True:
                    piece = f.read(PIECE)
                    if not piece:
                        return
                    yield games_pb.ImportGamesRequest(pgn=piece)

        answers, refused = [], 0
        self.rss.start(label)
        started = time.monotonic()
        try:
            for answer in self.games.ImportGames(pieces(), timeout=self.args.timeout):
                if answer.index != len(answers):
                    self.fail(f"{label}: answer {len(answers)} has index {answer.index}")
                name = results.Name(answer.result).removeprefix("IMPORT_RESULT_")
                answers.append((name, answer.game_id))
                if name == "REFUSED":
                    refused += 1
                    if refused <= 10:
                        tags = ", ".join(f"{k}={answer.tags[k]!r}" for k in ROSTER if k in answer.tags)
                        print(f"  {label}: game {answer.index} refused ({tags}): {answer.reason}: "
                              f"{answer.message}", flush=True)
        except grpc.RpcError as err:
            self.fail(f"{label}: the call failed after {len(answers)} answers: {err.code().name} "
                      f"{reason(err)} {err.details()}")
        elapsed = time.monotonic() - started
        self.rss.stop()
        return answers, elapsed

    def export(self, label, notation, out=None, variant=None, keep_moves=False):
        """Exports every game (or `variant`'s), oldest first: (game id, PGN
        digest) for each, the bytes, the seconds; with `out`, the games
        written there one after another (a blank line between); with
        `keep_moves`, each game's moves kept in self.iccs."""
        games_pb, common = self.pb["games_pb2"], self.pb["common_pb2"]
        request = games_pb.ExportGamesRequest(
            filter=games_pb.ListGamesRequest(oldest_first=True, page_size=100,
                                             variant=variant or common.VARIANT_UNSPECIFIED),
            notation=notation)
        exported, size = [], 0
        self.rss.start(label)
        started = time.monotonic()
        try:
            for game in self.games.ExportGames(request, timeout=self.args.timeout):
                data = game.pgn.encode()
                size += len(data)
                exported.append((game.game_id, hashlib.blake2b(data, digest_size=16).digest()))
                if out:
                    out.write(data)
                    if not data.endswith(b"\n"):
                        out.write(b"\n")
                    out.write(b"\n")
                if keep_moves:
                    self.iccs[game.game_id] = parse_game(game.pgn)[1]
        except grpc.RpcError as err:
            self.fail(f"{label}: the call failed after {len(exported)} games: {err.code().name} "
                      f"{reason(err)} {err.details()}")
        elapsed = time.monotonic() - started
        self.rss.stop()
        return exported, size, elapsed

    def rate(self, label, games, size, elapsed, note=""):
        self.figure(f"{label}: {games} games in {elapsed:.1f} s: {games / elapsed:,.0f} games/s, "
                    f"{size / 1e6 / elapsed:.2f} MB/s{note}")

    # -- phases

    def first_import(self):
        answers, elapsed = self.import_file(self.args.pgn, "import")
        counts = {k: sum(1 for a in answers if a[0] == k) for k in ("IMPORTED", "DUPLICATE", "REFUSED")}
        self.rate("import", len(answers), self.size, elapsed,
                  f" (imported {counts['IMPORTED']}, duplicates {counts['DUPLICATE']}, refused "
                  f"{counts['REFUSED']})")
        if len(answers) != len(self.source):
            self.fail(f"import: {len(answers)} answers for {len(self.source)} games")
        for kind in ("DUPLICATE", "REFUSED"):
            if counts[kind]:
                self.fail(f"import: {counts[kind]} games {kind}")
        self.ids = [game_id for _, game_id in answers]
        self.index_of = {game_id: i for i, (result, game_id) in enumerate(answers) if result == "IMPORTED"}

    def first_export(self, folder):
        self.export_path = os.path.join(folder, "export.pgn")
        with open(self.export_path, "wb") as out:
            self.exported, size, elapsed = self.export("export", self.pb["games_pb2"].PGN_NOTATION_STANDARD, out)
        self.export_size = size
        self.rate("export", len(self.exported), size, elapsed, f" ({size / 1e6:.1f} MB of PGN)")
        self.iccs = {}
        common = self.pb["common_pb2"]
        xiangqi, size, elapsed = self.export("export ICCS", self.pb["games_pb2"].PGN_NOTATION_COORDINATES,
                                             variant=common.VARIANT_XIANGQI, keep_moves=True)
        if xiangqi:
            self.rate("export of the xiangqi games in ICCS", len(xiangqi), size, elapsed)

    def check_export(self):
        """Step 3: every game out, read by python-chess, with the source's
        moves, start, result and roster."""
        if len(self.exported) != len(self.index_of):
            self.fail(f"export: {len(self.exported)} games out for {len(self.index_of)} imported")
        seen = set()
        problems = {}

        def problem(kind, index, detail):
            entry = problems.setdefault(kind, [0, None])
            entry[0] += 1
            if entry[1] is None:
                entry[1] = f"game {index}: {detail}"

        started = time.monotonic()
        with open(self.export_path, encoding="utf-8", newline="") as f:
            texts = split_games(f)
            for position, (game_id, _) in enumerate(self.exported):
                text = next(texts, None)
                if text is None:
                    self.fail(f"export: the file has fewer games than the {len(self.exported)} sent")
                    break
                tags, moves, result = parse_game(text)
                if tags.get("GameId") != game_id:
                    problem("the GameId tag is not the game's id", position, f"{tags.get('GameId')} != {game_id}")
                index = self.index_of.get(game_id)
                if index is None:
                    problem("a game out that was not imported", position, game_id)
                    continue
                if index in seen:
                    problem("a game out twice", index, game_id)
                seen.add(index)
                variant, fen, roster, source_moves, source_result = self.source[index]
                if variant_of(tags) != variant:
                    problem("variant differs", index, f"{variant} -> {variant_of(tags)}")
                    continue
                if tags.get("FEN") != fen:
                    same_board = fen and tags.get("FEN") and fen.split()[:4] == tags["FEN"].split()[:4]
                    problem("[FEN] differs" + (" (counters only)" if same_board else ""), index,
                            f"{fen!r} -> {tags.get('FEN')!r}")
                for name, value in zip(ROSTER, roster):
                    if tags.get(name) != value:
                        problem(f"[{name}] differs", index, f"{value!r} -> {tags.get(name)!r}")
                if result != source_result:
                    problem("the movetext's result differs", index, f"{source_result} -> {result}")
                if variant == "chess":
                    game = chess.pgn.read_game(io.StringIO(text))
                    if game is None or game.errors:
                        problem("python-chess cannot read the export", index,
                                f"{game.errors[:1] if game else 'no game'}")
                        continue
                    mainline = [m.uci() for m in game.mainline_moves()]
                    if " ".join(moves) != source_moves:
                        # Another way of writing SAN: compare the moves themselves.
                        board = chess.Board(fen) if fen else chess.Board()
                        theirs = []
                        for san in source_moves.split():
                            move = board.parse_san(san)
                            theirs.append(move.uci())
                            board.push(move)
                        if theirs != mainline:
                            problem("the moves differ", index, f"{source_moves[:60]!r} -> {' '.join(moves)[:60]!r}")
                        else:
                            problem("SAN written otherwise (same moves)", index,
                                    f"{source_moves[:60]!r} -> {' '.join(moves)[:60]!r}")
                    elif len(mainline) != len(moves):
                        problem("python-chess read another number of moves", index,
                                f"{len(mainline)} != {len(moves)}")
                else:
                    iccs = self.iccs.get(game_id)
                    if iccs is None:
                        problem("a xiangqi game missing from the ICCS export", index, game_id)
                    elif " ".join(m.lower() for m in iccs) != source_moves.lower():
                        problem("the moves differ", index, f"{source_moves[:60]!r} -> {' '.join(iccs)[:60]!r}")
                    elif len(moves) != len(iccs):
                        problem("WXF and ICCS exports differ in length", index, f"{len(moves)} != {len(iccs)}")
        missing = len(self.index_of) - len(seen)
        if missing:
            self.fail(f"export: {missing} imported games not exported")
        for kind, (count, first) in sorted(problems.items()):
            self.fail(f"export: {kind} in {count} games (first: {first})")
        print(f"checked {len(seen)} exported games in {time.monotonic() - started:.1f} s", flush=True)

    def reimport(self, path, label, expected_ids):
        answers, elapsed = self.import_file(path, label)
        counts = {k: sum(1 for a in answers if a[0] == k) for k in ("IMPORTED", "DUPLICATE", "REFUSED")}
        self.rate(label, len(answers), os.path.getsize(path), elapsed,
                  f" (imported {counts['IMPORTED']}, duplicates {counts['DUPLICATE']}, refused "
                  f"{counts['REFUSED']})")
        if len(answers) != len(expected_ids):
            self.fail(f"{label}: {len(answers)} answers for {len(expected_ids)} games")
        for kind in ("IMPORTED", "REFUSED"):
            if counts[kind]:
                first = next(i for i, a in enumerate(answers) if a[0] == kind)
                self.fail(f"{label}: {counts[kind]} games {kind}, not duplicates (first: game {first})")
        other = [i for i, (a, e) in enumerate(zip(answers, expected_ids)) if a[0] == "DUPLICATE" and a[1] != e]
        if other:
            self.fail(f"{label}: {len(other)} duplicates of another game than the one expected "
                      f"(first: game {other[0]}: {answers[other[0]][1]} != {expected_ids[other[0]]})")

    def second_export(self):
        again, size, elapsed = self.export("export again", self.pb["games_pb2"].PGN_NOTATION_STANDARD)
        self.rate("export again", len(again), size, elapsed)
        if len(again) != len(self.exported):
            self.fail(f"export again: {len(again)} games, the first export had {len(self.exported)}")
        differ = [i for i, (a, b) in enumerate(zip(self.exported, again)) if a != b]
        if differ:
            self.fail(f"export again: {len(differ)} of the first {min(len(again), len(self.exported))} games "
                      f"differ from the first export (first: export position {differ[0]}, game "
                      f"{again[differ[0]][0]})")

    def run(self):
        self.read_source()
        with tempfile.TemporaryDirectory(prefix="arbiter-history-") as folder:
            self.first_import()
            self.first_export(folder)
            self.check_export()
            self.reimport(self.args.pgn, "import again", self.ids)
            exported_ids = [game_id for game_id, _ in self.exported]
            self.reimport(self.export_path, "import of the export", exported_ids)
            self.second_export()
        if self.rss.rows:
            print("server RSS (MiB): phase, largest sampled VmRSS, VmRSS at its end, VmHWM at its end")
            for phase, peak, end, hwm in self.rss.rows:
                print(f"  {phase:22} {peak:8.1f} {end:8.1f} {hwm:8.1f}")
        if self.failures:
            print(f"FAILED: {len(self.failures)} checks did not hold:")
            for text in self.failures:
                print("  -", text)
            return 1
        print("ok")
        return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--addr", default="127.0.0.1:50051")
    parser.add_argument("--pgn", required=True, help="the collection (tools/gen_collection.py writes one)")
    parser.add_argument("--server-pid", type=int, help="the server's process id, to report its memory")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds each call may take (default 3600)")
    args = parser.parse_args()
    # python-chess logs every error it meets; they are counted instead.
    logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)
    sys.exit(RoundTrip(args).run())


if __name__ == "__main__":
    main()
