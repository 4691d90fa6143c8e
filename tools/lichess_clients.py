#!/usr/bin/env python3
"""Lichess's own Python client, berserk, unmodified, against Arbiter's
Lichess API (docs/lichess.md).

Players are made over gRPC (Arbiter's API; stubs compiled as in
tools/walkthrough.py); everything else goes through berserk pointed at the
server with `base_url`:

  1. token test, account, the upgrade to a bot account, a user's profile;
  2. the Board API: a challenge made, seen on the event stream, accepted,
     then played to mate with both game streams read;
  3. a draw offered and accepted, a takeback proposed and accepted, and a
     resignation, then an abort;
  4. a challenge declined with a reason, one canceled, and an open one
     taken by two other players;
  5. the games exported: one as JSON, a player's as NDJSON and PGN, two
     by id;
  6. two seeks paired through the pool;
  7. the Bot API: a bot account plays Arbiter's engine through
     /api/challenge/ai, its moves picked from Rules.LegalMoves, chats, reads
     the chat back, and resigns.

    python3 -m venv .venv
    .venv/bin/pip install -r tools/requirements-walkthrough.txt
    cargo run --release -- serve &
    .venv/bin/python tools/lichess_clients.py [--addr 127.0.0.1:50051]

Exits 0 and prints "ok" when every step went as expected.
"""

import argparse
import queue
import secrets
import sys
import threading

import berserk
import grpc

from walkthrough import load_stubs


def follow(stream):
    """The lines of a berserk stream, read by a thread into a queue."""
    lines = queue.Queue()

    def read():
        try:
            for line in stream:
                lines.put(line)
        except Exception as err:  # the stream's end, or its failure
            lines.put(err)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return lines


def next_of(lines, kind, within=15):
    """The next line of type `kind`."""
    while True:
        line = lines.get(timeout=within)
        if line is None or isinstance(line, Exception):
            sys.exit(f"the stream ended before a {kind}: {line!r}")
        if line.get("type") == kind:
            return line


def last_state(lines, within=15):
    """The last gameState before the game stream ends."""
    last = None
    while True:
        line = lines.get(timeout=within)
        if line is None or isinstance(line, Exception):
            return last
        if line.get("type") == "gameState":
            last = line


def challenge_and_accept(challenger, to, username, **terms):
    """A challenge made, seen on the other's event stream, accepted; the game's id."""
    events = follow(to.board.stream_incoming_events())
    made = challenger.challenges.create(username, **terms)
    told = next_of(events, "challenge")
    assert told["challenge"]["id"] == made["id"], (told, made)
    to.challenges.accept(made["id"])
    started = next_of(events, "gameStart")
    return started["game"]["gameId"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--addr", default="127.0.0.1:50051")
    args = parser.parse_args()
    pb = load_stubs()
    channel = grpc.insecure_channel(args.addr)
    players = pb["players_pb2_grpc"].PlayersStub(channel)
    rules = pb["rules_pb2_grpc"].RulesStub(channel)
    suffix = secrets.token_hex(3)

    def client(name):
        made = players.CreatePlayer(pb["players_pb2"].CreatePlayerRequest(username=f"{name}_{suffix}"))
        session = berserk.TokenSession(made.token)
        return made.player.username, made.token, berserk.Client(session, base_url=f"http://{args.addr}")

    ann_name, ann_token, ann = client("Ann")
    ben_name, _, ben = client("Ben")
    bot_name, _, bot = client("Bot")
    cid_name, _, cid = client("Cid")

    print("== account ==")
    tested = ann.oauth.test_tokens(ann_token, "not-a-token")
    assert tested[ann_token]["userId"] == ann_name.lower(), tested
    assert tested["not-a-token"] is None
    account = ann.account.get()
    assert account["username"] == ann_name and "title" not in account, account
    bot.account.upgrade_to_bot()
    assert bot.account.get()["title"] == "BOT"
    assert ann.users.get_public_data(ben_name)["username"] == ben_name
    print("  tokens, account, bot upgrade, profile")

    print("== board: challenge to mate ==")
    game_id = challenge_and_accept(ann, ben, ben_name, clock_limit=300, clock_increment=2, color="white", rated=False)
    ann_stream = follow(ann.board.stream_game_state(game_id))
    full = next_of(ann_stream, "gameFull")
    assert full["white"]["name"] == ann_name and full["black"]["name"] == ben_name, full
    assert full["clock"]["initial"] == 300_000 and full["speed"] == "blitz", full
    ben_stream = follow(ben.board.stream_game_state(game_id))
    next_of(ben_stream, "gameFull")
    for player, uci in ((ann, "f2f3"), (ben, "e7e5"), (ann, "g2g4"), (ben, "d8h4")):
        player.board.make_move(game_id, uci)
    for lines in (ann_stream, ben_stream):
        final = last_state(lines)
        assert final["moves"] == "f2f3 e7e5 g2g4 d8h4", final
        assert final["status"] == "mate" and final["winner"] == "black", final
    mate_id = game_id
    print("  mate in 4, both streams closed")

    print("== board: draw, takeback, resign, abort ==")
    game_id = challenge_and_accept(ann, ben, ben_name, rated=False, days=2, color="white")
    ann_stream = follow(ann.board.stream_game_state(game_id))
    next_of(ann_stream, "gameFull")
    ann.board.make_move(game_id, "e2e4")
    ann.board.offer_takeback(game_id)
    ben.board.accept_takeback(game_id)
    ann.board.make_move(game_id, "d2d4")
    ben.board.make_move(game_id, "d7d5")
    ann.board.offer_draw(game_id)
    ben.board.accept_draw(game_id)
    final = last_state(ann_stream)
    assert final["moves"] == "d2d4 d7d5" and final["status"] == "draw", final
    draw_id = game_id
    game_id = challenge_and_accept(ben, ann, ann_name, rated=False, days=2, color="black")
    ann.board.make_move(game_id, "e2e4")
    ben.board.make_move(game_id, "e7e5")
    ben.board.resign_game(game_id)
    game = ann.board.stream_game_state(game_id)
    state = next(game)["state"]
    assert state["status"] == "resign" and state["winner"] == "white", state
    game_id = challenge_and_accept(ben, ann, ann_name, rated=False, days=2)
    ann.board.abort_game(game_id)
    state = next(ann.board.stream_game_state(game_id))["state"]
    assert state["status"] == "aborted", state
    try:
        ann.board.make_move(game_id, "e2e4")
        sys.exit("a move in an aborted game was taken")
    except berserk.exceptions.ResponseError as err:
        assert err.status_code == 400, err
    print("  draw by agreement, takeback, resignation, abort, a refused move")

    print("== challenges: decline, cancel ==")
    ann_events = follow(ann.board.stream_incoming_events())
    made = ann.challenges.create(ben_name, rated=False, clock_limit=60, clock_increment=0)
    listed = ben.challenges.get_mine()
    assert any(c["id"] == made["id"] for c in listed["in"]), listed
    ben.challenges.decline(made["id"], reason="tooFast")
    declined = next_of(ann_events, "challengeDeclined")
    assert declined["challenge"]["declineReasonKey"] == "tooFast", declined
    made = ann.challenges.create(ben_name, rated=False, days=1)
    ann.challenges.cancel(made["id"])
    ben_events = follow(ben.board.stream_incoming_events())
    made = ann.challenges.create_open(clock_limit=300, clock_increment=0)
    assert made["challenger"] is None and made["urlWhite"].endswith("?color=white"), made
    ben.challenges.accept(made["id"])
    cid.challenges.accept(made["id"])
    started = next_of(ben_events, "gameStart")
    assert started["game"]["opponent"]["username"] == cid_name, started
    ben.board.abort_game(started["game"]["gameId"])
    print("  declined (tooFast), canceled, an open one taken by two others")

    print("== games: export ==")
    game = ann.games.export(mate_id)
    assert game["status"] == "mate" and game["moves"] == "f3 e5 g4 Qh4#", game
    games = list(ann.games.export_by_player(ann_name, max=2, pgn_in_json=True))
    assert len(games) == 2 and all("[Result " in g["pgn"] for g in games), games
    pgn = "".join(ben.games.export_by_player(ben_name, as_pgn=True, vs=ann_name))
    assert pgn.count("[Result ") == 4, pgn
    both = list(ann.games.export_multi(mate_id, draw_id))
    assert [g["id"] for g in both] == [mate_id, draw_id], both
    print("  one as JSON, a player's as NDJSON and PGN, two by id")

    print("== board: a seek paired through the pool ==")
    ann_events = follow(ann.board.stream_incoming_events())
    seekers = [threading.Thread(target=c.board.seek, kwargs={"time": 5, "increment": 3}, daemon=True) for c in (ann, ben)]
    for seeker in seekers:
        seeker.start()
    started = next_of(ann_events, "gameStart", within=30)
    while started["game"]["opponent"]["username"] != ben_name:
        started = next_of(ann_events, "gameStart", within=30)
    for seeker in seekers:
        seeker.join(timeout=30)
        assert not seeker.is_alive(), "a paired seek's answer ends"
    ann.board.abort_game(started["game"]["gameId"])
    print("  paired with", ben_name, "then aborted")

    print("== bot: against Arbiter's engine ==")
    common = pb["common_pb2"]
    rules_pb = pb["rules_pb2"]
    game = bot.challenges.create_ai(level=1, clock_limit=600, clock_increment=0, color="white")
    game_id = game["id"]
    stream = follow(bot.bots.stream_game_state(game_id))
    full = next_of(stream, "gameFull")
    assert full["black"].get("aiLevel") == 1, full
    assert full["white"]["title"] == "BOT" and full["white"]["name"] == bot_name, full
    moves = []
    for _ in range(4):
        position = common.Position(variant=common.VARIANT_CHESS, moves=moves)
        legal = rules.LegalMoves(rules_pb.LegalMovesRequest(position=position))
        uci = sorted(m.uci for m in legal.moves)[0]
        bot.bots.make_move(game_id, uci)
        state = next_of(stream, "gameState")
        while len(state["moves"].split()) < len(moves) + 2:
            state = next_of(stream, "gameState")
        moves = state["moves"].split()
    bot.bots.post_message(game_id, "good game")
    chat = bot.board.get_game_chat(game_id)
    assert chat == [{"user": bot_name, "text": "good game"}], chat
    bot.bots.resign_game(game_id)
    final = last_state(stream)
    assert final["status"] == "resign" and final["winner"] == "black", final
    print(f"  {len(moves)} plies against level 1, then resigned")
    print("ok")


if __name__ == "__main__":
    main()
