// The signed-in player: their id and token, kept in this browser's
// localStorage (the server shows a token once and keeps only its hash), and
// the call options that act as them. The token is Arbiter's player token or
// the platform's identity-provider JWT, which expires: a session the server
// refuses ends, saying why on the sign-in screen. Signing in or out tells
// the page (the header shows who is signed in).

import type { CallOptions } from "../api";

export interface Session {
  /** The player's id: their username in lower case. */
  id: string;
  username: string;
  token: string;
}

const KEY = "arbiter.player";
/** Why the last session ended, told once on the sign-in screen. */
const ENDED_KEY = "arbiter.player.ended";
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

export function signOut(why?: string): void {
  localStorage.removeItem(KEY);
  if (why) sessionStorage.setItem(ENDED_KEY, why);
  window.dispatchEvent(new Event(SESSION_CHANGED));
}

/** Why the last session ended, if the server ended it; told only once. */
export function endedBecause(): string | undefined {
  const why = sessionStorage.getItem(ENDED_KEY) ?? undefined;
  sessionStorage.removeItem(ENDED_KEY);
  return why;
}

/** Whether `token` is an identity provider's JWT (three parts), not a
 * player token of Arbiter's. */
export function isJwt(token: string): boolean {
  return token.split(".").length === 3;
}

/** A call made as the player: their token as the bearer credential. */
export function asPlayer(session: Pick<Session, "token">, signal?: AbortSignal): CallOptions {
  return { headers: { authorization: `Bearer ${session.token}` }, signal };
}
