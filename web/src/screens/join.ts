// The screen a join link opens (`#/join/CODE`): the game the code invites
// to (its host, the game, the clock, the colour the friend would play) is
// looked up first, so that a code that cannot be used says so at once;
// then the friend gives a name and takes the open seat. The seat's token
// is kept like any other and the game screen follows.

import { api, errorReason, errorText, Reason, Side, sideName, type Game } from "../api";
import { h } from "../dom";
import { rememberSeat } from "../seats";
import { clockText } from "../time-controls";
import { variantInfo } from "../variants";
import { NAME_KEY } from "./new-game";
import type { Screen } from "./screen";

export function joinScreen(joinCode: string): Screen {
  const notice = h("p", { class: "notice", "data-testid": "notice", role: "alert" });
  const invitation = h("div", { "data-testid": "invitation" }, h("p", {}, "Looking the invitation up…"));
  const nameInput = h("input", {
    type: "text",
    name: "name",
    maxlength: 100,
    "data-testid": "join-name",
    value: localStorage.getItem(NAME_KEY) ?? "",
  });
  const joinButton = h("button", { type: "submit", class: "primary", "data-testid": "join-game", disabled: true }, "Join the game");
  const form = h(
    "form",
    { class: "panel", "data-testid": "join" },
    invitation,
    h("fieldset", {}, h("legend", {}, "Your name (optional)"), nameInput),
    h("div", {}, joinButton),
    notice,
  );
  const refuse = (err: unknown) => {
    notice.textContent = refusal(err);
    joinButton.disabled = true;
  };
  let looking = true;
  api.games
    .getOpenSeat({ joinCode })
    .then(({ game, side }) => {
      if (!looking || !game) return;
      invitation.replaceChildren(describe(game, side));
      joinButton.disabled = false;
    })
    .catch((err: unknown) => {
      if (!looking) return;
      invitation.replaceChildren();
      refuse(err);
    });
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
      .catch(refuse);
  });
  return {
    element: h("section", {}, h("h1", {}, "Join a game"), form),
    dispose() {
      looking = false;
    },
  };
}

/** What the invitation is: the host, the game, its clock, the joiner's colour. */
function describe(game: Game, side: Side): HTMLElement {
  const host = side === Side.WHITE ? game.black : game.white;
  const hostSide = side === Side.WHITE ? Side.BLACK : Side.WHITE;
  const row = (label: string, value: string, testid: string) =>
    h("div", { class: "row" }, h("dt", {}, label), h("dd", { "data-testid": testid }, value));
  return h(
    "div",
    {},
    h("p", {}, `${host?.displayName ?? sideName(hostSide, game.variant)} invites you to a game.`),
    h(
      "dl",
      { class: "invitation" },
      row("Host", host?.displayName ?? "", "invitation-host"),
      row("Game", variantInfo(game.variant).label, "invitation-game"),
      row("Clock", clockText(game.clock?.control), "invitation-clock"),
      row("You play", sideName(side, game.variant), "invitation-side"),
    ),
  );
}

/** Why the code cannot be used, in words. */
function refusal(err: unknown): string {
  switch (errorReason(err)) {
    case Reason.JOIN_CODE_UNKNOWN:
      return "No game has this join code: check that the whole link was copied.";
    case Reason.SEAT_TAKEN:
      return "Another player has already taken this seat.";
    case Reason.GAME_OVER:
      return "This game is over: its host aborted it, or nobody joined in time.";
    default:
      return errorText(err);
  }
}
