// A player's events (Players.WatchEvents) for as long as a page follows
// them: a dropped stream is opened again after a pause, after the last
// event received (what happened meanwhile is told once; a cursor the server
// no longer keeps starts again from what is going on); a credential the
// server refuses ends it.

import { api, Code, ConnectError, type WatchEventsResponse } from "../api";
import { asPlayer, type Session } from "./session";

const RETRY_MS = 2000;

/** Ends when `signal` aborts; rejects when the server refuses the player. */
export async function watchPlayerEvents(
  session: Session,
  onEvent: (event: WatchEventsResponse) => void,
  onConnected: (connected: boolean) => void,
  signal: AbortSignal,
): Promise<void> {
  let after = "";
  while (!signal.aborted) {
    try {
      for await (const event of api.players.watchEvents({ after }, asPlayer(session, signal))) {
        onConnected(true);
        after = event.cursor;
        onEvent(event);
      }
    } catch (err) {
      if (signal.aborted) return;
      const code = ConnectError.from(err).code;
      if (code === Code.Unauthenticated || code === Code.PermissionDenied) throw err;
      if (code === Code.OutOfRange) after = "";
    }
    onConnected(false);
    await new Promise<void>((done) => {
      const timer = setTimeout(done, RETRY_MS);
      signal.addEventListener("abort", () => (clearTimeout(timer), done()), { once: true });
    });
  }
}
