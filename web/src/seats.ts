// Seat tokens and the links that carry them. A seat's link puts its token in
// the URL fragment (`#/game/ID/white/TOKEN`), as a join link its code
// (`#/join/CODE`): the fragment never leaves the browser, so neither is in
// any server's or proxy's log. Tokens this
// browser holds are kept in localStorage, so a reload keeps the seat.
// A seat bound to the signed-in player has no token of its own: the
// player's credential acts on it.

import type { CallOptions, Game } from "./api";
import { asPlayer, signedIn } from "./player/session";

export type SideName = "white" | "black";

export interface SeatToken {
  side: SideName;
  /** Empty for a seat bound to the signed-in player. */
  token: string;
}

/** The seat of `game` bound to the signed-in player, if there is one. */
export function playerSeat(game: Game): SeatToken | undefined {
  const me = signedIn();
  if (!me) return undefined;
  if (game.white?.playerId === me.id) return { side: "white", token: "" };
  if (game.black?.playerId === me.id) return { side: "black", token: "" };
  return undefined;
}

/** What a seat's calls carry: the request's game and seat token, and the
 * call options (the player's credential for a seat bound to them). */
export function seatCall(gameId: string, seat: SeatToken): [{ gameId: string; seatToken: string }, CallOptions] {
  const me = signedIn();
  return [{ gameId, seatToken: seat.token }, !seat.token && me ? asPlayer(me) : {}];
}

const key = (gameId: string) => `arbiter.seat.${gameId}`;
const joinKey = (gameId: string) => `arbiter.join.${gameId}`;

export function rememberSeat(gameId: string, seat: SeatToken): void {
  if (rememberedSeat(gameId)?.token === seat.token) return;
  localStorage.setItem(key(gameId), JSON.stringify({ ...seat, savedAt: Date.now() }));
}

/** The games this browser holds a seat of, most recent first. */
export function rememberedGames(limit: number): { gameId: string; seat: SeatToken }[] {
  const games: { gameId: string; seat: SeatToken; savedAt: number }[] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const name = localStorage.key(i);
    if (!name?.startsWith(key(""))) continue;
    const gameId = name.slice(key("").length);
    const seat = rememberedSeat(gameId);
    const savedAt = Number((JSON.parse(localStorage.getItem(name) ?? "{}") as { savedAt?: number }).savedAt ?? 0);
    if (seat) games.push({ gameId, seat, savedAt });
  }
  return games.sort((a, b) => b.savedAt - a.savedAt).slice(0, limit);
}

export function rememberedSeat(gameId: string): SeatToken | undefined {
  try {
    const seat = JSON.parse(localStorage.getItem(key(gameId)) ?? "null") as SeatToken | null;
    return seat && (seat.side === "white" || seat.side === "black") && seat.token ? seat : undefined;
  } catch {
    return undefined;
  }
}

/** The link that plays a seat of a game. */
export function seatLink(gameId: string, seat: SeatToken): string {
  const base = location.href.split("#")[0];
  return `${base}#/game/${encodeURIComponent(gameId)}/${seat.side}/${encodeURIComponent(seat.token)}`;
}

/** The link only watches the game. */
export function watchLink(gameId: string): string {
  return `${location.href.split("#")[0]}#/game/${encodeURIComponent(gameId)}`;
}

/** The link a friend takes the open seat with (`#/join/CODE`). */
export function joinLink(joinCode: string): string {
  return `${location.href.split("#")[0]}#/join/${encodeURIComponent(joinCode)}`;
}

/** The join code of a game's open seat, kept for the player who created it
 * (the server shows it only once). */
export function rememberJoinCode(gameId: string, joinCode: string): void {
  localStorage.setItem(joinKey(gameId), joinCode);
}

export function rememberedJoinCode(gameId: string): string | undefined {
  return localStorage.getItem(joinKey(gameId)) ?? undefined;
}
