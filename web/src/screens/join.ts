// The screen a join link opens (`#/join/CODE`): the friend gives a name and
// takes the game's open seat; the seat's token is kept like any other and
// the game screen follows.

import { api, errorText, Side } from "../api";
import { h } from "../dom";
import { rememberSeat } from "../seats";
import { NAME_KEY } from "./new-game";
import type { Screen } from "./screen";

export function joinScreen(joinCode: string): Screen {
  const notice = h("p", { class: "notice", "data-testid": "notice", role: "alert" });
  const nameInput = h("input", {
    type: "text",
    name: "name",
    maxlength: 100,
    "data-testid": "join-name",
    value: localStorage.getItem(NAME_KEY) ?? "",
  });
  const form = h(
    "form",
    { class: "panel", "data-testid": "join" },
    h("p", {}, "A friend invites you to a game."),
    h("fieldset", {}, h("legend", {}, "Your name (optional)"), nameInput),
    h("div", {}, h("button", { type: "submit", class: "primary", "data-testid": "join-game" }, "Join the game")),
    notice,
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const displayName = nameInput.value.trim();
    localStorage.setItem(NAME_KEY, displayName);
    notice.textContent = "";
    api.games
      .joinGame({ joinCode, displayName })
      .then((joined) => {
        const game = joined.game;
        if (!game) throw new Error("the server sent no game");
        rememberSeat(game.id, { side: joined.side === Side.WHITE ? "white" : "black", token: joined.seatToken });
        location.hash = `#/game/${encodeURIComponent(game.id)}`;
      })
      .catch((err: unknown) => (notice.textContent = errorText(err)));
  });
  return { element: h("section", {}, h("h1", {}, "Join a game"), form), dispose() {} };
}
