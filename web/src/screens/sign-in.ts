// Signing in as a player: a new one (CreatePlayer, whose token the server
// shows once and this browser keeps), or one made before, by a token of
// theirs alone (from another device, say): the server says whose it is.
// The token may be the platform's identity-provider JWT; a platform signs
// its user in with a link, `#/player?token=<JWT>`, whose token leaves the
// address bar at once.

import { api, errorReason, errorText, Reason } from "../api";
import { h } from "../dom";
import { asPlayer, endedBecause, signIn } from "../player/session";
import type { Screen } from "./screen";

/**
 * A form of one labelled field whose submit runs `submit` with its value;
 * `explain` puts a failure in words.
 */
function signInForm(
  title: string,
  field: { label: string; name: string; type?: string },
  action: string,
  submit: (value: string) => Promise<void>,
  explain: (err: unknown) => string = errorText,
): HTMLElement {
  const notice = h("p", { class: "notice", role: "alert" });
  const input = h("input", { type: field.type ?? "text", name: field.name, required: true, autocomplete: "off", spellcheck: "false" });
  const form = h(
    "form",
    { class: "new-game panel", "aria-label": title },
    h("h2", {}, title),
    h("label", {}, `${field.label} `, input),
    h("div", {}, h("button", { type: "submit", class: "primary" }, action)),
    notice,
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    notice.textContent = "";
    submit(input.value.trim()).catch((err: unknown) => (notice.textContent = explain(err)));
  });
  return form;
}

/** Why a token cannot sign in, in words. */
function refusal(err: unknown): string {
  switch (errorReason(err)) {
    case Reason.PLAYER_TOKEN_UNKNOWN:
    case Reason.AUTHORIZATION_MALFORMED:
      return "This is no player's token, or it was revoked: check that the whole token was copied.";
    case Reason.JWT_EXPIRED:
      return "This sign-in token has expired: sign in again through your platform.";
    case Reason.JWT_INVALID:
      return `Your platform's sign-in token was refused: ${errorText(err)}`;
    case Reason.PLAYER_DELETED:
      return "This player was deleted.";
    default:
      return errorText(err);
  }
}

/** Signs in as the player `token` names (GetPlayer naming nobody answers
 * the caller, or refuses the token): the token is kept only then. */
async function signInWith(token: string): Promise<void> {
  const { player } = await api.players.getPlayer({}, asPlayer({ token }));
  if (!player) throw new Error("the server sent no player");
  signIn({ id: player.id, username: player.username, token });
}

/** The sign-in screen; with `token` (a platform's link), signing in with it
 * at once. */
export function signInScreen(token?: string): Screen {
  const ended = h("p", { class: "notice", role: "alert" }, endedBecause() ?? "");
  if (token) {
    // The token leaves the address bar (and the history) before anything.
    history.replaceState(null, "", "#/player");
    signInWith(token).catch((err: unknown) => (ended.textContent = refusal(err)));
  }
  const create = signInForm("New player", { label: "Username", name: "username" }, "Create player", async (username) => {
    const { player, token } = await api.players.createPlayer({ username });
    if (!player) throw new Error("the server sent no player");
    signIn({ id: player.id, username: player.username, token });
  });
  const existing = signInForm(
    "Sign in with a token",
    { label: "Player token, or your platform's sign-in token (JWT)", name: "token", type: "password" },
    "Sign in",
    signInWith,
    refusal,
  );
  return {
    element: h(
      "section",
      {},
      h("h1", {}, "Play online"),
      h("p", {}, "Sign in as a player to challenge others by name, find an opponent, and keep your games and ratings."),
      ended,
      create,
      existing,
    ),
    dispose() {},
  };
}
