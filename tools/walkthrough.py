#!/usr/bin/env python3
"""A complete game through Arbiter's gRPC API, from an independent client.

Compiles proto/arbiter/v1/*.proto with grpcio-tools at run time, then plays
against a running server (default 127.0.0.1:50051):

  1. a chess game: create, moves in SAN and UCI, an illegal move and its
     reason, a declined draw offer, then Fool's mate;
  2. a xiangqi game: moves in ICCS, WXF and Chinese, then a draw by
     agreement;
  3. a game by join code: a seat left open, taken with JoinGame, the
     watcher told (SEAT_JOINED), a second joiner refused (SEAT_TAKEN);
  4. a rematch of it: offered, accepted, the offerer's token asked for
     again, a watcher following to the new game (REMATCH_STARTED);
  5. players: two accounts, a rated challenge accepted, the game played
     with player tokens (no seat tokens), both ratings changed;
  6. a Chess960 game from start 100, both sides castling king takes rook,
     its PGN export read back by python-chess's Chess960 reader;
  7. Crazyhouse (drops), Atomic (an explosion) and Three-check games, each
     export read back by python-chess's variant boards to the same FEN;
  8. the stateless Rules service on both games.

    python3 -m venv .venv
    .venv/bin/pip install -r tools/requirements-walkthrough.txt
    cargo run --release -- serve &
    .venv/bin/python tools/walkthrough.py [--addr 127.0.0.1:50051]

The README's walkthrough shows these requests; this script keeps it honest,
and .ci/run plays it against a real server on every change. It exits 0 and
prints "ok" when every step went as expected.
"""

import argparse
import importlib
import os
import secrets
import sys
import tempfile

import io

import chess
import chess.pgn
import chess.variant
import grpc
from grpc_tools import protoc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_stubs():
    out = tempfile.mkdtemp(prefix="arbiter-py-")
    protos = [f"arbiter/v1/{n}.proto" for n in ("common", "rules", "positions", "games", "players")]
    protos += ["google/rpc/status.proto", "google/rpc/error_details.proto"]
    include = os.path.join(os.path.dirname(protoc.__file__), "_proto")
    code = protoc.main(["protoc", f"-I{ROOT}/proto", f"-I{include}", f"--python_out={out}", f"--grpc_python_out={out}", *protos])
    if code != 0:
        sys.exit("protoc failed")
    sys.path.insert(0, out)
    names = ["common_pb2", "rules_pb2", "rules_pb2_grpc", "games_pb2", "games_pb2_grpc", "players_pb2", "players_pb2_grpc"]
    return {n: importlib.import_module(f"arbiter.v1.{n}") for n in names}


def reason(err):
    """The ErrorInfo reason of a failed call (from grpc-status-details-bin)."""
    status_pb2 = importlib.import_module("google.rpc.status_pb2")
    details_pb2 = importlib.import_module("google.rpc.error_details_pb2")
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                info = details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return info.reason
    return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--addr", default="127.0.0.1:50051")
    args = parser.parse_args()
    pb = load_stubs()
    common, rules_pb, games_pb = pb["common_pb2"], pb["rules_pb2"], pb["games_pb2"]
    channel = grpc.insecure_channel(args.addr)
    games = pb["games_pb2_grpc"].GamesStub(channel)
    rules = pb["rules_pb2_grpc"].RulesStub(channel)

    print("== chess ==")
    created = games.CreateGame(games_pb.CreateGameRequest(
        variant=common.VARIANT_CHESS,
        white=games_pb.SeatRequest(display_name="Alice"),
        black=games_pb.SeatRequest(display_name="Bob")))
    game_id, white, black = created.game.id, created.white_token, created.black_token
    print("created", game_id, "turn", common.Side.Name(created.game.turn))

    def move(token, text, ply):
        reply = games.MakeMove(games_pb.MakeMoveRequest(game_id=game_id, seat_token=token, move=text, expected_ply=ply))
        m = reply.move.move
        print(f"  {text:>6} -> uci {m.uci:6} san {m.san:6} outcome {reply.game.outcome.description}")
        return reply.game

    move(white, "f3", 0)
    try:
        games.MakeMove(games_pb.MakeMoveRequest(game_id=game_id, seat_token=black, move="e8e6", expected_ply=1))
    except grpc.RpcError as err:
        print("  illegal:", err.code().name, "-", err.details())
    move(black, "e7e5", 1)
    games.OfferDraw(games_pb.OfferDrawRequest(game_id=game_id, seat_token=white))
    print("  white offers a draw; black declines")
    games.RespondToDraw(games_pb.RespondToDrawRequest(game_id=game_id, seat_token=black, accept=False))
    move(white, "g4", 2)
    final = move(black, "Qh4#", 3)
    assert final.outcome.termination == common.TERMINATION_CHECKMATE
    assert final.outcome.winner == common.SIDE_BLACK

    print("== xiangqi ==")
    # Seats left out are named after their sides.
    created = games.CreateGame(games_pb.CreateGameRequest(variant=common.VARIANT_XIANGQI))
    assert (created.game.white.display_name, created.game.black.display_name) == ("Red", "Black")
    game_id, red, black = created.game.id, created.white_token, created.black_token
    for ply, (token, text) in enumerate([(red, "h2e2"), (black, "马8进7"), (red, "H2+3"), (black, "h7h0")]):
        reply = games.MakeMove(games_pb.MakeMoveRequest(game_id=game_id, seat_token=token, move=text, expected_ply=ply))
        m = reply.move.move
        print(f"  {text:>6} -> iccs {m.uci} wxf {m.san:6} chinese {m.chinese}")
    games.OfferDraw(games_pb.OfferDrawRequest(game_id=game_id, seat_token=red))
    drawn = games.RespondToDraw(games_pb.RespondToDrawRequest(game_id=game_id, seat_token=black, accept=True)).game
    print("  outcome:", drawn.outcome.description)
    assert drawn.outcome.termination == common.TERMINATION_AGREEMENT

    print("== join by code ==")
    created = games.CreateGame(games_pb.CreateGameRequest(
        variant=common.VARIANT_CHESS,
        white=games_pb.SeatRequest(display_name="Alice"),
        black=games_pb.SeatRequest(open=True)))
    game_id, alice, code = created.game.id, created.white_token, created.join_code
    assert created.game.black.open and created.black_token == ""
    print("  join code", code, "black open:", created.game.black.open)
    watch = games.WatchGame(games_pb.WatchGameRequest(game_id=game_id, follow_rematch=True))
    next(watch)  # the snapshot
    try:
        games.MakeMove(games_pb.MakeMoveRequest(game_id=game_id, seat_token=alice, move="e4"))
    except grpc.RpcError as err:
        print("  before the seat is taken:", err.code().name, reason(err))
    joined = games.JoinGame(games_pb.JoinGameRequest(join_code=code.lower(), display_name="Carol"))
    carol = joined.seat_token
    print("  Carol joins as", common.Side.Name(joined.side), "- watcher:", games_pb.GameEventKind.Name(next(watch).kind))
    try:
        games.JoinGame(games_pb.JoinGameRequest(join_code=code, display_name="Dave"))
    except grpc.RpcError as err:
        print("  Dave is late:", err.code().name, reason(err))
    games.MakeMove(games_pb.MakeMoveRequest(game_id=game_id, seat_token=alice, move="e4"))
    assert next(watch).kind == games_pb.GAME_EVENT_KIND_MOVE
    games.Resign(games_pb.ResignRequest(game_id=game_id, seat_token=carol))
    print("  Carol resigns - watcher:", games_pb.GameEventKind.Name(next(watch).kind))

    print("== rematch ==")
    offered = games.OfferRematch(games_pb.OfferRematchRequest(game_id=game_id, seat_token=alice))
    print("  Alice offers - rematch_offer", common.Side.Name(offered.game.rematch_offer),
          "- watcher:", games_pb.GameEventKind.Name(next(watch).kind))
    accepted = games.RespondToRematch(games_pb.RespondToRematchRequest(game_id=game_id, seat_token=carol, accept=True))
    rematch = accepted.rematch
    started = next(watch)
    print("  Carol accepts: she plays", common.Side.Name(accepted.side), "- watcher:",
          games_pb.GameEventKind.Name(started.kind), "to the new game:", started.game.rematch == rematch.id)
    assert list(watch) == [], "a following stream closes after REMATCH_STARTED"
    # The offerer asks again with its old token for its seat in the rematch.
    asked = games.OfferRematch(games_pb.OfferRematchRequest(game_id=game_id, seat_token=alice))
    assert asked.rematch.id == rematch.id
    print("  Alice asks again: she plays", common.Side.Name(asked.side),
          "- white", rematch.white.display_name, "black", rematch.black.display_name,
          "- rematch_of the first game:", rematch.rematch_of == game_id)
    games.MakeMove(games_pb.MakeMoveRequest(game_id=rematch.id, seat_token=accepted.seat_token, move="d4"))
    games.MakeMove(games_pb.MakeMoveRequest(game_id=rematch.id, seat_token=asked.seat_token, move="d5"))
    print("  both new tokens play: d4 d5")

    print("== players ==")
    players_pb = pb["players_pb2"]
    players = pb["players_pb2_grpc"].PlayersStub(channel)
    suffix = secrets.token_hex(4)
    ann = players.CreatePlayer(players_pb.CreatePlayerRequest(username=f"Ann_{suffix}"))
    ben = players.CreatePlayer(players_pb.CreatePlayerRequest(username=f"Ben_{suffix}", display_name="Ben"))
    as_ann = (("authorization", f"Bearer {ann.token}"),)
    as_ben = (("authorization", f"Bearer {ben.token}"),)
    print("  players", ann.player.id, "and", ben.player.id)
    made = players.CreateChallenge(players_pb.CreateChallengeRequest(
        destination_id=ben.player.username, variant=common.VARIANT_CHESS, rated=True,
        color=players_pb.CHALLENGE_COLOR_BLACK,
        time_control=games_pb.TimeControl(initial_ms=300_000, increment_ms=3_000)), metadata=as_ann).challenge
    incoming = players.ListChallenges(players_pb.ListChallengesRequest(), metadata=as_ben).incoming
    assert [c.id for c in incoming] == [made.id]
    game = players.AcceptChallenge(players_pb.AcceptChallengeRequest(challenge_id=made.id), metadata=as_ben).game
    print("  Ben accepts Ann's rated challenge: white", game.white.player_id, "black", game.black.player_id)
    for text, who in [("f3", as_ben), ("e5", as_ann), ("g4", as_ben), ("Qh4#", as_ann)]:
        game = games.MakeMove(games_pb.MakeMoveRequest(game_id=game.id, move=text), metadata=who).game
    print("  ", game.outcome.description, "- rating changes: white", game.white.rating_diff,
          "black", game.black.rating_diff)
    assert game.rated and game.black.rating_diff > 0 > game.white.rating_diff
    rated = players.GetPlayer(players_pb.GetPlayerRequest(player=ann.player.id)).player.ratings
    print("  Ann's ratings:", [(r.perf, r.rating, r.provisional) for r in rated])
    assert [r.perf for r in rated] == ["chess_blitz"]

    print("== chess960 ==")
    created = games.CreateGame(games_pb.CreateGameRequest(variant=common.VARIANT_CHESS960, chess960_start=100))
    game_id, white, black = created.game.id, created.white_token, created.black_token
    print("  start", created.game.chess960_start, created.game.start_fen)
    for ply, (token, text) in enumerate([(white, "Ng3"), (black, "f8g6"), (white, "O-O"), (black, "g8h8")]):
        m = games.MakeMove(games_pb.MakeMoveRequest(game_id=game_id, seat_token=token, move=text, expected_ply=ply)).move.move
        print(f"  {text:>6} -> uci {m.uci} san {m.san}")
    pgn = games.ExportGame(games_pb.ExportGameRequest(game_id=game_id)).pgn
    read = chess.pgn.read_game(io.StringIO(pgn))
    board = read.end().board()
    assert board.chess960 and read.headers["Variant"] == "Chess960", pgn
    played = games.GetGame(games_pb.GetGameRequest(game_id=game_id)).game
    assert board.fen() == played.fen, (board.fen(), played.fen)
    assert [mv.uci() for mv in read.mainline_moves()] == ["f1g3", "f8g6", "g1h1", "g8h8"]
    print("  python-chess reads the export:", board.fen())

    print("== lichess variants ==")
    for variant, moves, tag in [
        (common.VARIANT_CRAZYHOUSE, ["e4", "d5", "exd5", "Qxd5", "P@e4", "Qxe4+", "Qe2", "P@e3"], "Crazyhouse"),
        (common.VARIANT_ATOMIC, ["Nf3", "a6", "Ng5", "a5", "Nxf7"], "Atomic"),
        (common.VARIANT_THREE_CHECK, ["e4", "e5", "Bc4", "Nc6", "Bxf7+", "Kxf7", "Qh5+", "g6", "Qxg6+"], "Three-check"),
    ]:
        created = games.CreateGame(games_pb.CreateGameRequest(variant=variant))
        game_id, tokens = created.game.id, [created.white_token, created.black_token]
        for ply, text in enumerate(moves):
            games.MakeMove(games_pb.MakeMoveRequest(game_id=game_id, seat_token=tokens[ply % 2], move=text, expected_ply=ply))
        played = games.GetGame(games_pb.GetGameRequest(game_id=game_id)).game
        pgn = games.ExportGame(games_pb.ExportGameRequest(game_id=game_id)).pgn
        read = chess.pgn.read_game(io.StringIO(pgn))
        board = read.end().board()
        assert read.headers["Variant"] == tag and board.uci_variant == chess.variant.find_variant(tag).uci_variant, pgn
        # A pawn drop resets the halfmove clock in Arbiter, as in
        # Fairy-Stockfish; python-chess counts on.
        without_clock = lambda fen: fen.split()[:-2] + fen.split()[-1:]
        assert without_clock(board.fen()) == without_clock(played.fen), (board.fen(), played.fen)
        assert len(list(read.mainline_moves())) == len(moves), pgn
        outcome = common.Termination.Name(played.outcome.termination)
        print(f"  {tag}: {' '.join(m.move.san for m in played.moves)} -> {outcome}; python-chess reads {board.fen()}")

    print("== rules ==")
    answer = rules.ValidateMove(rules_pb.ValidateMoveRequest(
        position=common.Position(variant=common.VARIANT_CHESS, fen="4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1"),
        move="Nc3"))
    print("  Nc3 legal:", answer.legal, common.IllegalReason.Name(answer.reason), "-", answer.message)
    moves = rules.LegalMoves(rules_pb.LegalMovesRequest(position=common.Position(variant=common.VARIANT_XIANGQI)))
    print("  xiangqi start:", len(moves.moves), "legal moves")
    print("ok")


if __name__ == "__main__":
    main()
