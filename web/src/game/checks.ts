// Three-check: the checks each side has given, read from the FEN's field
// of checks left (Lichess's form, after the en-passant square: "3+2" is
// White 3 left, Black 2), and shown beside each player's name.

import { h } from "../dom";

export const CHECKS_TO_WIN = 3;

/** The checks each side has given, or undefined where the FEN keeps none. */
export function checksGiven(fen: string): { white: number; black: number } | undefined {
  const m = /^(\d+)\+(\d+)$/.exec(fen.split(" ")[4] ?? "");
  if (!m) return undefined;
  return { white: CHECKS_TO_WIN - Number(m[1]), black: CHECKS_TO_WIN - Number(m[2]) };
}

/** One side's count: "1 check given" beside its name. */
export class CheckCounter {
  readonly element = h("span", { class: "checks", title: `Checks given (${CHECKS_TO_WIN} win)` });

  show(side: "white" | "black", given: number): void {
    this.element.dataset.testid = `checks-${side}`;
    this.element.textContent = `${given} ${given === 1 ? "check" : "checks"} given`;
  }
}
