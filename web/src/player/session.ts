// The signed-in player: their id and token, kept in this browser's
// localStorage (the server shows a token once and keeps only its hash), and
// the call options that act as them. Signing in or out tells the page
// (the header shows who is signed in).

import type { CallOptions } from "../api";

export interface Session {
  /** The player's id: their username in lower case. */
  id: string;
  username: string;
  token: string;
}

const KEY = "arbiter.player";
export const SESSION_CHANGED = "arbiter:session";

export function signedIn(): Session | undefined {
  try {
    const session = JSON.parse(localStorage.getItem(KEY) ?? "null") as Session | null;
    return session?.id && session.token ? session : undefined;
  } catch {
    return undefined;
  }
}

export function signIn(session: Session): void {
  localStorage.setItem(KEY, JSON.stringify(session));
  window.dispatchEvent(new Event(SESSION_CHANGED));
}

export function signOut(): void {
  localStorage.removeItem(KEY);
  window.dispatchEvent(new Event(SESSION_CHANGED));
}

/** A call made as the player: their token as the bearer credential. */
export function asPlayer(session: Pick<Session, "token">, signal?: AbortSignal): CallOptions {
  return { headers: { authorization: `Bearer ${session.token}` }, signal };
}
