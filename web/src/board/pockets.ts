// Crazyhouse pockets: the pieces each side captured and may drop back,
// read from the FEN (`[QNPp]` after the board, upper case White's; or as a
// ninth row), and shown as a row of piece icons with their counts. A press
// on a piece the player may drop hands it to the board, which selects its
// drop (a click) or drags it onto a square.

import { h, s } from "../dom";
import { drawPiece, pieceName } from "./pieces";
import { CHESS } from "./variant";

/** Pieces in a pocket by FEN letter (its case the side) with their counts. */
export type Pocket = Map<string, number>;

/** The kinds a pocket can hold, in display order. */
const KINDS = ["Q", "R", "B", "N", "P"];

/** Both sides' pockets of a Crazyhouse FEN (empty without any). */
export function readPockets(fen: string): { white: Pocket; black: Pocket } {
  const board = fen.split(" ")[0];
  const letters = /\[([^\]]*)\]/.exec(board)?.[1] ?? board.split("/")[8] ?? "";
  const white: Pocket = new Map();
  const black: Pocket = new Map();
  for (const letter of letters.replace(/[^a-zA-Z]/g, "")) {
    const pocket = letter === letter.toUpperCase() ? white : black;
    pocket.set(letter, (pocket.get(letter) ?? 0) + 1);
  }
  return { white, black };
}

/** The board's name of dropping a piece, as a drop's UCI begins: "N@". */
export function dropKey(letter: string): string {
  return `${letter.toUpperCase()}@`;
}

/** One side's pocket: every kind, those with none dimmed. */
export class PocketView {
  readonly element = h("div", { class: "pocket" });

  /** `onPress` hears a press on a piece the pocket holds. */
  constructor(private readonly onPress: (letter: string, e: PointerEvent) => void) {}

  /** Shows `side`'s pocket; `selected` is the board's selection. */
  show(side: "white" | "black", pocket: Pocket, selected: string | undefined): void {
    this.element.dataset.testid = `pocket-${side}`;
    this.element.setAttribute("aria-label", `${side === "white" ? "White" : "Black"}'s pocket`);
    this.element.replaceChildren(...KINDS.map((kind) => this.piece(side === "white" ? kind : kind.toLowerCase(), pocket, selected)));
  }

  private piece(letter: string, pocket: Pocket, selected: string | undefined): HTMLElement {
    const count = pocket.get(letter) ?? 0;
    const el = h(
      "div",
      {
        class: `pocket-piece${count === 0 ? " empty" : ""}${selected === dropKey(letter) ? " selected" : ""}`,
        "data-pocket-piece": letter,
        "data-count": count,
        title: `${pieceName(CHESS, letter)} × ${count}`,
      },
      s("svg", { viewBox: "-0.5 -0.5 1 1" }, drawPiece(CHESS, letter)),
      count > 0 ? h("span", { class: "count" }, String(count)) : null,
    );
    if (count > 0) el.addEventListener("pointerdown", (e) => this.onPress(letter, e));
    return el;
  }
}
