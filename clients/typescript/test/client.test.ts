// The client against a real server: a game created and played, an error's
// reason, WatchGame resumed across a dropped connection and following a
// game's rematch.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

/** The longest any test may take: a stream that never sends fails it. */
const LIMIT = { timeout: 20_000 };
import {
  type Arbiter,
  Code,
  ConnectError,
  ErrorInfoSchema,
  GameEventKind,
  Reason,
  Side,
  Variant,
  createArbiter,
  errorMessage,
  errorMetadata,
  errorReason,
  watchGame,
} from "../src/index.js";
import { type RunningServer, startRelay, startServer } from "./server.js";

let server: RunningServer;
let arbiter: Arbiter;

before(async () => {
  server = await startServer();
  arbiter = createArbiter(server.url);
});

after(async () => {
  await server?.stop();
});

/** A chess game between two people: the game and both seats' tokens. */
async function chessGame(api: Arbiter = arbiter) {
  return api.games.createGame({
    variant: Variant.CHESS,
    white: { displayName: "Ada" },
    black: { displayName: "Blaise" },
  });
}

test("a game is created and its moves are played", LIMIT, async () => {
  const created = await chessGame();
  const id = created.game!.id;
  assert.equal(created.game!.ply, 0);
  const moves = [
    [created.whiteToken, "e4"],
    [created.blackToken, "e7e5"],
    [created.whiteToken, "Nf3"],
  ];
  for (const [seatToken, move] of moves) {
    await arbiter.games.makeMove({ gameId: id, seatToken, move });
  }
  const { game } = await arbiter.games.getGame({ gameId: id });
  assert.equal(game!.ply, 3);
  assert.equal(game!.turn, Side.BLACK);
  assert.deepEqual(
    game!.moves.map((played) => played.move!.san),
    ["e4", "e5", "Nf3"],
  );
});

test("an error's reason, metadata and sentence are read from its ErrorInfo", LIMIT, async () => {
  const created = await chessGame();
  const id = created.game!.id;
  const illegal = await arbiter.games.makeMove({ gameId: id, seatToken: created.whiteToken, move: "e2e5" }).catch((e) => e);
  assert.ok(illegal instanceof ConnectError);
  assert.equal(illegal.code, Code.FailedPrecondition);
  assert.equal(errorReason(illegal), Reason.CANNOT_MOVE_THAT_WAY);
  assert.ok(errorMessage(illegal).length > 0);
  assert.ok(!errorMessage(illegal).startsWith("["), "the sentence has no [code] prefix");

  const stale = await arbiter.games
    .makeMove({ gameId: id, seatToken: created.whiteToken, move: "e4", expectedPly: 5 })
    .catch((e) => e);
  assert.equal(errorReason(stale), Reason.PLY_CONFLICT);
  assert.equal(errorMetadata(stale, "current_ply"), "0");

  const missing = await arbiter.games.getGame({ gameId: "no-such-game" }).catch((e) => e);
  assert.equal(errorReason(missing), Reason.GAME_NOT_FOUND);
  assert.equal(errorReason(new Error("not from the server")), undefined);
});

test("a watch resumed after its connection dropped misses no event and repeats none", LIMIT, async () => {
  const relay = await startRelay(server.port);
  try {
    const created = await chessGame();
    const id = created.game!.id;
    const seats = [created.whiteToken, created.blackToken];
    const moves = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"];
    const play = (ply: number) => arbiter.games.makeMove({ gameId: id, seatToken: seats[ply % 2], move: moves[ply] });

    let watches = 0;
    const watcher = createArbiter(relay.url, {
      interceptors: [
        (next) => (request) => {
          watches += 1;
          return next(request);
        },
      ],
    });
    const events = watchGame(watcher.games, id, { retryDelayMs: 20, maxRetries: 20 });
    const seen: { kind: GameEventKind; version: bigint; san?: string; list: string[] }[] = [];
    const next = async () => {
      const { value, done } = await events.next();
      assert.ok(!done, "the watch goes on");
      seen.push({
        kind: value.kind,
        version: value.game!.version,
        san: value.move?.move?.san,
        list: value.game!.moves.map((played) => played.move!.san),
      });
    };

    await next(); // the snapshot
    await play(0);
    await next();
    // The connection drops; three moves are played while the watcher cannot
    // reach the server, and one after it can again.
    relay.cut();
    for (const ply of [1, 2, 3]) {
      await play(ply);
    }
    relay.restore();
    for (let i = 0; i < 3; i++) {
      await next();
    }
    await play(4);
    await next();
    await events.return();

    assert.ok(watches >= 2, "the stream was opened again");
    assert.equal(seen[0].kind, GameEventKind.SNAPSHOT);
    assert.deepEqual(
      seen.map((event) => event.version),
      seen.map((_, i) => seen[0].version + BigInt(i)),
      "one event per version, none missing, none twice",
    );
    assert.deepEqual(
      seen.slice(1).map((event) => event.san),
      moves.slice(0, 5),
    );
    assert.deepEqual(
      seen.map((event) => event.list),
      seen.map((_, i) => moves.slice(0, i)),
      "each event's game has the moves so far",
    );
  } finally {
    await relay.close();
  }
});

test("a watch goes on through an outage of many failed attempts, waiting longer each time, and catches up", LIMIT, async () => {
  const relay = await startRelay(server.port);
  try {
    const created = await chessGame();
    const id = created.game!.id;
    const watcher = createArbiter(relay.url);
    const waits: { failures: number; delayMs: number }[] = [];
    let resumed = 0;
    let outage = () => {};
    const failedOften = new Promise<void>((resolve) => (outage = resolve));
    const events = watchGame(watcher.games, id, {
      retryDelayMs: 10,
      maxRetryDelayMs: 80,
      onRetry: ({ failures, delayMs }) => {
        waits.push({ failures, delayMs });
        if (failures === 8) outage();
      },
      onResumed: () => (resumed += 1),
    });
    assert.equal((await events.next()).value?.kind, GameEventKind.SNAPSHOT);
    relay.cut();
    await arbiter.games.makeMove({ gameId: id, seatToken: created.whiteToken, move: "e4" });
    const next = events.next();
    await failedOften;
    relay.restore();
    assert.equal((await next).value?.move?.move?.san, "e4", "the move made during the outage");
    await events.return();

    assert.equal(resumed, 1);
    assert.deepEqual(
      waits.slice(0, 8).map((wait) => wait.failures),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
    for (const { failures, delayMs } of waits) {
      const step = Math.min(10 * 2 ** (failures - 1), 80);
      assert.ok(delayMs >= step / 2 && delayMs <= step, `wait ${delayMs} ms after ${failures} failures`);
    }
  } finally {
    await relay.close();
  }
});

test("a watch waiting to try again ends as soon as it is aborted", LIMIT, async () => {
  const relay = await startRelay(server.port);
  try {
    const created = await chessGame();
    const stop = new AbortController();
    let waiting = () => {};
    const retrying = new Promise<void>((resolve) => (waiting = resolve));
    const events = watchGame(createArbiter(relay.url).games, created.game!.id, {
      signal: stop.signal,
      retryDelayMs: 60_000,
      maxRetryDelayMs: 60_000,
      onRetry: () => waiting(),
    });
    await events.next();
    relay.cut();
    const pending = events.next();
    await retrying;
    stop.abort();
    await assert.rejects(pending);
  } finally {
    await relay.close();
  }
});

test("a watch ended for falling behind is opened again from its last version", LIMIT, async () => {
  const tooSlow = new ConnectError("the watcher fell behind", Code.ResourceExhausted, undefined, [
    { desc: ErrorInfoSchema, value: { domain: "arbiter.dev", reason: Reason.WATCHER_TOO_SLOW } },
  ]);
  const asked: (bigint | undefined)[] = [];
  const event = (version: bigint, kind = GameEventKind.MOVE) => ({
    $typeName: "arbiter.v1.WatchGameResponse" as const,
    kind,
    game: { version, ply: Number(version), moves: [] } as never,
  });
  const games = {
    async *watchGame(request: { fromVersion?: bigint }) {
      asked.push(request.fromVersion);
      if (asked.length === 1) {
        yield event(0n, GameEventKind.SNAPSHOT);
        yield event(1n);
        throw tooSlow;
      }
      yield event(2n);
      yield event(3n, GameEventKind.GAME_ENDED);
    },
  };
  const versions = [];
  for await (const message of watchGame(games as never, "game", { retryDelayMs: 1 })) {
    versions.push(message.game!.version);
  }
  assert.deepEqual(versions, [0n, 1n, 2n, 3n]);
  assert.deepEqual(asked, [undefined, 1n]);
});

test("a watch keeps the move list that the server sends in the snapshot only", LIMIT, async () => {
  const played = (san: string) => ({ $typeName: "arbiter.v1.PlayedMove" as const, move: { san } }) as never;
  const event = (kind: GameEventKind, ply: number, moves: string[], move?: string) => ({
    $typeName: "arbiter.v1.WatchGameResponse" as const,
    kind,
    game: { version: BigInt(ply), ply, moves: moves.map(played) } as never,
    move: move === undefined ? undefined : played(move),
  });
  const games = {
    async *watchGame() {
      yield event(GameEventKind.SNAPSHOT, 2, ["e4", "e5"]);
      yield event(GameEventKind.MOVE, 3, [], "Nf3");
      yield event(GameEventKind.TAKEBACK_ACCEPTED, 1, []);
      yield event(GameEventKind.MOVE, 2, [], "c5");
      yield event(GameEventKind.GAME_ENDED, 2, []);
    },
  };
  const lists = [];
  for await (const message of watchGame(games as never, "game")) {
    lists.push(message.game!.moves.map((m) => m.move!.san));
  }
  assert.deepEqual(lists, [["e4", "e5"], ["e4", "e5", "Nf3"], ["e4"], ["e4", "c5"], ["e4", "c5"]]);
});

test("a watch gives up on an error the server answered with another reason", LIMIT, async () => {
  const events = watchGame(arbiter.games, "no-such-game");
  const error = await events.next().catch((e) => e);
  assert.equal(errorReason(error), Reason.GAME_NOT_FOUND);
});

test("an aborted watch ends", LIMIT, async () => {
  const created = await chessGame();
  const stop = new AbortController();
  const events = watchGame(arbiter.games, created.game!.id, { signal: stop.signal });
  const first = await events.next();
  assert.equal(first.value?.kind, GameEventKind.SNAPSHOT);
  stop.abort();
  await assert.rejects(events.next());
});

/** The kinds of a watch's events once its snapshot came, and the rematch
 * id the last one names, after `act` ran. */
async function watchedKinds(gameId: string, act: () => Promise<unknown>): Promise<{ kinds: GameEventKind[]; rematch: string }> {
  const events = watchGame(arbiter.games, gameId, { followRematch: true });
  const first = await events.next();
  assert.equal(first.value?.kind, GameEventKind.SNAPSHOT);
  await act();
  const kinds: GameEventKind[] = [];
  let rematch = "";
  for await (const event of events) {
    kinds.push(event.kind);
    rematch = event.game!.rematch;
  }
  return { kinds, rematch };
}

test("a watch that follows the rematch goes on after the end until the rematch starts", LIMIT, async () => {
  const created = await chessGame();
  const gameId = created.game!.id;
  let accepted = "";
  const { kinds, rematch } = await watchedKinds(gameId, async () => {
    await arbiter.games.resign({ gameId, seatToken: created.whiteToken });
    await arbiter.games.offerRematch({ gameId, seatToken: created.whiteToken });
    const answer = await arbiter.games.respondToRematch({ gameId, seatToken: created.blackToken, accept: true });
    accepted = answer.rematch!.id;
  });
  assert.deepEqual(kinds, [GameEventKind.GAME_ENDED, GameEventKind.REMATCH_OFFERED, GameEventKind.REMATCH_STARTED]);
  assert.equal(rematch, accepted);
});

test("a watch that follows the rematch of a game that cannot have one ends after the end", LIMIT, async () => {
  const created = await arbiter.games.createGame({ variant: Variant.CHESS, white: {}, black: { open: true } });
  const gameId = created.game!.id;
  const { kinds } = await watchedKinds(gameId, () => arbiter.games.abort({ gameId, seatToken: created.whiteToken }));
  assert.deepEqual(kinds, [GameEventKind.GAME_ENDED]);
});
