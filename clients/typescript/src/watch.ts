// Games.WatchGame as one stream that outlives the connections under it:
// when a stream drops, or the server ends it because this watcher fell
// behind (WATCHER_TOO_SLOW), it is opened again from the version of the last
// message received (`from_version`), and the server sends every event after
// it, so the caller sees no gap and no duplicate. A server that is down is
// tried again for as long as the caller watches, with waits that double up
// to a cap and are spread at random, so that the watchers of a restarted
// server do not all come back at the same instant.
//
// The server sends the move list in the SNAPSHOT only: later events carry
// the game without it, and the move. Every caller would keep the list, so
// this does: each event's `game.moves` is the whole list again.

import { Code, ConnectError, type Client } from "@connectrpc/connect";
import {
  GameEventKind,
  type Games,
  type PlayedMove,
  type WatchGameResponse,
} from "./gen/arbiter/v1/games_pb.js";
import { Reason } from "./gen/reasons.js";
import { errorReason } from "./errors.js";

export interface WatchOptions {
  /**
   * The `game.version` of the last message the caller already has; unset,
   * the stream starts with a SNAPSHOT of the game.
   */
  fromVersion?: bigint;
  /**
   * With `fromVersion`: the game's moves at that version, which the events
   * then extend. Without them, the events' `game.moves` stay as the server
   * sends them (empty but in a SNAPSHOT).
   */
  moves?: PlayedMove[];
  /**
   * Goes on after the game ends with what happens about its rematch
   * (REMATCH_OFFERED, REMATCH_DECLINED), until REMATCH_STARTED, whose
   * `game.rematch` is the new game (or until the server closes the stream:
   * no rematch can be).
   */
  followRematch?: boolean;
  /**
   * A seat's token, when a player of the game watches: its stream is then
   * not a spectator's, so spectators filling the game never shut it out.
   */
  seatToken?: string;
  /** Ends the stream (the iteration throws the abort), also while it waits to try again. */
  signal?: AbortSignal;
  /**
   * How many times in a row a stream may fail before its error is thrown;
   * any message received, or a stream opened, starts the count again.
   * Default: no limit, the stream is tried again until `signal` aborts.
   */
  maxRetries?: number;
  /**
   * The first wait before opening the stream again, doubled at each
   * failure in a row up to `maxRetryDelayMs`; each wait is drawn at random
   * between half of that and all of it. Default 100 ms.
   */
  retryDelayMs?: number;
  /** The longest wait between two attempts. Default 5 s. */
  maxRetryDelayMs?: number;
  /**
   * Told when the stream failed and is to be opened again after `delayMs`
   * (`failures`: the failures in a row so far).
   */
  onRetry?: (retry: { error: unknown; failures: number; delayMs: number }) => void;
  /** Told when a stream opened again after failures (the server answered it). */
  onResumed?: () => void;
}

/** Reasons after which the same stream, opened again, goes on. */
const RESUMABLE = new Set<string>([Reason.WATCHER_TOO_SLOW, Reason.SHUTTING_DOWN, Reason.SERVER_BUSY]);

/**
 * The events of game `gameId`, until the game ends (its GAME_ENDED event is
 * the last; with `followRematch`, REMATCH_STARTED is) or `options.signal` aborts. Errors the server answers with a
 * reason other than those of a dropped watcher (GAME_NOT_FOUND,
 * VERSION_AHEAD, ...) are thrown at once.
 */
export async function* watchGame(
  games: Pick<Client<typeof Games>, "watchGame">,
  gameId: string,
  options: WatchOptions = {},
): AsyncGenerator<WatchGameResponse, void, undefined> {
  const {
    signal,
    followRematch = false,
    seatToken = "",
    maxRetries = Infinity,
    retryDelayMs = 100,
    maxRetryDelayMs = 5000,
    onRetry,
    onResumed,
  } = options;
  const last = followRematch ? GameEventKind.REMATCH_STARTED : GameEventKind.GAME_ENDED;
  let fromVersion = options.fromVersion;
  let moves = fromVersion === undefined ? undefined : options.moves?.slice();
  let failures = 0;
  // A stream that opens after failures has resumed: its answer's headers
  // say so before any event (there may be none for a while).
  const opened = () => {
    if (failures > 0) {
      failures = 0;
      onResumed?.();
    }
  };
  for (;;) {
    const call = new AbortController();
    const abort = () => call.abort(signal?.reason);
    signal?.addEventListener("abort", abort, { once: true });
    let received = false;
    let ended = false;
    // The server ended the stream cleanly before the game's end: it is
    // opened again after the first wait.
    let waitMs = retryDelayMs;
    try {
      const stream = games.watchGame({ gameId, fromVersion, followRematch, seatToken }, { signal: call.signal, onHeader: opened });
      for await (const event of stream) {
        received = true;
        opened();
        fromVersion = event.game?.version ?? fromVersion;
        moves = withMoves(event, moves);
        ended ||= event.kind === GameEventKind.GAME_ENDED;
        yield event;
        if (event.kind === last) {
          return;
        }
      }
      // A stream resumed at the end of a finished game is empty; one that
      // follows a rematch the server knows cannot be ends after the end.
      if (!received || (followRematch && ended)) {
        return;
      }
    } catch (error) {
      if (signal?.aborted || !resumable(error) || failures >= maxRetries) {
        throw error;
      }
      failures += 1;
      waitMs = retryDelay(failures, retryDelayMs, maxRetryDelayMs);
      onRetry?.({ error, failures, delayMs: waitMs });
    } finally {
      signal?.removeEventListener("abort", abort);
      call.abort();
    }
    await sleep(waitMs, signal);
  }
}

/**
 * The wait after the `failures`-th failure in a row: `first` doubled at
 * each, up to `cap`, drawn at random between half of that and all of it.
 */
function retryDelay(failures: number, first: number, cap: number): number {
  const step = Math.min(first * 2 ** (failures - 1), cap);
  return step / 2 + Math.random() * (step / 2);
}

/**
 * Fills in `event.game.moves` from `moves`, the list before the event:
 * kept as sent in a SNAPSHOT (or in a game sent whole), extended by the
 * event's move, cut to the game's ply after a takeback. Returns the list after the event (undefined while
 * it is not known).
 */
function withMoves(event: WatchGameResponse, moves: PlayedMove[] | undefined): PlayedMove[] | undefined {
  const game = event.game;
  if (game === undefined) {
    return moves;
  }
  if (event.kind === GameEventKind.SNAPSHOT || game.moves.length > 0) {
    return game.moves.slice();
  }
  if (moves === undefined) {
    return undefined;
  }
  const after = moves.slice(0, game.ply);
  if (event.move !== undefined && after.length < game.ply) {
    after.push(event.move);
  }
  game.moves = after.slice();
  return after;
}

/**
 * Whether the stream that failed with `error` may be opened again: the
 * server told this watcher to watch again, or did not answer at all (the
 * connection dropped or was refused).
 */
function resumable(error: unknown): boolean {
  if (!(error instanceof ConnectError) || error.code === Code.Canceled) {
    return false;
  }
  const reason = errorReason(error);
  return reason === undefined || RESUMABLE.has(reason);
}

/** Waits `ms`, or until `signal` aborts (then throws its reason). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const done = () => {
      signal?.removeEventListener("abort", aborted);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const aborted = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", aborted, { once: true });
  });
}
