// Signing in as a player: a new one (CreatePlayer, whose token the server
// shows once and this browser keeps), or one made before, by their
// username and a token of theirs (from another device, say). The token is
// checked before it is kept; the server has no call that names the
// player a token belongs to, so the username comes with it.

import { api, errorText } from "../api";
import { h } from "../dom";
import { asPlayer, signIn, type Session } from "../player/session";
import type { Screen } from "./screen";

/** A form of labelled fields whose submit runs `submit` with their values. */
function signInForm(
  title: string,
  fields: { label: string; name: string; type?: string }[],
  action: string,
  submit: (values: Record<string, string>) => Promise<void>,
): HTMLElement {
  const notice = h("p", { class: "notice", role: "alert" });
  const inputs = fields.map(({ name, type }) =>
    h("input", { type: type ?? "text", name, required: true, autocomplete: "off", spellcheck: "false" }),
  );
  const form = h(
    "form",
    { class: "new-game panel", "aria-label": title },
    h("h2", {}, title),
    ...fields.map((field, i) => h("label", {}, `${field.label} `, inputs[i])),
    h("div", {}, h("button", { type: "submit", class: "primary" }, action)),
    notice,
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    notice.textContent = "";
    const values = Object.fromEntries(inputs.map((input) => [input.name, input.value.trim()]));
    submit(values).catch((err: unknown) => (notice.textContent = errorText(err)));
  });
  return form;
}

export function signInScreen(): Screen {
  const create = signInForm("New player", [{ label: "Username", name: "username" }], "Create player", async ({ username }) => {
    const { player, token } = await api.players.createPlayer({ username });
    if (!player) throw new Error("the server sent no player");
    signIn({ id: player.id, username: player.username, token });
  });
  const existing = signInForm(
    "Sign in with a player token",
    [
      { label: "Username", name: "username" },
      { label: "Player token", name: "token", type: "password" },
    ],
    "Sign in",
    async ({ username, token }) => {
      const { player } = await api.players.getPlayer({ player: username });
      if (!player) throw new Error("the server sent no player");
      const session: Session = { id: player.id, username: player.username, token };
      // Any call made as the player refuses a token that is no player's.
      await api.players.listChallenges({}, asPlayer(session));
      signIn(session);
    },
  );
  return {
    element: h(
      "section",
      {},
      h("h1", {}, "Play online"),
      h("p", {}, "Sign in as a player to challenge others by name, find an opponent, and keep your games and ratings."),
      create,
      existing,
    ),
    dispose() {},
  };
}
