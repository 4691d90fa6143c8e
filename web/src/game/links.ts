// The links of a game: the open seat's join link (for the player who
// created it, until the friend joins), the player's own seat (unless it is
// bound to their player, whose credential plays it anywhere), and a link
// that only watches.

import { button, h } from "../dom";
import { joinLink, rememberedJoinCode, seatLink, watchLink, type SeatToken } from "../seats";

export function linksPanel(gameId: string, seat: SeatToken | undefined, seatOpen: boolean): HTMLElement {
  const code = seatOpen ? rememberedJoinCode(gameId) : undefined;
  const field = (label: string, value: string, testid: string) => {
    const input = h("input", { readonly: true, value, "data-testid": testid });
    input.addEventListener("focus", () => input.select());
    return h(
      "div",
      {},
      h("label", {}, label),
      h("div", { class: "row" }, input, button("Copy", () => void navigator.clipboard?.writeText(value))),
    );
  };
  return h(
    "div",
    { class: "panel links" },
    code ? field("Send your friend this link to join", joinLink(code), "join-link") : null,
    seat?.token ? field("Your seat: keep this link to play on from elsewhere", seatLink(gameId, seat), "seat-link") : null,
    field("Watch this game", watchLink(gameId), "watch-link"),
  );
}
