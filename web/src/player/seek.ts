// Finding an opponent in the pairing pool (Players.Seek): the stream's
// first message is the seek, its last the game once paired, which opens.
// The seek lives while its stream is open: cancelling, or leaving the page,
// closes it and so withdraws it.

import { api, errorText } from "../api";
import { button, h } from "../dom";
import { gameTermsFields, type GameTerms } from "./game-terms";
import { asPlayer, type Session } from "./session";

export class SeekPanel {
  readonly element: HTMLElement;
  private readonly form: HTMLFormElement;
  private readonly waiting = h("div", { class: "offer", "data-testid": "seeking", role: "status", hidden: true });
  private readonly notice = h("p", { class: "notice", role: "alert" });
  private seeking: AbortController | undefined;

  constructor(private readonly session: Session) {
    const terms = gameTermsFields("seek", true);
    this.form = h(
      "form",
      { class: "new-game", "aria-label": "Find an opponent" },
      ...terms.fields,
      h("div", {}, h("button", { type: "submit", class: "primary" }, "Find an opponent")),
    );
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.seek(terms.read(this.form));
    });
    this.element = h("div", { class: "panel" }, h("h2", {}, "Find an opponent"), this.form, this.waiting, this.notice);
  }

  /** Withdraws the seek, if one is open. */
  dispose(): void {
    this.seeking?.abort();
  }

  private async seek(terms: GameTerms): Promise<void> {
    const abort = new AbortController();
    this.seeking = abort;
    this.notice.textContent = "";
    this.form.hidden = true;
    this.waiting.hidden = false;
    this.waiting.replaceChildren("Looking for an opponent… ", button("Cancel", () => abort.abort()));
    try {
      for await (const answer of api.players.seek(terms, asPlayer(this.session, abort.signal))) {
        if (answer.seek) this.waiting.firstChild?.replaceWith(`Waiting for an opponent (your rating here: ${answer.seek.rating})… `);
        if (answer.game) {
          location.hash = `#/game/${encodeURIComponent(answer.game.id)}`;
          return;
        }
      }
    } catch (err) {
      if (!abort.signal.aborted) this.notice.textContent = errorText(err);
    }
    this.form.hidden = false;
    this.waiting.hidden = true;
  }
}
