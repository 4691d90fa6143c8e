// The challenges waiting for an answer (ListChallenges): those made to the
// player, with Accept and Decline, and those they made, with Cancel.
// Accepting opens the game; the challenger's page hears of it on their
// events stream.

import { api, ChallengeColor, errorText, sideName, Side, type Challenge } from "../api";
import { button, h } from "../dom";
import { clockText } from "../time-controls";
import { variantInfo } from "../variants";
import { asPlayer, type Session } from "./session";

/** The game a challenge offers, in words: "Chess, 5 min, rated". */
export function challengeTerms(challenge: Challenge): string {
  return `${variantInfo(challenge.variant).label}, ${clockText(challenge.timeControl)}, ${challenge.rated ? "rated" : "casual"}`;
}

/** The colour the challenged player gets. */
function theirColour(challenge: Challenge): string {
  if (challenge.color === ChallengeColor.WHITE) return `you play ${sideName(Side.BLACK, challenge.variant)}`;
  if (challenge.color === ChallengeColor.BLACK) return `you play ${sideName(Side.WHITE, challenge.variant)}`;
  return "colours drawn";
}

export class ChallengesPanel {
  readonly element = h("div", { class: "panel" }, h("h2", {}, "Challenges"));
  private readonly incoming = h("ul", { "data-testid": "incoming-challenges", "aria-label": "Challenges to you" });
  private readonly outgoing = h("ul", { "data-testid": "outgoing-challenges", "aria-label": "Your challenges" });
  private readonly notice = h("p", { class: "notice", role: "alert" });

  constructor(private readonly session: Session) {
    this.element.append(this.incoming, this.outgoing, this.notice);
  }

  /** Shows a sentence about the challenges (a declined one, say). */
  tell(message: string): void {
    this.notice.textContent = message;
  }

  async refresh(): Promise<void> {
    try {
      const { incoming, outgoing } = await api.players.listChallenges({}, asPlayer(this.session));
      this.incoming.replaceChildren(...incoming.map((c) => this.incomingItem(c)));
      this.outgoing.replaceChildren(...outgoing.map((c) => this.outgoingItem(c)));
      if (incoming.length + outgoing.length === 0) this.incoming.replaceChildren(h("li", {}, "No challenges waiting."));
    } catch (err) {
      this.tell(errorText(err));
    }
  }

  private incomingItem(challenge: Challenge): HTMLElement {
    const from = challenge.challengerId;
    return h(
      "li",
      { "data-challenge-id": challenge.id, "aria-label": `Challenge from ${from}` },
      `${from} challenges you: ${challengeTerms(challenge)}, ${theirColour(challenge)}. `,
      button("Accept", () => this.answer(this.accept(challenge.id)), { class: "primary" }),
      " ",
      button("Decline", () => this.answer(api.players.declineChallenge({ challengeId: challenge.id }, asPlayer(this.session)))),
    );
  }

  private outgoingItem(challenge: Challenge): HTMLElement {
    const to = challenge.destinationId || "anyone";
    return h(
      "li",
      { "data-challenge-id": challenge.id, "aria-label": `Challenge to ${to}` },
      `You challenged ${to}: ${challengeTerms(challenge)}. `,
      button("Cancel", () => this.answer(api.players.cancelChallenge({ challengeId: challenge.id }, asPlayer(this.session)))),
    );
  }

  private async accept(challengeId: string): Promise<void> {
    const { game } = await api.players.acceptChallenge({ challengeId }, asPlayer(this.session));
    if (game) location.hash = `#/game/${encodeURIComponent(game.id)}`;
  }

  /** Runs an answer, then lists the challenges again. */
  private answer(call: Promise<unknown>): void {
    this.tell("");
    call.then(() => this.refresh()).catch((err: unknown) => this.tell(errorText(err)));
  }
}
