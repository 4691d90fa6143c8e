// Moving on to a game's rematch: the seat's token in it is kept like any
// other (a player's seat has none: the rematch binds the same players) and
// the game screen opens it, with the colours swapped.

import { api, Side, type Game } from "../api";
import { rememberSeat, seatCall, type SeatToken } from "../seats";

/** What OfferRematch and RespondToRematch answer a seat. */
interface RematchAnswer {
  rematch?: Game;
  side: Side;
  seatToken: string;
}

/** Opens the rematch once it exists; false while the offer waits. */
export function enterRematch(answer: RematchAnswer): boolean {
  if (!answer.rematch) return false;
  if (answer.seatToken) rememberSeat(answer.rematch.id, { side: answer.side === Side.WHITE ? "white" : "black", token: answer.seatToken });
  location.hash = `#/game/${encodeURIComponent(answer.rematch.id)}`;
  return true;
}

/** Opens the rematch `rematchId` of `gameId` once it started: a seat asks
 * for its token in it (OfferRematch answers it as often as asked), a
 * spectator watches it. */
export async function followRematch(gameId: string, rematchId: string, seat: SeatToken | undefined): Promise<void> {
  if (seat) enterRematch(await api.games.offerRematch(...seatCall(gameId, seat)));
  else location.hash = `#/game/${encodeURIComponent(rematchId)}`;
}
