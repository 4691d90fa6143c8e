// What the seat this browser plays can do besides moving: resign, offer,
// accept or decline a draw, claim one, propose or answer a takeback. The
// opponent's pending offers are shown with their answers.

import { api, OutcomeStatus, Side, sideName, type Game } from "../api";
import { button, h } from "../dom";

/** The ids every seat action names. */
interface SeatCall {
  gameId: string;
  seatToken: string;
}

export class SeatActions {
  readonly offers = h("div", { "data-testid": "offers" });
  readonly buttons = h("div", { class: "controls" });

  constructor(
    private readonly gameId: string,
    private readonly side: Side | undefined,
    private readonly seatToken: string | undefined,
    /** Shows the server's refusal of an action (or clears it with ""). */
    private readonly report: (message: unknown) => void,
  ) {}

  /** Redraws the offers and the buttons for the game as it is now. */
  update(game: Game, extra: HTMLButtonElement[]): void {
    const playing = this.side !== undefined && game.outcome?.status === OutcomeStatus.ONGOING;
    this.offers.replaceChildren(...(playing ? this.pending(game) : this.spectatorOffers(game)));
    const buttons: HTMLButtonElement[] = [];
    if (playing) {
      buttons.push(
        button("Resign", this.act((call) => api.games.resign(call)), { "data-testid": "resign" }),
        button("Offer draw", this.act((call) => api.games.offerDraw(call)), {
          "data-testid": "offer-draw",
          disabled: game.drawOffer !== Side.UNSPECIFIED,
        }),
        button("Take back", this.act((call) => api.games.proposeTakeback(call)), {
          "data-testid": "takeback",
          disabled: game.ply === 0 || game.takebackOffer !== Side.UNSPECIFIED,
        }),
      );
      // A game can be aborted until both sides have moved.
      if (game.ply < 2) {
        buttons.push(button("Abort", this.act((call) => api.games.abort(call)), { "data-testid": "abort" }));
      }
      if (game.turn === this.side && (game.outcome?.claimableDraws.length ?? 0) > 0) {
        buttons.push(
          button("Claim draw", this.act((call) => api.games.claimDraw(call)), { "data-testid": "claim-draw", class: "primary" }),
        );
      }
    }
    this.buttons.replaceChildren(...buttons, ...extra);
  }

  /** A click handler that runs a seat action. */
  private act(run: (call: SeatCall) => Promise<unknown>): () => void {
    return () => {
      if (!this.seatToken) return;
      this.report("");
      run({ gameId: this.gameId, seatToken: this.seatToken }).catch((err: unknown) => this.report(err));
    };
  }

  private pending(game: Game): HTMLElement[] {
    const theirs = this.side === Side.WHITE ? Side.BLACK : Side.WHITE;
    const items: HTMLElement[] = [];
    const answer = (what: string, testid: string, respond: (call: SeatCall, accept: boolean) => Promise<unknown>) =>
      h(
        "div",
        { class: "offer", "data-testid": `${testid}-offer` },
        what,
        " ",
        button(`Accept ${testid}`, this.act((call) => respond(call, true)), { "data-testid": `accept-${testid}` }),
        " ",
        button("Decline", this.act((call) => respond(call, false)), { "data-testid": `decline-${testid}` }),
      );
    if (game.drawOffer === theirs) {
      items.push(answer("Your opponent offers a draw.", "draw", (call, accept) => api.games.respondToDraw({ ...call, accept })));
    } else if (game.drawOffer === this.side) {
      items.push(h("div", { class: "offer" }, "You offered a draw."));
    }
    if (game.takebackOffer === theirs) {
      items.push(
        answer("Your opponent asks to take back their last move.", "takeback", (call, accept) =>
          api.games.respondToTakeback({ ...call, accept }),
        ),
      );
    } else if (game.takebackOffer === this.side) {
      items.push(h("div", { class: "offer" }, "You asked to take back your last move."));
    }
    return items;
  }

  private spectatorOffers(game: Game): HTMLElement[] {
    if (game.outcome?.status !== OutcomeStatus.ONGOING || game.drawOffer === Side.UNSPECIFIED) return [];
    return [h("div", { class: "offer" }, `${sideName(game.drawOffer, game.variant)} offers a draw.`)];
  }
}
