// The links of a game: the friend's seat (for the player who created it),
// the player's own seat, and a link that only watches.

import { button, h } from "../dom";
import { rememberedInvite, seatLink, watchLink, type SeatToken } from "../seats";

export function linksPanel(gameId: string, seat: SeatToken | undefined): HTMLElement {
  const invite = rememberedInvite(gameId);
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
    invite ? field("Your friend's seat: send them this link", invite, "invite-link") : null,
    seat ? field("Your seat: keep this link to play on from elsewhere", seatLink(gameId, seat), "seat-link") : null,
    field("Watch this game", watchLink(gameId), "watch-link"),
  );
}
