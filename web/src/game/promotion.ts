// The choice of piece for a chess pawn that reaches the last rank.

import { h } from "../dom";
import { drawPiece } from "../board/pieces";
import { CHESS } from "../board/variant";
import { s } from "../dom";

/** Asks which piece to promote to among `letters` (lower case FEN letters);
 * resolves with the letter, or undefined when the choice is dismissed. */
export function choosePromotion(host: HTMLElement, letters: string[], white: boolean): Promise<string | undefined> {
  return new Promise((resolve) => {
    const done = (letter: string | undefined) => {
      box.remove();
      resolve(letter);
    };
    const order = ["q", "r", "b", "n"].filter((l) => letters.includes(l));
    const box = h(
      "div",
      { class: "promotion panel", "data-testid": "promotion" },
      h("span", {}, "Promote to"),
      ...order.map((letter) => {
        const glyph = s("svg", { viewBox: "-0.5 -0.5 1 1", width: 36, height: 36 }, drawPiece(CHESS, white ? letter.toUpperCase() : letter));
        const b = h("button", { type: "button", "data-promotion": letter, title: letter }, glyph);
        b.addEventListener("click", () => done(letter));
        return b;
      }),
    );
    const cancel = h("button", { type: "button" }, "Cancel");
    cancel.addEventListener("click", () => done(undefined));
    box.append(cancel);
    host.replaceChildren(box);
  });
}
