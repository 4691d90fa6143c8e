// What the seat this browser plays can do besides moving: resign, offer,
// accept or decline a draw, claim one, propose or answer a takeback; once
// the game is over, offer or answer a rematch. The opponent's pending offers
// are shown with their answers.

import { api, OutcomeStatus, Side, sideName, type CallOptions, type Game } from "../api";
import { button, h } from "../dom";
import { seatCall, type SeatToken } from "../seats";
import { enterRematch } from "./rematch";

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
    private readonly seat: SeatToken | undefined,
    /** Shows the server's refusal of an action (or clears it with ""). */
    private readonly report: (message: unknown) => void,
  ) {}

  /** Redraws the offers and the buttons for the game as it is now. */
  update(game: Game, extra: HTMLButtonElement[]): void {
    const over = game.outcome?.status !== OutcomeStatus.ONGOING;
    const waiting = Boolean(game.white?.open || game.black?.open);
    const playing = this.side !== undefined && !over && !waiting;
    this.offers.replaceChildren(
      ...(this.side === undefined ? this.spectatorOffers(game) : over ? this.rematchOffers(game) : this.pending(game)),
    );
    const buttons: HTMLButtonElement[] = [];
    const abort = () =>
      button("Abort", this.act((call, options) => api.games.abort(call, options), "Abort this game? It ends without a result."), {
        "data-testid": "abort",
      });
    if (this.side !== undefined && !over && waiting) buttons.push(abort());
    if (this.side !== undefined && over && !waiting && !game.rematch && game.rematchOffer === Side.UNSPECIFIED) {
      buttons.push(
        button("Rematch", this.act((call, options) => api.games.offerRematch(call, options).then(enterRematch)), {
          "data-testid": "rematch",
          class: "primary",
        }),
      );
    }
    if (playing) {
      buttons.push(
        button("Resign", this.act((call, options) => api.games.resign(call, options), "Resign this game? Your opponent wins."), {
          "data-testid": "resign",
        }),
        button("Offer draw", this.act((call, options) => api.games.offerDraw(call, options)), {
          "data-testid": "offer-draw",
          disabled: game.drawOffer !== Side.UNSPECIFIED,
        }),
        button("Take back", this.act((call, options) => api.games.proposeTakeback(call, options)), {
          "data-testid": "takeback",
          disabled: game.ply === 0 || game.takebackOffer !== Side.UNSPECIFIED,
        }),
      );
      // A game can be aborted until both sides have moved.
      if (game.ply < 2) buttons.push(abort());
      if (game.turn === this.side && (game.outcome?.claimableDraws.length ?? 0) > 0) {
        buttons.push(
          button("Claim draw", this.act((call, options) => api.games.claimDraw(call, options)), { "data-testid": "claim-draw", class: "primary" }),
        );
      }
    }
    this.buttons.replaceChildren(...buttons, ...extra);
  }

  /** A click handler that runs a seat action; one that cannot be undone
   * asks `question` first. */
  private act(run: (call: SeatCall, options: CallOptions) => Promise<unknown>, question?: string): () => void {
    return () => {
      if (!this.seat) return;
      if (question !== undefined && !window.confirm(question)) return;
      this.report("");
      run(...seatCall(this.gameId, this.seat)).catch((err: unknown) => this.report(err));
    };
  }

  /** The opponent's offer `what` with its two answers. */
  private answer(
    what: string,
    testid: string,
    respond: (call: SeatCall, accept: boolean, options: CallOptions) => Promise<unknown>,
  ): HTMLElement {
    return h(
      "div",
      { class: "offer", "data-testid": `${testid}-offer` },
      what,
      " ",
      button(`Accept ${testid}`, this.act((call, options) => respond(call, true, options)), { "data-testid": `accept-${testid}` }),
      " ",
      button("Decline", this.act((call, options) => respond(call, false, options)), { "data-testid": `decline-${testid}` }),
    );
  }

  private theirs(): Side {
    return this.side === Side.WHITE ? Side.BLACK : Side.WHITE;
  }

  private rematchOffers(game: Game): HTMLElement[] {
    if (game.rematch) return [h("div", { class: "offer" }, "The rematch starts…")];
    if (game.rematchOffer === this.side) return [h("div", { class: "offer", "data-testid": "rematch-offered" }, "You offered a rematch.")];
    if (game.rematchOffer !== this.theirs()) return [];
    return [
      this.answer("Your opponent offers a rematch.", "rematch", (call, accept, options) =>
        api.games.respondToRematch({ ...call, accept }, options).then(enterRematch),
      ),
    ];
  }

  private pending(game: Game): HTMLElement[] {
    const theirs = this.theirs();
    const items: HTMLElement[] = [];
    if (game.drawOffer === theirs) {
      items.push(
        this.answer("Your opponent offers a draw.", "draw", (call, accept, options) =>
          api.games.respondToDraw({ ...call, accept }, options),
        ),
      );
    } else if (game.drawOffer === this.side) {
      items.push(h("div", { class: "offer" }, "You offered a draw."));
    }
    if (game.takebackOffer === theirs) {
      items.push(
        this.answer("Your opponent asks to take back their last move.", "takeback", (call, accept, options) =>
          api.games.respondToTakeback({ ...call, accept }, options),
        ),
      );
    } else if (game.takebackOffer === this.side) {
      items.push(h("div", { class: "offer" }, "You asked to take back your last move."));
    }
    return items;
  }

  private spectatorOffers(game: Game): HTMLElement[] {
    const ongoing = game.outcome?.status === OutcomeStatus.ONGOING;
    const offer = ongoing ? game.drawOffer : game.rematchOffer;
    if (offer === Side.UNSPECIFIED) return [];
    return [h("div", { class: "offer" }, `${sideName(offer, game.variant)} offers a ${ongoing ? "draw" : "rematch"}.`)];
  }
}
