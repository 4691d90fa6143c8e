#!/usr/bin/env python3
"""Attacks on the service, measured against a real `arbiter serve`.

Each point is an attack (no single client and no failing disk may take
Arbiter down; points 19-23: fair shares between addresses, the rematch
budget, squatted watcher places, the metrics endpoint, the operator
credential) with the figure measured on the build before the limit that
answers it. This script repeats each attack the same way, bounded in count and
time, on a binary it starts itself (127.0.0.1, ports 50300-50399, a fresh
SQLite file under /tmp for every server), and prints one line per point: the
point, what was done, the unprotected figure and today's. Clients of other
addresses are raw HTTP/2 connections bound to 127.0.0.2 and on (gRPC
channels have no source address option; Linux routes all of 127/8 to lo).
The stubs are compiled from this checkout's proto/; a field the server's
own contract lacks (an older build's, asked by reflection) is not sent to
it: WatchGameRequest.seat_token (point 21). Memory is the server's VmRSS from
/proc/PID/status, file descriptors /proc/PID/fd, CPU utime+stime from
/proc/PID/stat.

    python3.11 -m venv /tmp/hostile-venv
    /tmp/hostile-venv/bin/pip install -r tools/requirements-hostile.txt
    /tmp/hostile-venv/bin/python tools/hostile_figures.py --binary target/release/arbiter

`--points 1,3,16` runs only those points; `--markdown` also prints the
table for BENCHMARKS.md. Point 2 mounts a 4 MiB tmpfs (needs root). Point 18
needs `openssl` on the PATH.
"""

import argparse
import asyncio
import base64
import gzip
import importlib
import itertools
import multiprocessing
import os
import resource
import select
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter

import chess
import grpc
import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
from google.protobuf import descriptor_pb2
from grpc_tools import protoc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = "127.0.0.1"
PORTS = iter(range(50300, 50400))
# No step of a point runs longer than this.
STEP_LIMIT_S = 90
# What an HTTP/2 client sends first, and an empty SETTINGS frame.
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
EMPTY_SETTINGS = bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
SETTINGS_ACK = bytes([0, 0, 0, 4, 1, 0, 0, 0, 0])
# 24 plies of a Ruy Lopez: no repetition, no end.
OPENING = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6",
           "c3", "O-O", "h3", "Nb8", "d4", "Nbd7", "c4", "c6", "cxb5", "axb5"]

pb = {}
CODE_NAMES = {code.value[0]: code.name for code in grpc.StatusCode}


def load_stubs():
    """Compiles the contract into a temporary directory and imports it."""
    out = tempfile.mkdtemp(prefix="arbiter-hostile-")
    protos = [f"arbiter/v1/{n}.proto" for n in ("common", "rules", "positions", "games", "engine", "errors")]
    protos += ["google/rpc/status.proto", "google/rpc/error_details.proto"]
    include = os.path.join(os.path.dirname(protoc.__file__), "_proto")
    args = ["protoc", f"-I{ROOT}/proto", f"-I{include}", f"--python_out={out}", f"--grpc_python_out={out}", *protos]
    if protoc.main(args) != 0:
        sys.exit("protoc failed")
    sys.path.insert(0, out)
    for name in ("common", "rules", "positions", "games", "engine"):
        pb[name] = importlib.import_module(f"arbiter.v1.{name}_pb2")
        pb[name + "_grpc"] = importlib.import_module(f"arbiter.v1.{name}_pb2_grpc")
    pb["status"] = importlib.import_module("google.rpc.status_pb2")
    pb["details"] = importlib.import_module("google.rpc.error_details_pb2")


# ---------------------------------------------------------------- the server


class PortTaken(Exception):
    pass


class Server:
    """`arbiter serve` on a port of its own, a fresh database unless `db`."""

    def __init__(self, binary, args=(), env=None, db=None, max_files=None, log=None):
        self.binary, self.args, self.extra_env, self.max_files = binary, list(args), env or {}, max_files
        self.dir = tempfile.mkdtemp(prefix="arbiter-hostile-db-")
        self.db = db or os.path.join(self.dir, "arbiter.db")
        self.log_path = log or os.path.join(self.dir, "serve.log")
        self.port = next(PORTS)
        self.addr = f"{HOST}:{self.port}"
        self.proc = None
        self.start()

    def start(self, tls_args=()):
        # A port of the range may be some client socket's ephemeral port:
        # then the next one.
        for _ in range(5):
            try:
                return self.spawn(tls_args)
            except PortTaken:
                self.port = next(PORTS)
                self.addr = f"{HOST}:{self.port}"
        raise RuntimeError("no free port")

    def spawn(self, tls_args):
        env = dict(os.environ, RUST_LOG="warn")
        env.update(self.extra_env)
        limit = self.max_files

        def limits():
            if limit:
                resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--listen", self.addr, "--database-url", f"sqlite://{self.db}", *self.args,
             *tls_args],
            env=env, stdout=self.log, stderr=subprocess.STDOUT, preexec_fn=limits)
        self.pid = self.proc.pid
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                self.log.close()
                with open(self.log_path, "rb") as log:
                    if b"Address already in use" in log.read():
                        raise PortTaken()
                raise RuntimeError(f"the server exited: {self.proc.returncode}, log {self.log_path}")
            try:
                with socket.create_connection((HOST, self.port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not listen within 60 s")
                time.sleep(0.05)

    def channel(self, separate=True):
        # A channel of its own opens its own connection.
        options = [("grpc.use_local_subchannel_pool", 1)] if separate else []
        return grpc.insecure_channel(self.addr, options=options)

    def rss_kib(self):
        with open(f"/proc/{self.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def settled_rss_kib(self):
        """RSS once it has stopped moving (at most 3 s)."""
        last = self.rss_kib()
        for _ in range(15):
            time.sleep(0.2)
            now = self.rss_kib()
            if abs(now - last) < 256:
                return now
            last = now
        return last

    def fds(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def cpu_ticks(self):
        with open(f"/proc/{self.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def kill9(self):
        self.proc.kill()
        self.proc.wait()
        self.log.close()

    def close(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def mib(kib):
    return f"{kib / 1024:.1f} MiB"


def ms(seconds):
    return f"{seconds * 1e3:.2f} ms"


def percentile(samples, p):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


# --------------------------------------------------------------- gRPC helpers


def error_info(err):
    """An RPC error's code, ErrorInfo reason and metadata."""
    trailers = err.trailing_metadata() or ()
    return status_details(err.code().name, [(k, v) for k, v in trailers])


def status_details(code, headers):
    for key, value in headers:
        if key == "grpc-status-details-bin":
            if isinstance(value, str):
                value = base64.b64decode(value + "=" * (-len(value) % 4))
            status = pb["status"].Status.FromString(value)
            for detail in status.details:
                info = pb["details"].ErrorInfo()
                if detail.Unpack(info):
                    return code, info.reason, dict(info.metadata)
    return code, "", {}


def outcome(call):
    """`call()`'s answer as "OK" or "CODE REASON"."""
    try:
        call()
        return "OK"
    except grpc.RpcError as err:
        code, reason, _ = error_info(err)
        return f"{code} {reason}".strip()


def health(channel, timeout=2):
    """The server's health (service ""), or the error's code."""
    check = channel.unary_unary("/grpc.health.v1.Health/Check", request_serializer=None,
                                response_deserializer=None)
    try:
        answer = check(b"", timeout=timeout)
    except grpc.RpcError as err:
        return err.code().name
    # HealthCheckResponse { status = 1 }: 1 SERVING, 2 NOT_SERVING.
    return {b"\x08\x01": "SERVING", b"\x08\x02": "NOT_SERVING"}.get(answer, answer.hex())


def games_stub(channel):
    return pb["games_grpc"].GamesStub(channel)


def seat(name):
    return pb["games"].SeatRequest(display_name=name)


def new_game(games, clock_ms=None, white="W", black="B"):
    g = pb["games"]
    control = g.TimeControl(initial_ms=clock_ms) if clock_ms else None
    return games.CreateGame(g.CreateGameRequest(variant=pb["common"].VARIANT_CHESS, white=seat(white),
                                                black=seat(black), time_control=control))


def play(games, created, sans, first_ply=0):
    game_id = created.game.id
    for ply, san in enumerate(sans, first_ply):
        token = created.white_token if ply % 2 == 0 else created.black_token
        games.MakeMove(pb["games"].MakeMoveRequest(game_id=game_id, seat_token=token, move=san))


def offer_and_decline(games, created, pairs):
    g = pb["games"]
    for _ in range(pairs):
        games.OfferDraw(g.OfferDrawRequest(game_id=created.game.id, seat_token=created.white_token))
        games.RespondToDraw(g.RespondToDrawRequest(game_id=created.game.id, seat_token=created.black_token,
                                                   accept=False))


def random_id():
    alphabet = "abcdefghijkmnpqrstuvwxyz23456789"
    return "".join(alphabet[b % len(alphabet)] for b in os.urandom(16))


def long_game(plies):
    """A deterministic chess game of `plies` SAN moves that never ends: no
    captures, no checks, no position a third time, and a single pawn step
    every 90 plies so that no move-count rule applies."""
    state = 0x9E3779B97F4A7C15
    mask = (1 << 64) - 1

    def pick(n):
        nonlocal state
        state ^= (state << 13) & mask
        state ^= state >> 7
        state ^= (state << 17) & mask
        return state % n

    board = chess.Board()
    seen = Counter()
    sans = []
    while len(sans) < plies:
        def fits(move, pawns):
            piece = board.piece_type_at(move.from_square)
            pawn_step = (piece == chess.PAWN and not move.promotion
                         and chess.square_distance(move.from_square, move.to_square) == 1)
            if board.is_capture(move) or (piece == chess.PAWN and not pawn_step) or pawn_step != pawns:
                return False
            board.push(move)
            ok = not board.is_check() and any(board.legal_moves) and seen[board.epd()] < 2
            board.pop()
            return ok

        due = board.halfmove_clock >= 90
        candidates = [m for m in board.legal_moves if fits(m, due)]
        if not candidates and board.halfmove_clock < 140:
            candidates = [m for m in board.legal_moves if fits(m, not due)]
        if not candidates:
            raise RuntimeError(f"the generator is stuck at ply {len(sans)}")
        move = candidates[pick(len(candidates))]
        sans.append(board.san(move))
        board.push(move)
        seen[board.epd()] += 1
    return sans


def pgn(sans):
    moves = " ".join((f"{ply // 2 + 1}. " if ply % 2 == 0 else "") + san for ply, san in enumerate(sans))
    return f'[White "W"]\n[Black "B"]\n[Result "*"]\n\n{moves} *'


# ----------------------------------------------------------- raw HTTP/2


class RawH2:
    """An HTTP/2 connection driven by hand: its reading can be stopped, as a
    stalled client's is; `source` binds it to a loopback address of its own
    (127.0.0.2, ...), which gRPC channels cannot."""

    def __init__(self, port, window=65535, source=None):
        self.port = port
        self.closed, self.pending = False, bytearray()
        self.sock = socket.create_connection((HOST, port), source_address=(source, 0) if source else None)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.conn.initiate_connection()
        self.conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
        self.streams = {}
        self.flush()

    def flush(self):
        data = self.conn.data_to_send()
        if data and not self.closed:
            try:
                self.sock.sendall(data)
            except OSError:
                # The server closed it (at a connection cap, say).
                self.closed = True

    def call(self, path, message):
        sid = self.conn.get_next_available_stream_id()
        self.conn.send_headers(sid, [(":method", "POST"), (":scheme", "http"), (":path", path),
                                     (":authority", f"{HOST}:{self.port}"), ("content-type", "application/grpc"),
                                     ("te", "trailers")])
        body = message.SerializeToString()
        self.conn.send_data(sid, b"\0" + len(body).to_bytes(4, "big") + body, end_stream=True)
        self.streams[sid] = {"data": bytearray(), "status": None}
        self.flush()
        return sid

    def pump(self, until, ack=True):
        """Reads until `until` (a time) or every stream has ended."""
        pump_all([self], until, ack)

    def ended(self):
        return all(s["status"] is not None for s in self.streams.values())

    def answered(self):
        """Whether every stream has had a message or its end."""
        return all(s["data"] or s["status"] is not None for s in self.streams.values())

    def read(self, ack=True):
        """Takes what the server sent; False once the connection is closed."""
        try:
            data = self.sock.recv(1 << 20)
        except OSError:
            data = b""
        if not data:
            self.closed = True
            return False
        # Frame by frame: frames after the server's GOAWAY are refused by h2,
        # and the events before them are kept.
        self.pending += data
        taken = 0
        while len(self.pending) - taken >= 9:
            end = taken + 9 + int.from_bytes(self.pending[taken:taken + 3], "big")
            if end > len(self.pending):
                break
            try:
                self.take(self.conn.receive_data(bytes(self.pending[taken:end])), ack)
            except h2.exceptions.ProtocolError:
                self.closed = True
                return False
            taken = end
        del self.pending[:taken]
        self.flush()
        return True

    def take(self, events, ack):
        for event in events:
            stream = self.streams.get(getattr(event, "stream_id", None))
            if isinstance(event, h2.events.DataReceived):
                if ack:
                    self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                stream["data"] += event.data
            elif isinstance(event, (h2.events.TrailersReceived, h2.events.ResponseReceived)):
                headers = dict(event.headers)
                if "grpc-status" in headers:
                    code = CODE_NAMES.get(int(headers["grpc-status"]), headers["grpc-status"])
                    stream["status"] = status_details(code, list(event.headers))
            elif isinstance(event, h2.events.StreamReset) and stream is not None:
                stream["status"] = (f"RST_STREAM {event.error_code}", "", {})

    def outcome(self, sid):
        """Stream `sid` as "held" (open, a message received), "closed" (the
        connection, without a status), or its status' code, reason and cap."""
        status = self.streams[sid]["status"]
        if status:
            code, reason, meta = status
            return " ".join([code, reason] + ([f"cap={meta['cap']}"] if "cap" in meta else [])).strip()
        if self.closed:
            return "closed"
        return "held" if self.streams[sid]["data"] else "no answer"

    def messages(self, sid):
        """The gRPC messages stream `sid` received."""
        data, found = self.streams[sid]["data"], []
        while len(data) >= 5:
            length = int.from_bytes(data[1:5], "big")
            if len(data) < 5 + length:
                break
            found.append(bytes(data[5:5 + length]))
            data = data[5 + length:]
        return found

    def close(self):
        self.sock.close()


def pump_all(connections, until, ack=True, done=RawH2.ended):
    """Reads every connection (poll: thousands of them) until `until`, or
    until `done(connection)` holds for each one still open."""
    poller, open_ones = select.poll(), {}
    for connection in connections:
        if not connection.closed:
            poller.register(connection.sock, select.POLLIN)
            open_ones[connection.sock.fileno()] = connection
    while open_ones and time.monotonic() < until and not all(map(done, open_ones.values())):
        for fd, _ in poller.poll(max(0.0, min(0.5, until - time.monotonic())) * 1e3):
            if not open_ones[fd].read(ack):
                poller.unregister(fd)
                del open_ones[fd]


def outcomes(connections):
    """How the streams of `connections` stand (RawH2.outcome), counted."""
    return Counter(c.outcome(sid) for c in connections for sid in c.streams)


def read_frames(sock, until, on_frame):
    """Reads HTTP/2 frames from a raw socket until `until`, EOF or
    `on_frame(kind, flags, payload)` returns True."""
    buf = b""
    while time.monotonic() < until:
        ready, _, _ = select.select([sock], [], [], 0.2)
        if ready:
            try:
                chunk = sock.recv(1 << 16)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
        while len(buf) >= 9:
            length = int.from_bytes(buf[:3], "big")
            if len(buf) < 9 + length:
                break
            kind, flags, payload = buf[3], buf[4], buf[9:9 + length]
            buf = buf[9 + length:]
            if on_frame(kind, flags, payload):
                return


def open_stream(sid):
    """A HEADERS frame opening stream `sid` for a Health check whose body
    never comes (HPACK literals without indexing)."""
    path, content_type = b"/grpc.health.v1.Health/Check", b"application/grpc"
    block = bytes([0x83, 0x86, 0x04, len(path)]) + path
    block += bytes([0x0F, 31 - 15, len(content_type)]) + content_type + b"\x00\x02te\x08trailers"
    return len(block).to_bytes(3, "big") + bytes([1, 4]) + sid.to_bytes(4, "big") + block


def is_open(sock):
    """Whether the server still holds `sock` open (what it sent is drained)."""
    try:
        while True:
            data = sock.recv(65536, socket.MSG_DONTWAIT)
            if not data:
                return False
    except BlockingIOError:
        return True
    except OSError:
        return False


def raw_connections(n, greeting):
    socks = []
    for i in range(n):
        if i % 100 == 99:
            # Paced a little, so that the listen backlog does not overflow.
            time.sleep(0.05)
        sock = socket.create_connection((HOST, current_port[0]))
        if greeting:
            sock.sendall(greeting)
        socks.append(sock)
    return socks


current_port = [0]


# ------------------------------------------------------------- the points


def point_1(binary):
    server = Server(binary, ["--create-rate", "0"])
    try:
        async def watch_unknown(count):
            g = pb["games"]
            async with grpc.aio.insecure_channel(server.addr) as channel:
                games = games_stub(channel)
                codes = Counter()
                deadline = time.monotonic() + 80

                async def one():
                    call = games.WatchGame(g.WatchGameRequest(game_id=random_id(), view=g.GAME_VIEW_FULL))
                    try:
                        await call.read()
                        codes["answered"] += 1
                    except grpc.aio.AioRpcError as err:
                        codes[f"{err.code().name}"] += 1

                done = 0
                while done < count and time.monotonic() < deadline:
                    await asyncio.gather(*(one() for _ in range(50)))
                    done += 50
                return done, codes

        before = server.settled_rss_kib()
        started = time.monotonic()
        done, codes = asyncio.run(watch_unknown(20_000))
        took = time.monotonic() - started
        after = server.settled_rss_kib()
        more, _ = asyncio.run(watch_unknown(20_000))
        after_more = server.settled_rss_kib()

        # Watched games that end: each one watched, then resigned; twice.
        games = games_stub(server.channel())
        g = pb["games"]
        n_games = 500
        ended = []
        for _ in range(2):
            before_end = server.settled_rss_kib()
            for _ in range(n_games):
                created = new_game(games)
                stream = games.WatchGame(g.WatchGameRequest(game_id=created.game.id))
                next(stream)
                games.Resign(g.ResignRequest(game_id=created.game.id, seat_token=created.white_token))
                for event in stream:
                    if event.kind == g.GAME_EVENT_KIND_GAME_ENDED:
                        break
                stream.cancel()
            after_end = server.settled_rss_kib()
            ended.append(f"{mib(before_end)} -> {mib(after_end)} "
                         f"({(after_end - before_end) / n_games:+.2f} KiB per game)")
        return ("1", f"{done:,} WatchGame on random ids, 50 at a time, one client, then {more:,} more; then twice "
                     f"{n_games} games watched and resigned",
                "+1.1 GiB RSS in 7 s (about 57 KiB each, never freed); about 60 KB kept per ended watched game",
                f"{mib(before)} -> {mib(after)} ({(after - before) / 1024:+.1f} MiB) in {took:.1f} s, answers "
                f"{dict(codes)}; {mib(after_more)} after {more:,} more; ended watched games: " + ", then ".join(ended),
                "unknown id: NOT_FOUND GAME_NOT_FOUND, nothing registered; channel dropped with the last watcher")
    finally:
        server.close()


def mount_tmpfs(size):
    where = tempfile.mkdtemp(prefix="arbiter-hostile-disk-")
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", where], check=True)
    return where


def fill(path):
    with open(path, "wb", buffering=0) as filler:
        chunk = b"\x5a" * 65536
        try:
            while True:
                filler.write(chunk)
        except OSError:
            pass
        try:
            while True:
                filler.write(b"\x5a")
        except OSError:
            pass


def point_2(binary):
    disk = mount_tmpfs("4m")
    try:
        db = os.path.join(disk, "arbiter.db")
        server = Server(binary, db=db)
        channel = server.channel()
        games = games_stub(channel)
        g = pb["games"]
        acked = {}  # id -> (created, plies acknowledged)

        def create():
            try:
                created = new_game(games)
            except grpc.RpcError as err:
                return " ".join(error_info(err)[:2])
            acked[created.game.id] = [created, 0]
            return "OK"

        def move(game_id):
            created, ply = acked[game_id]
            token = created.white_token if ply % 2 == 0 else created.black_token
            try:
                games.MakeMove(g.MakeMoveRequest(game_id=game_id, seat_token=token, move=OPENING[ply],
                                                 expected_ply=ply))
            except grpc.RpcError as err:
                return " ".join(error_info(err)[:2])
            acked[game_id][1] += 1
            return "OK"

        create()
        first = next(iter(acked))
        move(first)
        move(first)
        fill(os.path.join(disk, "filler"))
        answers = Counter()
        for _ in range(10):
            answers["CreateGame " + create()] += 1
            answers["MakeMove " + move(first)] += 1
        while_full = health(channel)
        time.sleep(1)
        while_full = f"{while_full}, 1 s later {health(channel)}"
        missing_while_full = sum(1 for game_id in acked if outcome(
            lambda i=game_id: games.GetGame(g.GetGameRequest(game_id=i))) != "OK")

        os.remove(os.path.join(disk, "filler"))
        freed = time.monotonic()
        recovered = None
        while time.monotonic() - freed < 30:
            if health(channel) == "SERVING" and create() == "OK" and move(first) == "OK":
                recovered = time.monotonic() - freed
                break
            time.sleep(0.1)
        server.kill9()
        server = Server(binary, db=db)
        games = games_stub(server.channel())
        lost = 0
        for game_id, (created, plies) in acked.items():
            try:
                game = games.GetGame(g.GetGameRequest(game_id=game_id, view=g.GAME_VIEW_FULL)).game
                lost += int(game.ply != plies)
            except grpc.RpcError:
                lost += 1
        stored = len(games.ListGames(g.ListGamesRequest(page_size=100)).games)
        server.close()
        recovery = f"in {recovered:.1f} s" if recovered is not None else "NOT within 30 s"
        return ("2", "4 MiB tmpfs filled; 10 CreateGame + 10 MakeMove; filler removed; kill -9; restart",
                "after one SQLITE_FULL every MakeMove INTERNAL until restart; CreateGame OK yet the game gone "
                "after restart",
                f"while full: {dict(answers)}, health {while_full}, acknowledged games unreadable: "
                f"{missing_while_full}; recovered {recovery}"
                f" after freeing; after kill -9: {lost} of {len(acked)} acknowledged games lost or short, "
                f"{stored} games stored",
                "UNAVAILABLE STORE_UNAVAILABLE, health NOT_SERVING, connection discarded on a failed COMMIT")
    finally:
        subprocess.run(["umount", "-l", disk], check=False)
        os.rmdir(disk)


def point_3(binary):
    server = Server(binary)
    try:
        games = games_stub(server.channel())
        g = pb["games"]
        created = new_game(games)
        before = server.settled_rss_kib()
        connections = []
        request = g.WatchGameRequest(game_id=created.game.id, view=g.GAME_VIEW_FULL)
        for _ in range(5):
            connection = RawH2(server.port, window=65535)
            for _ in range(10):
                connection.call("/arbiter.v1.Games/WatchGame", request)
            # The server's SETTINGS and the snapshots; then it is never read.
            connection.pump(time.monotonic() + 0.3, ack=False)
            connections.append(connection)
        play(games, created, OPENING)
        after_moves = server.settled_rss_kib()
        offer_and_decline(games, created, 150)
        after_events = server.settled_rss_kib()
        reader = connections[0]
        reader.pump(time.monotonic() + 30)
        ends = Counter(f"{s['status'][0]} {s['status'][1]}" if s["status"] else "no end"
                       for s in reader.streams.values())
        sid = next(iter(reader.streams))
        versions = [g.WatchGameResponse.FromString(m).game.version for m in reader.messages(sid)]
        meta = reader.streams[sid]["status"][2] if reader.streams[sid]["status"] else {}
        for connection in connections:
            connection.close()
        time.sleep(1)
        after_close = server.settled_rss_kib()
        return ("3", "50 watchers (5 connections x 10, 64 KiB window, never read) of a game; 24 moves, then 300 "
                     "draw offer/decline events; one connection read again; all closed",
                "12.4 MiB per stalled watcher after 24 moves, 50 = +680 MiB, not returned after close",
                f"RSS {mib(before)} -> {mib(after_moves)} after 24 moves -> {mib(after_events)} after 300 events "
                f"-> {mib(after_close)} closed; the 10 read streams ended {dict(ends)}, last_version "
                f"{meta.get('last_version')} (last received {versions[-1] if versions else None})",
                "--watcher-buffer-bytes 1 MiB: RESOURCE_EXHAUSTED WATCHER_TOO_SLOW; events encoded once; "
                "freed memory purged after connections close")
    finally:
        server.close()


def point_4(binary):
    server = Server(binary)
    try:
        sock = socket.create_connection((HOST, server.port))
        sock.sendall(PREFACE + EMPTY_SETTINGS)
        settings = {}

        def server_settings(kind, flags, payload):
            if kind == 4 and not flags & 1:
                for i in range(0, len(payload), 6):
                    settings[int.from_bytes(payload[i:i + 2], "big")] = int.from_bytes(payload[i + 2:i + 6], "big")
                return True
            return False

        read_frames(sock, time.monotonic() + 10, server_settings)
        sock.sendall(SETTINGS_ACK)
        time.sleep(0.1)
        before = server.settled_rss_kib()
        seen = Counter()

        def count(kind, _flags, payload):
            if kind == 3:
                seen["RST_STREAM " + {7: "REFUSED_STREAM", 8: "CANCEL"}.get(int.from_bytes(payload, "big"),
                                                                           str(int.from_bytes(payload, "big")))] += 1
            elif kind == 7:
                seen[f"GOAWAY code {int.from_bytes(payload[4:8], 'big')}"] += 1
            return False

        reader = threading.Thread(target=read_frames, args=(sock, time.monotonic() + 30, count))
        reader.start()
        sent = 0
        try:
            for batch in range(200):
                sock.sendall(b"".join(open_stream(2 * (batch * 100 + i) + 1) for i in range(100)))
                sent += 100
        except OSError:
            pass
        time.sleep(2)
        during = server.settled_rss_kib()
        sock.close()
        reader.join()
        after = server.settled_rss_kib()
        return ("4", f"20,000 HEADERS-only Health streams (no body) tried on one connection ({sent:,} written "
                     "before the server closed it)",
                "no MAX_CONCURRENT_STREAMS advertised; +67 MiB; only 256 timed out per 60 s",
                f"advertised MAX_CONCURRENT_STREAMS {settings.get(3)}, MAX_HEADER_LIST_SIZE {settings.get(6)}; "
                f"RSS {mib(before)} -> {mib(during)} ({(during - before) / 1024:+.1f} MiB), {mib(after)} closed; "
                f"server sent {dict(seen)}",
                "--max-concurrent-streams 200; REFUSED_STREAM past it; GOAWAY after 1,024 refusals")
    finally:
        server.close()


def point_5(binary):
    parts = []
    # The cap raised above the connections opened, as the old code had none.
    server = Server(binary, ["--max-connections", "2500"])
    try:
        current_port[0] = server.port
        silent = raw_connections(1000, b"")
        preface = raw_connections(1000, PREFACE)
        time.sleep(1)
        at_once = [sum(map(is_open, silent)), sum(map(is_open, preface))]
        peak_fds = server.fds()
        time.sleep(14)
        at_15 = [sum(map(is_open, silent)), sum(map(is_open, preface))]
        time.sleep(60)
        at_75 = [sum(map(is_open, silent)), sum(map(is_open, preface))]
        for sock in silent + preface:
            sock.close()
        parts.append(f"1,000 silent + 1,000 preface-only (--max-connections 2500): open at 1 s {at_once[0]} + "
                     f"{at_once[1]} (server fds {peak_fds}), at 15 s {at_15[0]} + {at_15[1]}, at 75 s "
                     f"{at_75[0]} + {at_75[1]}")
        time.sleep(1)
        before = server.settled_rss_kib()
        many = raw_connections(1550, PREFACE + EMPTY_SETTINGS)
        time.sleep(1)
        during = server.settled_rss_kib()
        open_now = sum(map(is_open, many))
        for sock in many:
            sock.close()
        parts.append(f"1,550 greeted connections: {open_now} open, RSS {mib(before)} -> {mib(during)} "
                     f"({(during - before) / 1024:+.1f} MiB)")
    finally:
        server.close()

    # Past the cap (the default, 1,000): 1,000 greeted connections held,
    # then one more client.
    server = Server(binary)
    try:
        current_port[0] = server.port
        greeted = raw_connections(1000, PREFACE + EMPTY_SETTINGS)
        time.sleep(1)
        held = sum(map(is_open, greeted))
        started = time.monotonic()
        sock = socket.create_connection((HOST, server.port))
        sock.sendall(PREFACE + EMPTY_SETTINGS)
        closed = not wait_open(sock, 5)
        closed_after = time.monotonic() - started
        sock.close()
        started = time.monotonic()
        refused = health(server.channel(), timeout=5)
        health_after = time.monotonic() - started
        # CPU of the accept loop while 500 more clients knock at the cap.
        ticks = server.cpu_ticks()
        knock_started = time.monotonic()
        extra = raw_connections(500, PREFACE)
        time.sleep(3)
        cap_cpu = (server.cpu_ticks() - ticks) / os.sysconf("SC_CLK_TCK") / (time.monotonic() - knock_started)
        for s in greeted + extra:
            s.close()
        parts.append(f"at the default cap ({held} held): a new connection {'closed' if closed else 'NOT closed'} "
                     f"after {closed_after * 1e3:.0f} ms, a gRPC health check got {refused} in "
                     f"{health_after * 1e3:.0f} ms; CPU while 500 more connect {cap_cpu:.0%} of a core")
    finally:
        server.close()

    # At the file descriptor limit (64): CPU while 100 connections wait.
    server = Server(binary, ["--handshake-timeout", "60s"], max_files=64)
    try:
        current_port[0] = server.port
        flood = raw_connections(100, b"")
        time.sleep(0.5)
        fds = server.fds()
        ticks = server.cpu_ticks()
        time.sleep(3)
        cpu = (server.cpu_ticks() - ticks) / os.sysconf("SC_CLK_TCK") / 3
        for sock in flood:
            sock.close()
        started = time.monotonic()
        answer = None
        while time.monotonic() - started < 15:
            answer = health(server.channel(), timeout=2)
            if answer == "SERVING":
                break
        parts.append(f"at the fd limit (ulimit -n 64, 100 connections, {fds} fds): accept loop {cpu:.0%} of a core "
                     f"over 3 s; health after they closed {answer} in {time.monotonic() - started:.1f} s")
    finally:
        server.close()
    return ("5", "idle connections, the connection cap, the fd limit",
            "1,000 silent TCP + 1,000 preface-only all open after 75 s; 1,550 connections +117 MiB; at the fd "
            "limit new clients time out, accept loop 93% of a core",
            "; ".join(parts),
            "--handshake-timeout 10s, --idle-timeout 5m, keepalive 30s+10s, --max-connections 1000, accept back-off")


def wait_open(sock, seconds):
    """Whether `sock` stays open for `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not is_open(sock):
            return False
        time.sleep(0.01)
    return True


def point_6(binary):
    server = Server(binary)
    try:
        games = games_stub(server.channel())
        created = new_game(games)
        play(games, created, ["e4"])
        sock = socket.create_connection((HOST, server.port))
        sock.sendall(PREFACE)
        time.sleep(0.2)
        started = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        try:
            code = server.proc.wait(STEP_LIMIT_S)
        except subprocess.TimeoutExpired:
            code = "still running"
        took = time.monotonic() - started
        sock.close()
        server.log.close()
        server.start()
        ply = games_stub(server.channel()).GetGame(pb["games"].GetGameRequest(game_id=created.game.id)).game.ply
        return ("6", "SIGTERM with one preface-only connection open (a move acknowledged before)",
                "still running 25 s after SIGTERM",
                f"exited in {took:.1f} s (code {code}); after a restart the game has ply {ply} (1 acknowledged)",
                "a connection without a request in flight is closed at once at shutdown; "
                "--shutdown-grace 10s for requests in flight")
    finally:
        server.close()


def wrong_token_flood(addr, game_id, rate, seconds, counts):
    """Runs in its own process: wrong-token MakeMove at `rate` a second."""
    load_stubs()
    games = games_stub(grpc.insecure_channel(addr))
    g = pb["games"]
    request = g.MakeMoveRequest(game_id=game_id, seat_token="not-a-seat-token", move="e4")
    pending, answers = [], Counter()
    started = time.monotonic()
    for n in itertools.count():
        due = started + n / rate
        if due > started + seconds:
            break
        time.sleep(max(0.0, due - time.monotonic()))
        pending.append(games.MakeMove.future(request))
        while pending and pending[0].done():
            answers[pending.pop(0).code().name] += 1
    for future in pending:
        future.exception()
        answers[future.code().name] += 1
    counts.update({k: v for k, v in answers.items()})
    counts["rate"] = sum(answers.values()) / (time.monotonic() - started)


def point_7(binary):
    server = Server(binary)
    try:
        sans = long_game(2040)
        games = games_stub(server.channel())
        g = pb["games"]
        created = games.ImportGame(g.ImportGameRequest(pgn=pgn(sans[:2000]), variant=pb["common"].VARIANT_CHESS))

        def timed(plies):
            times = []
            for ply in plies:
                token = created.white_token if ply % 2 == 0 else created.black_token
                started = time.monotonic()
                games.MakeMove(g.MakeMoveRequest(game_id=created.game.id, seat_token=token, move=sans[ply],
                                                 expected_ply=ply))
                times.append(time.monotonic() - started)
            return times

        quiet = timed(range(2000, 2020))
        context = multiprocessing.get_context("spawn")
        with context.Manager() as manager:
            counts = manager.dict()
            flood = context.Process(target=wrong_token_flood, args=(server.addr, created.game.id, 409, 12, counts))
            flood.start()
            time.sleep(3)
            loud = []
            for ply in range(2020, 2040):
                loud += timed([ply])
                time.sleep(0.2)
            flood.join(STEP_LIMIT_S)
            counts = dict(counts)
        rate = counts.pop("rate", 0)
        return ("7", "a 2,000-ply game (ImportGame); 20 MakeMove alone, then 20 beside wrong-token MakeMove at "
                     "409/s from another process",
                "other players' MakeMove p50 0.62 ms alone, 37.7 ms with the flood",
                f"p50 {ms(statistics.median(quiet))} alone, {ms(statistics.median(loud))} with the flood "
                f"({rate:.0f}/s achieved, answers {counts})",
                "token, turn and expected ply checked from the game row before the write lock")
    finally:
        server.close()


def log_bytes(server):
    server.log.flush()
    return os.path.getsize(server.log_path)


def point_8(binary):
    server = Server(binary, ["--log-format", "json"], env={"RUST_LOG": "info"})
    try:
        games = games_stub(server.channel())
        g = pb["games"]
        rows = []
        for size in (1_000_000, 60_000):
            request = g.GetGameRequest(game_id="a" * size)
            wire = len(gzip.compress(request.SerializeToString()))
            before = log_bytes(server)
            answers = Counter(outcome(lambda: games.GetGame(request, compression=grpc.Compression.Gzip))
                              for _ in range(100))
            time.sleep(0.5)
            rows.append(f"id of {size:,} B ({wire:,} B gzip): {dict(answers)}, "
                        f"{(log_bytes(server) - before) / 100:.0f} B of log per request")
        longest = max(len(line) for line in open(server.log_path, "rb"))
        return ("8", "100 GetGame with a huge game_id, gzip, JSON logs at info",
                "1 KB of gzip became a 1 MB log line (173 KiB/s of upload wrote 176 MB/s of log)",
                "; ".join(rows) + f"; longest log line {longest:,} B",
                "ids not well-formed refused before logging; logged values cut to 128 characters; 64 KiB requests")
    finally:
        server.close()


def point_9(binary):
    # One RPC slot, as `serve` has by default on a two-core machine.
    server = Server(binary, args=["--engine-slots", "1"])
    try:
        channel = server.channel()
        engine = pb["engine_grpc"].EngineStub(channel)
        e, c = pb["engine"], pb["common"]
        analysis = engine.Analyze(e.AnalyzeRequest(position=c.Position(variant=c.VARIANT_XIANGQI),
                                                   limits=e.SearchLimits(movetime_ms=60_000), multipv=16))
        next(analysis)
        best = Counter()
        for _ in range(20):
            best[outcome(lambda: engine.BestMove(e.BestMoveRequest(position=c.Position(variant=c.VARIANT_CHESS),
                                                                  limits=e.SearchLimits(movetime_ms=100))))] += 1
        # Another caller, from another address.
        other = RawH2(server.port, source="127.0.0.2")
        latencies = []
        for _ in range(20):
            sent = time.monotonic()
            other.call("/arbiter.v1.Engine/BestMove", e.BestMoveRequest(
                position=c.Position(variant=c.VARIANT_CHESS), limits=e.SearchLimits(movetime_ms=100)))
            other.pump(time.monotonic() + 10)
            latencies.append(time.monotonic() - sent)
        other.close()
        elsewhere = Counter(f"{s['status'][0]} {s['status'][1]}".strip()
                            for s in other.streams.values() if s["status"])
        g = pb["games"]
        games = games_stub(server.channel())
        created = games.CreateGame(g.CreateGameRequest(
            variant=c.VARIANT_CHESS, white=g.SeatRequest(engine=g.EnginePlayer(level=10, movetime_ms=500)),
            black=seat("Human"), time_control=g.TimeControl(initial_ms=60_000, first_move_grace_ms=5_000)))
        started = time.monotonic()
        game = created.game
        while time.monotonic() - started < 15:
            game = games.GetGame(g.GetGameRequest(game_id=created.game.id)).game
            if game.ply >= 1 or game.outcome.status != c.OUTCOME_STATUS_ONGOING:
                break
            time.sleep(0.1)
        moved = (f"moved in {time.monotonic() - started:.1f} s" if game.ply >= 1
                 else f"did NOT move ({c.Termination.Name(game.outcome.termination)})")
        analysis.cancel()
        return ("9", "one Analyze (xiangqi, multipv 16, 60 s) running; 20 BestMove (100 ms) from its address and "
                     "20 from 127.0.0.2; a game with an engine seat (5 s first-move grace)",
                "20/20 BestMove RESOURCE_EXHAUSTED; the engine seat aborted at its grace, never got a slot",
                f"BestMove from the same address {dict(best)}, from another {dict(elsewhere)} "
                f"(latency p50 {ms(percentile(latencies, 0.5))}, max {ms(max(latencies))}); "
                f"the engine seat {moved}",
                "--engine-seat-slots 1 apart from --engine-slots; --max-analyses-per-peer 1 (ANALYSIS_LIMIT); "
                "--engine-queue 8, callers take turns of 100 ms at the RPC slots")
    finally:
        server.close()


def point_10(binary):
    server = Server(binary)
    try:
        games = games_stub(server.channel())
        g = pb["games"]
        created = new_game(games, clock_ms=3_600_000)
        play(games, created, ["e4", "e5"])
        rounds = []
        for _ in range(2):
            before = server.settled_rss_kib()
            started = time.monotonic()
            done = 0
            while done < 10_000 and time.monotonic() - started < 40:
                games.ProposeTakeback(g.ProposeTakebackRequest(game_id=created.game.id,
                                                               seat_token=created.white_token))
                games.RespondToTakeback(g.RespondToTakebackRequest(game_id=created.game.id,
                                                                   seat_token=created.black_token, accept=False))
                done += 1
            took = time.monotonic() - started
            after = server.settled_rss_kib()
            rounds.append(f"{done:,} pairs: {mib(before)} -> {mib(after)}, "
                          f"{(after - before) / done * 10_000 / 1024:+.1f} MiB per 10,000 ({done / took:.0f} pairs/s)")
        return ("10", "two rounds of up to 10,000 ProposeTakeback/decline pairs (40 s each at most) on a 1-hour game",
                "about 5.8 KB per pair (58 MB per 10,000), never freed before the turn's deadline",
                "; ".join(rounds),
                "one cancellable flag timer per game")
    finally:
        server.close()


def gzip_flood(addr, seconds, counts):
    """Runs in its own process: LegalMoves requests of 1 MB, gzip on the
    wire, as fast as answers come, 8 in flight."""
    load_stubs()
    rules = pb["rules_grpc"].RulesStub(grpc.insecure_channel(addr))
    c, r = pb["common"], pb["rules"]
    request = r.LegalMovesRequest(position=c.Position(variant=c.VARIANT_CHESS, fen=" " * 1_000_000))
    counts["wire"] = len(gzip.compress(request.SerializeToString()))
    answers, pending = Counter(), []
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        while len(pending) < 8:
            pending.append(rules.LegalMoves.future(request, compression=grpc.Compression.Gzip))
        future = pending.pop(0)
        error = future.exception()
        answers["OK" if error is None else " ".join(error_info(error)[:2])] += 1
    for future in pending:
        future.exception()
    counts.update(answers)
    counts["rate"] = sum(answers.values()) / (time.monotonic() - started)


def point_12(binary):
    server = Server(binary)
    try:
        rules = pb["rules_grpc"].RulesStub(server.channel())
        c, r = pb["common"], pb["rules"]
        request = r.LegalMovesRequest(position=c.Position(variant=c.VARIANT_CHESS))

        def latencies(n):
            times = []
            for _ in range(n):
                started = time.monotonic()
                rules.LegalMoves(request)
                times.append(time.monotonic() - started)
                time.sleep(0.005)
            return times

        quiet = latencies(500)
        context = multiprocessing.get_context("spawn")
        with context.Manager() as manager:
            counts = manager.dict()
            flood = context.Process(target=gzip_flood, args=(server.addr, 15, counts))
            flood.start()
            time.sleep(3)
            ticks, started = server.cpu_ticks(), time.monotonic()
            loud = latencies(500)
            cpu = (server.cpu_ticks() - ticks) / os.sysconf("SC_CLK_TCK") / (time.monotonic() - started)
            flood.join(STEP_LIMIT_S)
            counts = dict(counts)
        rate, wire = counts.pop("rate", 0), counts.pop("wire", 0)
        return ("12", f"LegalMoves of 1 MB sent as {wire:,} B gzip, 8 in flight from another process, beside "
                      "another client's LegalMoves (500 calls)",
                "240/s took 138% CPU; other clients' LegalMoves p99 0.34 -> 507 ms",
                f"{rate:.0f}/s answered {counts}; server CPU {cpu:.0%}; other client's p99 "
                f"{ms(percentile(quiet, 0.99))} alone -> {ms(percentile(loud, 0.99))} with the flood",
                "--max-request-bytes 64 KiB, gzip decoded only up to it; --max-in-flight 1024 (256 per peer)")
    finally:
        server.close()


SCALE_FILL = """
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
INSERT INTO games (id, variant, start_fen, white_name, black_name, white_token_hash, black_token_hash, status,
                   winner, termination, created_at, updated_at)
SELECT printf('g%015d', i), CASE WHEN i % 100 = 0 THEN 'xiangqi' ELSE 'chess' END,
       'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
       'Player ' || (i % 5000), 'Joueur ' || ((i * 7) % 5000), 'w' || i, 'b' || i,
       CASE WHEN i > ?1 * 9 / 10 THEN 'ongoing' WHEN i % 4 = 0 THEN 'drawn' ELSE 'decisive' END,
       CASE WHEN i > ?1 * 9 / 10 OR i % 4 = 0 THEN NULL ELSE 'white' END,
       CASE WHEN i > ?1 * 9 / 10 THEN NULL WHEN i % 4 = 0 THEN 'agreement'
            WHEN i % 50 = 1 THEN 'checkmate' ELSE 'resignation' END,
       1700000000000 + i * 60000, 1700000000000 + i * 60000 FROM n
"""


def point_13(binary):
    server = Server(binary)
    try:
        games = games_stub(server.channel())
        answers = Counter()
        started = time.monotonic()
        while time.monotonic() - started < 5:
            answers[outcome(lambda: new_game(games))] += 1
        took = time.monotonic() - started
        try:
            new_game(games)
            limit = {}
        except grpc.RpcError as err:
            limit = error_info(err)[2]
        rate_line = (f"CreateGame for {took:.0f} s from one address: {dict(answers)} "
                     f"({answers['OK'] / took:.0f} accepted/s), metadata {limit}")
        server.stop()
        # 200,000 games straight into the database, then served again.
        with sqlite3.connect(server.db) as db:
            db.execute(SCALE_FILL, (200_000,))
        started = time.monotonic()
        server.start()
        while health(server.channel()) != "SERVING" and time.monotonic() - started < STEP_LIMIT_S:
            time.sleep(0.1)
        opened = time.monotonic() - started
        games = games_stub(server.channel())
        g = pb["games"]
        cases = [("plain page", g.ListGamesRequest(page_size=50)),
                 ("player no match", g.ListGamesRequest(page_size=50, player="nobody")),
                 ("status=FINISHED", g.ListGamesRequest(page_size=50, status=g.GAME_STATUS_FILTER_FINISHED))]
        timings = []
        for name, request in cases:
            times = []
            for _ in range(15):
                t = time.monotonic()
                found = len(games.ListGames(request).games)
                times.append(time.monotonic() - t)
            timings.append(f"{name} {ms(statistics.median(times))} ({found} found)")
        return ("13", "CreateGame as fast as answers come from one address (defaults); ListGames at 200,000 games "
                      "(median of 15, through gRPC)",
                "CreateGame 1,892/s unlimited; at 200k games player no-match 64-97 ms, status=FINISHED 29 ms",
                f"{rate_line}; 200k games: server up in {opened:.1f} s, " + ", ".join(timings),
                "--create-rate 20 --create-burst 100 (RATE_LIMITED); indexes and FTS5 trigram for names")
    finally:
        server.close()


def watch_events(stream, events):
    """Collects (time, kind) of a watch stream until it ends."""
    try:
        for event in stream:
            events.append((time.monotonic(), event.kind))
    except grpc.RpcError:
        pass


def point_14(binary):
    server = Server(binary)
    try:
        games = games_stub(server.channel())
        g = pb["games"]
        created = new_game(games, clock_ms=5_000)
        play(games, created, ["e4", "e5"])
        white_deadline = time.monotonic() + 5
        events = []
        stream = games.WatchGame(g.WatchGameRequest(game_id=created.game.id))
        watcher = threading.Thread(target=watch_events, args=(stream, events))
        watcher.start()
        lock = sqlite3.connect(server.db, isolation_level=None, timeout=10)
        lock.execute("BEGIN IMMEDIATE")
        time.sleep(16)
        lock.execute("ROLLBACK")
        lock.close()
        released = time.monotonic()
        while time.monotonic() - released < 30 and not any(k == g.GAME_EVENT_KIND_GAME_ENDED for _, k in events):
            time.sleep(0.05)
        ended = [t for t, k in events if k == g.GAME_EVENT_KIND_GAME_ENDED]
        game = games.GetGame(g.GetGameRequest(game_id=created.game.id)).game
        stream.cancel()
        watcher.join()
        told = (f"watchers told {ended[0] - released:.1f} s after the release ({ended[0] - white_deadline:.1f} s past "
                f"the deadline)" if ended else "watchers NOT told within 30 s")
        return ("14", "a 5 s clock running out while another connection holds BEGIN IMMEDIATE for 16 s",
                "ongoing 17 s past its deadline; watchers never told",
                f"{told}; game {pb['common'].Termination.Name(game.outcome.termination)}",
                "the flag is retried with back-off until recorded")
    finally:
        server.close()


def point_15(binary):
    server = Server(binary)
    try:
        games = games_stub(server.channel())
        g = pb["games"]
        created = new_game(games, clock_ms=3_000)
        game_id, white, black = created.game.id, created.white_token, created.black_token
        play(games, created, ["e4", "e5", "Nf3", "Nc6", "Bc4"])
        thought, left, over = 0.0, [], None
        for _ in range(4):
            time.sleep(2.5)
            thought += 2.5
            try:
                games.ProposeTakeback(g.ProposeTakebackRequest(game_id=game_id, seat_token=black))
                taken = games.RespondToTakeback(g.RespondToTakebackRequest(game_id=game_id, seat_token=white,
                                                                           accept=True)).game
                left.append(taken.clock.black_ms)
                play(games, created, ["Nc6", "Bc4"], first_ply=3)
            except grpc.RpcError as err:
                over = " ".join(error_info(err)[:2])
                break
        game = games.GetGame(g.GetGameRequest(game_id=game_id)).game
        return ("15", "a 3 s clock: Black thinks 2.5 s, takes back (accepted), replays; up to 4 times",
                "10.2 s spent on a 3 s clock, 2,950 ms still left",
                f"Black's clock after each takeback {left} ms; after {thought:.1f} s thought: {over or 'no refusal'}, "
                f"game {pb['common'].Termination.Name(game.outcome.termination)}",
                "a takeback charges the turn it cuts short")
    finally:
        server.close()


def point_16(binary):
    server = Server(binary)
    try:
        games = games_stub(server.channel())
        g = pb["games"]
        created = new_game(games)
        before = server.settled_rss_kib()
        request = g.WatchGameRequest(game_id=created.game.id, view=g.GAME_VIEW_FULL)

        async def watchers():
            channels = [grpc.aio.insecure_channel(server.addr, options=[("grpc.use_local_subchannel_pool", 1)])
                        for _ in range(100)]
            opened, refused = [], Counter()

            async def one(channel):
                call = games_stub(channel).WatchGame(request)
                try:
                    await call.read()
                    opened.append(call)
                except grpc.aio.AioRpcError as err:
                    code, reason, meta = error_info(err)
                    refused[f"{code} {reason} cap={meta.get('cap')} limit={meta.get('limit')}"] += 1

            for channel in channels:
                await asyncio.gather(*(one(channel) for _ in range(100)))
            during = server.settled_rss_kib()
            for call in opened:
                call.cancel()
            for channel in channels:
                await channel.close()
            return len(opened), refused, during

        opened, refused, during = asyncio.run(watchers())
        time.sleep(1)
        after = server.settled_rss_kib()
        _, _, again = asyncio.run(watchers())
        time.sleep(1)
        after_again = server.settled_rss_kib()
        return ("16", "10,000 WatchGame on one game over 100 connections (100 each), closed; then all of it again",
                "10,000 watchers = +414 MiB, still held after closing",
                f"{opened:,} opened, refused {dict(refused)}; RSS {mib(before)} -> {mib(during)} "
                f"({(during - before) / 1024:+.1f} MiB) -> {mib(after)} once closed; the second time "
                f"{mib(again)} -> {mib(after_again)} once closed",
                "--max-watchers-per-game 1000, --max-watchers-per-connection 100 (TOO_MANY_WATCHERS); "
                "freed memory purged after connections close")
    finally:
        server.close()


def point_17(binary):
    server = Server(binary)
    try:
        channel = server.channel()
        games = games_stub(channel)
        positions = pb["positions_grpc"].PositionsStub(channel)
        g, p, c = pb["games"], pb["positions"], pb["common"]
        tag = outcome(lambda: positions.CreatePosition(p.CreatePositionRequest(
            variant=c.VARIANT_CHESS, fen="4k3/8/8/8/8/8/8/4K2R w K - 0 1", name="rook", tags=["end\ngame"])))
        new_game(games, white="Élodie")
        found = len(games.ListGames(g.ListGamesRequest(player="élodie")).games)
        created = new_game(games)
        play(games, created, ["e4", "e5"])
        games.ProposeTakeback(g.ProposeTakebackRequest(game_id=created.game.id, seat_token=created.white_token))
        counter = outcome(lambda: games.ProposeTakeback(g.ProposeTakebackRequest(
            game_id=created.game.id, seat_token=created.black_token)))
        tokens = '[White "W"]\n[Black "B"]\n\n1. e4 ' + "()" * 250_000 + " *"
        started = time.monotonic()
        try:
            games.ImportGame(g.ImportGameRequest(pgn=tokens, variant=c.VARIANT_CHESS))
            imported, meta = "OK", {}
        except grpc.RpcError as err:
            code, reason, meta = error_info(err)
            imported = f"{code} {reason}"
        took = time.monotonic() - started
        return ("17", "a tag with a newline; player filter \"élodie\" for \"Élodie\"; a counter-proposal of a "
                      "takeback; ImportGame of 500k tokens (500 KB)",
                "tag read back as two; no match; the pending proposal silently replaced; the whole PGN parsed "
                "(9 ms CPU)",
                f"tag: {tag}; \"élodie\" finds {found} game(s); counter-proposal: {counter}; ImportGame: "
                f"{imported} {meta} in {took * 1e3:.1f} ms (round trip)",
                "control characters refused; Unicode case folding; --import-max-tokens 20000")
    finally:
        server.close()


def point_11(binary):
    server = Server(binary)
    try:
        positions = pb["positions_grpc"].PositionsStub(server.channel())
        p, c = pb["positions"], pb["common"]
        saved = positions.CreatePosition(p.CreatePositionRequest(variant=c.VARIANT_CHESS,
                                                                 fen="4k3/8/8/8/8/8/8/4K2R w K - 0 1", name="rook"))
        position_id = saved.position.id

        def delete(token):
            return outcome(lambda: positions.DeletePosition(p.DeletePositionRequest(id=position_id,
                                                                                   owner_token=token)))

        answers = [f"no token: {delete('')}", f"wrong token: {delete('0' * 64)}",
                   f"owner token: {delete(saved.owner_token)}"]
        return ("11", "DeletePosition of a saved position without, with a wrong and with its owner token",
                "anyone could delete any position (no figure)", "; ".join(answers),
                "owner token from CreatePosition (stored hashed), or --admin-token")
    finally:
        server.close()


def openssl(*args, stdin=""):
    subprocess.run(["openssl", *args], check=True, capture_output=True, input=stdin.encode())


def point_18(binary):
    where = tempfile.mkdtemp(prefix="arbiter-hostile-tls-")
    path = lambda name: os.path.join(where, name)  # noqa: E731
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
            "-subj", "/CN=test CA", "-keyout", path("ca.key"), "-out", path("ca.pem"))
    for name, extension in (("server", "subjectAltName=IP:127.0.0.1"), ("client", "extendedKeyUsage=clientAuth")):
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", f"/CN={name}",
                "-keyout", path(f"{name}.key"), "-out", path(f"{name}.csr"))
        openssl("x509", "-req", "-in", path(f"{name}.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                "-CAcreateserial", "-days", "1", "-extfile", "/dev/stdin", "-out", path(f"{name}.pem"),
                stdin=extension)
    read = lambda name: open(path(name), "rb").read()  # noqa: E731
    tls = ["--tls-cert", path("server.pem"), "--tls-key", path("server.key")]
    answers = []
    for mutual in (False, True):
        server = Server(binary, tls + (["--tls-client-ca", path("ca.pem")] if mutual else []))
        try:
            plain = health(grpc.insecure_channel(server.addr))
            no_cert = health(grpc.secure_channel(server.addr, grpc.ssl_channel_credentials(read("ca.pem"))))
            with_cert = health(grpc.secure_channel(server.addr, grpc.ssl_channel_credentials(
                read("ca.pem"), read("client.key"), read("client.pem"))))
            answers.append(f"{'mTLS' if mutual else 'TLS'}: plaintext client {plain}, TLS client without a "
                           f"certificate {no_cert}, with one {with_cert}")
        finally:
            server.close()
    shutil.rmtree(where, ignore_errors=True)
    return ("18", "health over plaintext, TLS, and TLS with a client certificate, against --tls-cert/--tls-key "
                  "and then also --tls-client-ca",
            "plaintext only (no figure)", "; ".join(answers), "--tls-cert, --tls-key, --tls-client-ca")


# ------------------------------------- fair shares between addresses


WATCH_GAME, WATCH_PLAYER, GET_GAME, MAKE_MOVE = (f"/arbiter.v1.Games/{name}" for name in
                                                  ("WatchGame", "WatchPlayer", "GetGame", "MakeMove"))


def varint(data, i):
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def wire_fields(data):
    """(number, bytes) of a protobuf message's length-delimited fields."""
    i = 0
    while i < len(data):
        key, i = varint(data, i)
        kind = key & 7
        if kind == 0:
            _, i = varint(data, i)
        elif kind in (1, 5):
            i += 8 if kind == 1 else 4
        elif kind == 2:
            length, i = varint(data, i)
            yield key >> 3, data[i:i + length]
            i += length
        else:
            return


def server_fields(server, message):
    """The field names the server's own contract gives `message` (a full
    name), asked of its reflection service: a field of this script's
    contract that an older server lacks is not sent to it."""
    symbol = message.encode()
    # ServerReflectionRequest { file_containing_symbol (4) }
    info = server.channel().stream_stream("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo")
    answer = next(info(iter([bytes([0x22, len(symbol)]) + symbol]), timeout=10))
    package, name = message.rsplit(".", 1)
    for number, response in wire_fields(answer):
        if number == 4:  # file_descriptor_response { repeated bytes file_descriptor_proto (1) }
            for _, proto in wire_fields(response):
                file = descriptor_pb2.FileDescriptorProto.FromString(proto)
                for kind in file.message_type:
                    if file.package == package and kind.name == name:
                        return {field.name for field in kind.field}
    return set()


def open_streams(port, source, path, request, count, per_connection=100, done=RawH2.answered):
    """`count` calls of `path` from the address `source`, `per_connection`
    to a connection, all sent at once; then read until each has had a
    message or its end (`done`), 10 s at most."""
    connections = []
    for first in range(0, count, per_connection):
        connection = RawH2(port, source=source)
        for _ in range(min(per_connection, count - first)):
            connection.call(path, request)
        connections.append(connection)
    pump_all(connections, time.monotonic() + 10, done=done)
    return connections


def one_call(port, source, path, request, done=RawH2.answered):
    """One call on a fresh connection from `source`: "OK" (a unary call,
    with `done` RawH2.ended), "held" (a stream served), or how it ended."""
    connection = open_streams(port, source, path, request, 1, done=done)[0]
    connection.close()
    return connection.outcome(next(iter(connection.streams)))


def close_all(connections):
    for connection in connections:
        connection.close()


def point_19(binary):
    server = Server(binary)
    connections = []
    try:
        games = games_stub(server.channel())
        g = pb["games"]
        created = new_game(games)
        started = time.monotonic()
        connections = open_streams(server.port, "127.0.0.1", WATCH_GAME, g.WatchGameRequest(game_id=created.game.id),
                                   1000, per_connection=1)
        took = time.monotonic() - started
        held = outcomes(connections)
        request = g.GetGameRequest(game_id=created.game.id)
        others = Counter(one_call(server.port, "127.0.0.2", GET_GAME, request, done=RawH2.ended) for _ in range(20))
        pump_all(connections, time.monotonic() + 1, done=lambda _: False)
        return ("19", "from 127.0.0.1, 1,000 connections each holding one WatchGame stream, opened as fast as it "
                      "can (beside the script's own gRPC channel from there); then from 127.0.0.2, 20 GetGame, "
                      "each on a fresh connection",
                "1,000 held (opened in 0.3 s); every other client's GetGame UNAVAILABLE: 0/20",
                f"the 1,000 all answered in {took:.1f} s: {dict(held)}; GetGame from 127.0.0.2 {others['OK']}/20 "
                f"OK {dict(others)}; held after that {outcomes(connections)['held']}",
                "--max-connections-per-peer 100 (TOO_MANY_CONNECTIONS), --max-streams-per-peer 200")
    finally:
        close_all(connections)
        server.close()


def spend_create_budget(games):
    """CreateGame until refused (400 at most): how many, and the refusal."""
    for made in range(400):
        answer = outcome(lambda: new_game(games))
        if answer != "OK":
            return f"CreateGame refused after {made}: {answer}"
    return "CreateGame NOT refused after 400"


def rematch_chain(games, created, engine, deadline, answers, made):
    """Resign, OfferRematch, RespondToRematch (accept) and OfferRematch
    again for the offerer's token, in each new game, until `deadline`;
    against an engine seat OfferRematch alone makes the rematch. A refused
    step is tried again (after its retry_after_ms); games made go in
    `made`, answers in `answers`."""
    g = pb["games"]
    game_id, mine, theirs = created.game.id, created.white_token, created.black_token

    def step(method, request):
        while time.monotonic() < deadline:
            try:
                answer = method(request)
                answers["OK"] += 1
                return answer
            except grpc.RpcError as err:
                code, reason, meta = error_info(err)
                answers[f"{code} {reason}".strip()] += 1
                if code != "RESOURCE_EXHAUSTED":
                    return None
                time.sleep(min(1.0, int(meta.get("retry_after_ms", 10)) / 1e3))
        return None

    while step(games.Resign, g.ResignRequest(game_id=game_id, seat_token=mine)) is not None:
        offer = g.OfferRematchRequest(game_id=game_id, seat_token=mine)
        offered = step(games.OfferRematch, offer)
        if offered is not None and not engine:
            accepted = step(games.RespondToRematch, g.RespondToRematchRequest(game_id=game_id, seat_token=theirs,
                                                                              accept=True))
            if accepted is None:
                return
            made.append(accepted.rematch.id)
            theirs = accepted.seat_token
            offered = step(games.OfferRematch, offer)
        elif offered is not None:
            made.append(offered.rematch.id)
        if offered is None:
            return
        game_id, mine = offered.rematch.id, offered.seat_token


def point_20(binary):
    server = Server(binary)
    try:
        games = games_stub(server.channel())
        g = pb["games"]
        engine = g.SeatRequest(engine=g.EnginePlayer(level=1, movetime_ms=100))
        humans = [new_game(games) for _ in range(4)]
        engines = [games.CreateGame(g.CreateGameRequest(variant=pb["common"].VARIANT_CHESS, white=seat("Human"),
                                                        black=engine)) for _ in range(4)]
        rows = []
        for name, chains, against_engine in (("between two players", humans, False),
                                             ("against an engine seat", engines, True)):
            spent = spend_create_budget(games)
            deadline = time.monotonic() + 10
            answers, made = [Counter() for _ in chains], []
            threads = [threading.Thread(target=rematch_chain, args=(games_stub(server.channel()), created,
                                                                    against_engine, deadline, counts, made))
                       for created, counts in zip(chains, answers)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(STEP_LIMIT_S)
            rows.append(f"{name} ({spent}): {len(made):,} games in 10 s ({len(made) / 10:.0f}/s), answers "
                        f"{dict(sum(answers, Counter()))}")
        return ("20", "4 chains of Resign -> OfferRematch -> RespondToRematch (accept) -> the new game, for 10 s, "
                      "from one address whose CreateGame budget is spent (defaults: 20/s, burst 100); the same "
                      "against engine seats (OfferRematch makes the game)",
                "4,079 games in 10 s (408/s) with CreateGame refused for rate; 327/s against an engine seat",
                "; ".join(rows),
                "OfferRematch and an accepting RespondToRematch spend --create-rate/--create-burst (RATE_LIMITED)")
    finally:
        server.close()


def seat_watch(server, created):
    """White's WatchGame request, with its seat token where the server's
    contract has the field (WatchGameRequest.seat_token), and how it was
    made."""
    g = pb["games"]
    if "seat_token" in server_fields(server, "arbiter.v1.WatchGameRequest"):
        return g.WatchGameRequest(game_id=created.game.id, seat_token=created.white_token), "with its seat_token"
    return g.WatchGameRequest(game_id=created.game.id), "without seat_token (not in the server's contract)"


def player_seats(created):
    g = pb["games"]
    return g.WatchPlayerRequest(seats=[g.PlayerSeat(game_id=created.game.id, seat_token=created.white_token)])


def point_21(binary):
    rows = []
    server = Server(binary)
    squatters = []
    try:
        created = new_game(games_stub(server.channel()))
        player, how = seat_watch(server, created)
        spectator = pb["games"].WatchGameRequest(game_id=created.game.id)
        squatters = open_streams(server.port, "127.0.0.1", WATCH_GAME, spectator, 1000)
        alone = outcomes(squatters)
        # The places 127.0.0.1 was refused, taken from 127.0.0.3 and on.
        for n in range(3, 9):
            held = outcomes(squatters)["held"]
            if held < 1000:
                squatters += open_streams(server.port, f"127.0.0.{n}", WATCH_GAME, spectator, 1000 - held)
        watched = one_call(server.port, "127.0.0.2", WATCH_GAME, player)
        followed = one_call(server.port, "127.0.0.2", WATCH_PLAYER, player_seats(created))
        rows.append(f"1,000 WatchGame from 127.0.0.1: {dict(alone)}; spectators held with 127.0.0.3-8's help "
                    f"{outcomes(squatters)['held']}; then White from 127.0.0.2: WatchGame {how} {watched}, "
                    f"WatchPlayer {followed}")
    finally:
        close_all(squatters)
        server.close()

    server = Server(binary)
    streams = []
    try:
        games = games_stub(server.channel())
        mine, other = new_game(games), new_game(games)
        started = time.monotonic()
        streams = open_streams(server.port, "127.0.0.1", WATCH_PLAYER, player_seats(mine), 1200)
        took = time.monotonic() - started
        elsewhere = one_call(server.port, "127.0.0.2", WATCH_PLAYER, player_seats(other))
        rows.append(f"1,200 WatchPlayer of one seat from 127.0.0.1 (12 connections): {dict(outcomes(streams))} in "
                    f"{took:.1f} s; then another game's player from 127.0.0.2: WatchPlayer {elsewhere}")
    finally:
        close_all(streams)
        server.close()
    return ("21", "one address takes a game's 1,000 spectator places (WatchGame), with more addresses where it "
                  "cannot alone; the game's White then watches from another address (WatchGame, WatchPlayer); "
                  "one client holding one seat opens WatchPlayer streams",
            "the game's players refused WatchGame and WatchPlayer; --max-player-streams (1,000) filled in 1.2 s, "
            "every other player's WatchPlayer refused",
            "; ".join(rows),
            "players' streams not counted as spectators (seat_token); --max-streams-per-peer 200 (cap=peer)")


def hold_silent(port, count, stop, reopened):
    """Keeps `count` silent connections from 127.0.0.1 open to `port`,
    reopening each as it closes, until `stop` is set."""
    socks = []
    while not stop.is_set():
        kept = [sock for sock in socks if is_open(sock)]
        for sock in set(socks) - set(kept):
            sock.close()
            reopened[0] += 1
        socks = kept + [socket.create_connection((HOST, port), source_address=("127.0.0.1", 0))
                        for _ in range(count - len(kept))]
        time.sleep(0.01)
    for sock in socks:
        sock.close()


def scrape(port, source, seconds=3):
    """GET /metrics on a fresh connection from `source`: the answer's
    status line, or how the connection ended."""
    answer = b""
    try:
        with socket.create_connection((HOST, port), timeout=seconds, source_address=(source, 0)) as sock:
            sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: arbiter\r\nConnection: close\r\n\r\n")
            while chunk := sock.recv(65536):
                answer += chunk
    except TimeoutError:
        return "timed out"
    except OSError as err:
        return type(err).__name__
    return answer.split(b"\r\n", 1)[0].decode() if answer else "closed"


def point_22(binary):
    metrics_port = next(PORTS)
    server = Server(binary, ["--metrics-listen", f"{HOST}:{metrics_port}"])
    stop, reopened = threading.Event(), [0]
    holder = threading.Thread(target=hold_silent, args=(metrics_port, 6, stop, reopened))
    try:
        holder.start()
        time.sleep(1)
        started = time.monotonic()
        answers = Counter()
        for i in range(30):
            answers[scrape(metrics_port, "127.0.0.1" if i % 2 else "127.0.0.2")] += 1
            time.sleep(0.1)
        took = time.monotonic() - started
        served = sum(n for line, n in answers.items() if " 200 " in line)
        return ("22", "6 silent TCP connections from 127.0.0.1 to the metrics endpoint (--metrics-listen), reopened "
                      "as they close; then 30 scrapes 0.1 s apart, half from 127.0.0.1, half from 127.0.0.2",
                "0/30 scrapes served (4 connections at once, each held up to 10 s)",
                f"{served}/30 served in {took:.1f} s {dict(answers)}; the silent ones reopened {reopened[0]} times",
                "metrics: 64 connections, 8 per address, 2 s each")
    finally:
        stop.set()
        holder.join()
        server.close()


def point_23(binary):
    log_dir = tempfile.mkdtemp(prefix="arbiter-hostile-log-")
    try:
        Server(binary, ["--admin-token", "a" * 16], log=os.path.join(log_dir, "serve.log")).close()
        weak = "started"
    except RuntimeError:
        lines = [line for line in open(os.path.join(log_dir, "serve.log"), errors="replace") if line.strip()]
        weak = "refused: " + next((line for line in lines if "error" in line.lower()), lines[-1]).strip()[:240]
    shutil.rmtree(log_dir, ignore_errors=True)
    server = Server(binary)
    try:
        games = games_stub(server.channel())
        g = pb["games"]
        created = new_game(games)
        token = created.white_token
        alphabet = sorted(set(token))
        answers = Counter()
        started = time.monotonic()
        while time.monotonic() - started < 5:
            guess = "".join(alphabet[b % len(alphabet)] for b in os.urandom(len(token)))
            answers[outcome(lambda: games.MakeMove(g.MakeMoveRequest(game_id=created.game.id, seat_token=guess,
                                                                     move="e4")))] += 1
        took = time.monotonic() - started
        player = one_call(server.port, "127.0.0.2", MAKE_MOVE,
                          g.MakeMoveRequest(game_id=created.game.id, seat_token=token, move="e4"), done=RawH2.ended)
        return ("23", "--admin-token aaaaaaaaaaaaaaaa at start-up; one sequential client guessing seat tokens on "
                      "MakeMove for 5 s",
                "the weak token starts; 2,797 guesses/s, none limited",
                f"weak token: {weak}; {sum(answers.values()) / took:,.0f} guesses/s, answers {dict(answers)}; then "
                f"White's own MakeMove from 127.0.0.2 {player}",
                "weak --admin-token refused (zxcvbn); --auth-failure-rate 5, --auth-failure-burst 20 "
                "(CREDENTIAL_CHECKS_LIMITED)")
    finally:
        server.close()


POINTS = {1: point_1, 2: point_2, 3: point_3, 4: point_4, 5: point_5, 6: point_6, 7: point_7, 8: point_8,
          9: point_9, 10: point_10, 11: point_11, 12: point_12, 13: point_13, 14: point_14, 15: point_15,
          16: point_16, 17: point_17, 18: point_18, 19: point_19, 20: point_20, 21: point_21, 22: point_22,
          23: point_23}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--points", default=",".join(map(str, POINTS)))
    parser.add_argument("--markdown", action="store_true", help="also print the table for BENCHMARKS.md")
    args = parser.parse_args()
    # Thousands of client connections.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    load_stubs()
    print(f"machine: {os.cpu_count()} cores, load {open('/proc/loadavg').read().split()[:3]}", flush=True)
    rows = []
    started = time.monotonic()
    for number in (int(n) for n in args.points.split(",")):
        point_started = time.monotonic()
        try:
            row = POINTS[number](args.binary)
        except Exception as err:  # a point that fails says so and the run goes on
            row = (str(number), "(failed)", "", f"FAILED: {type(err).__name__}: {err}", "")
        rows.append(row)
        print(f"point {row[0]} | {row[1]} | unprotected: {row[2]} | today: {row[3]} "
              f"[{time.monotonic() - point_started:.0f} s, load {open('/proc/loadavg').read().split()[0]}]",
              flush=True)
    print(f"total {time.monotonic() - started:.0f} s, load {open('/proc/loadavg').read().split()[:3]}")
    if args.markdown:
        print("\n| point | attack | unprotected | today | the limit that answers it |\n|---|---|---|---|---|")
        for row in rows:
            print("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")


if __name__ == "__main__":
    main()
