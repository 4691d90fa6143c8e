// Challenging a player by their username (CreateChallenge): they see it at
// once on their page, and the game opens for both once they accept.

import { api, errorText } from "../api";
import { h } from "../dom";
import { gameTermsFields } from "./game-terms";
import { asPlayer, type Session } from "./session";

/** The form; `sent` runs after a challenge is made. */
export function challengeForm(session: Session, sent: () => void): HTMLElement {
  const opponent = h("input", { type: "text", name: "opponent", required: true, maxlength: 20, autocomplete: "off" });
  const notice = h("p", { class: "notice", role: "alert" });
  const terms = gameTermsFields("challenge", false);
  const form = h(
    "form",
    { class: "new-game panel", "data-testid": "challenge-form", "aria-label": "Challenge a player" },
    h("h2", {}, "Challenge a player"),
    h("label", {}, "Opponent's username ", opponent),
    ...terms.fields,
    h("div", {}, h("button", { type: "submit", class: "primary" }, "Send challenge")),
    notice,
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const destinationId = opponent.value.trim();
    notice.textContent = "";
    api.players
      .createChallenge({ destinationId, ...terms.read(form) }, asPlayer(session))
      .then(() => {
        notice.textContent = `Challenge sent to ${destinationId}.`;
        opponent.value = "";
        sent();
      })
      .catch((err: unknown) => (notice.textContent = errorText(err)));
  });
  return form;
}
