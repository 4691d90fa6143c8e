// The glue between the app and the server: one grpc-web transport to the
// server that served the page (or VITE_ARBITER_URL in development), a client
// per service, and the few conversions every screen needs.

import { createArbiter, watchGame as watchEvents, type WatchGameResponse } from "@arbiter/client";
import type { VariantName } from "./board/variant";
import { variantInfo } from "./variants";

export {
  ChallengeColor,
  Code,
  ConnectError,
  DeclineReason,
  errorMessage as errorText,
  errorReason,
  GameEventKind,
  GameStatusFilter,
  GameView,
  OutcomeStatus,
  PlayerEventKind,
  Reason,
  Side,
  Termination,
  Variant,
  XiangqiRules,
  type Challenge,
  type Clock,
  type Game,
  type Move,
  type PerfRating,
  type PlayedMove,
  type Seat,
  type TimeControl,
  type WatchEventsResponse,
  type WatchGameResponse,
} from "@arbiter/client";
export { timestampMs } from "@bufbuild/protobuf/wkt";
export type { CallOptions } from "@connectrpc/connect";
import { Side, Variant } from "@arbiter/client";

const baseUrl = (import.meta.env.VITE_ARBITER_URL as string | undefined) || location.origin;

export const api = createArbiter(baseUrl);

/** Follows a game: `onEvent` gets the snapshot, then every event in order,
 * then what happens about its rematch. A dropped stream is opened again
 * from the last version received for as long as the page watches, waiting
 * longer after each failure (up to 5 s); `onConnected` hears false while it
 * is down and true once it is back. A player's page watches with its seat's
 * token, so spectators filling the game never shut it out. Ends when the
 * rematch starts, when none can, or when `signal` aborts; rejects on an
 * error the server answered. */
export async function watchGame(
  gameId: string,
  seatToken: string | undefined,
  onEvent: (event: WatchGameResponse) => void,
  onConnected: (connected: boolean) => void,
  signal: AbortSignal,
): Promise<void> {
  const options = {
    signal,
    followRematch: true,
    seatToken,
    onRetry: () => onConnected(false),
    onResumed: () => onConnected(true),
  };
  try {
    for await (const event of watchEvents(api.games, gameId, options)) onEvent(event);
  } catch (err) {
    if (!signal.aborted) throw err;
  }
}

export function variantName(variant: Variant): VariantName {
  return variantInfo(variant).board;
}

/** "White" or "Black"; in xiangqi "Red" or "Black". */
export function sideName(side: Side, variant: Variant): string {
  if (side === Side.WHITE) return variant === Variant.XIANGQI ? "Red" : "White";
  return side === Side.BLACK ? "Black" : "";
}
