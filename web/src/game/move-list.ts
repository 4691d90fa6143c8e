// The moves played, numbered in pairs: SAN for chess; WXF or Chinese
// notation for xiangqi, switchable (the choice is remembered).

import { button, h } from "../dom";
import { Side, type PlayedMove } from "../api";

export type XiangqiNotation = "wxf" | "chinese";

const NOTATION_KEY = "arbiter.xiangqiNotation";

export class MoveList {
  readonly element: HTMLElement;
  private readonly body = h("div", { class: "moves", "data-testid": "moves" });
  private notation: XiangqiNotation = localStorage.getItem(NOTATION_KEY) === "chinese" ? "chinese" : "wxf";
  private moves: PlayedMove[] = [];

  /** The ply whose position the board shows instead of the current one. */
  private shownPly: number | undefined;

  constructor(
    private readonly xiangqi: boolean,
    /** Shows the position after a move (undefined: the current position). */
    private readonly show: (move: PlayedMove | undefined) => void,
  ) {
    const header = h("div", { class: "row" }, h("h2", {}, "Moves"));
    if (xiangqi) {
      const toggle = button(this.toggleLabel(), () => {
        this.notation = this.notation === "wxf" ? "chinese" : "wxf";
        localStorage.setItem(NOTATION_KEY, this.notation);
        toggle.textContent = this.toggleLabel();
        this.draw();
      }, { "data-testid": "notation" });
      header.append(toggle);
    }
    this.element = h("div", { class: "panel" }, header, this.body);
  }

  /** Shows the game's moves; a new move returns to the current position. */
  update(moves: PlayedMove[]): void {
    this.moves = moves;
    this.shownPly = undefined;
    this.draw();
  }

  /** Steps the position shown by `delta` moves (the last step returns to
   * the game). */
  step(delta: number): void {
    const last = this.moves.length - 1;
    const at = Math.min(Math.max((this.shownPly ?? last) + delta, 0), last);
    this.select(at === last ? undefined : at);
  }

  private select(ply: number | undefined): void {
    this.shownPly = ply;
    this.show(ply === undefined ? undefined : this.moves[ply]);
    this.draw();
  }

  /** A move in the notation shown. */
  private text(move: PlayedMove): string {
    const m = move.move;
    if (!m) return "";
    return this.xiangqi && this.notation === "chinese" ? m.chinese : m.san;
  }

  private toggleLabel(): string {
    return this.notation === "wxf" ? "Show Chinese" : "Show WXF";
  }

  private draw(): void {
    // A game from a position with Black to move starts its first row empty.
    const blackFirst = this.moves[0]?.side === Side.BLACK;
    const cells: (PlayedMove | undefined)[] = blackFirst ? [undefined, ...this.moves] : [...this.moves];
    const rows: HTMLTableRowElement[] = [];
    for (let i = 0; i < cells.length; i += 2) {
      const cell = (m: PlayedMove | undefined) => {
        const td = h("td", { "data-ply": m?.ply, class: m && m.ply === this.shownPly ? "shown" : undefined }, m ? this.text(m) : "");
        if (m) td.addEventListener("click", () => this.select(m.ply === this.moves.length - 1 ? undefined : m.ply));
        return td;
      };
      rows.push(h("tr", {}, h("td", { class: "num" }, `${i / 2 + 1}.`), cell(cells[i]), cell(cells[i + 1])));
    }
    this.body.replaceChildren(h("table", {}, h("tbody", {}, ...rows)));
    if (this.shownPly === undefined) this.body.scrollTop = this.body.scrollHeight;
  }
}
