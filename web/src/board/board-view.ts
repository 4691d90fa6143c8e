// An interactive SVG board for either game: draws the grid and the pieces
// of a FEN, highlights the last move, the selection and its legal
// destinations, and turns clicks and drags into move attempts (or, in the
// editor, into clicks on squares). A Crazyhouse drop is selected as "N@"
// (a pocket piece pressed, see pockets.ts) and played like a move from there.

import { h, s } from "../dom";
import { drawChessGrid } from "./chess-board";
import { Layout } from "./layout";
import { drawPiece, pieceName } from "./pieces";
import { dropKey } from "./pockets";
import { parseSquare, readPlacement, squareName, type Geometry, type Placement } from "./variant";
import { drawXiangqiGrid } from "./xiangqi-board";

export interface BoardHandlers {
  /** Whether the user may pick up this piece (FEN letter) now. */
  canPick?: (piece: string) => boolean;
  /** The legal destinations of the piece on `from` (or of the drop `from`, "N@"). */
  destinations?: (from: string) => string[];
  /** A move attempt, legal or not: the server judges it. */
  onMove?: (from: string, to: string) => void;
  /** The selection changed (a square, a drop "N@", or none). */
  onSelect?: (selected: string | undefined) => void;
  /** Editor mode: a click on a square (no selecting, no dragging). */
  onSquare?: (square: string) => void;
}

const DRAG_THRESHOLD = 0.15; // board units a pointer moves before a press becomes a drag

export class BoardView {
  readonly element: HTMLDivElement;
  private readonly svg: SVGSVGElement;
  private layout: Layout;
  private placement: Placement = new Map();
  private lastMove: [string, string] | undefined;
  private checkSquare: string | undefined;
  private selected: string | undefined;
  /** A press on a piece: `square` is where it stands, or its drop ("N@"). */
  private press: { square: string; letter: string; x: number; y: number; dragging: boolean } | undefined;
  private dragPiece: SVGGElement | undefined;
  private readonly layers = {
    grid: s("g"),
    marks: s("g", { class: "marks" }),
    pieces: s("g", { class: "pieces" }),
    hits: s("g", { class: "hits" }),
    drag: s("g", { class: "drag" }),
  };

  constructor(
    readonly geo: Geometry,
    flipped: boolean,
    private readonly handlers: BoardHandlers,
  ) {
    this.layout = new Layout(geo, flipped);
    this.svg = s("svg", { class: `board ${geo.variant}`, role: "grid", "aria-label": `${geo.variant} board` });
    this.svg.append(this.layers.grid, this.layers.marks, this.layers.pieces, this.layers.hits, this.layers.drag);
    this.element = h("div", { class: `board-wrap ${geo.variant}` }, this.svg);
    this.svg.addEventListener("pointerdown", (e) => this.pointerDown(e));
    this.svg.addEventListener("pointermove", (e) => this.pointerMove(e));
    this.svg.addEventListener("pointerup", (e) => this.pointerUp(e));
    this.svg.addEventListener("pointercancel", () => this.cancelPress());
    this.drawStatic();
  }

  setFlipped(flipped: boolean): void {
    if (flipped === this.layout.flipped) return;
    this.layout = new Layout(this.geo, flipped);
    this.drawStatic();
    this.drawDynamic();
  }

  get flipped(): boolean {
    return this.layout.flipped;
  }

  /** Shows a position; clears the selection. */
  setPosition(fen: string, lastMove?: [string, string], checkSquare?: string): void {
    this.placement = readPlacement(this.geo, fen);
    this.lastMove = lastMove;
    this.checkSquare = checkSquare;
    this.selected = undefined;
    this.drawDynamic();
  }

  /** Shows pieces by square (the editor's board). */
  setPlacement(placement: Placement): void {
    this.placement = new Map(placement);
    this.drawDynamic();
  }

  /** Redraws the selection's destinations (e.g. once legal moves arrive). */
  refresh(): void {
    this.drawDynamic();
  }

  deselect(): void {
    this.selected = undefined;
    this.drawDynamic();
  }

  /** A press on a pocket piece the user may drop: selects its drop, and
   * dragging it onto a square drops it there. */
  pressDrop(letter: string, e: PointerEvent): void {
    if (e.button !== 0 || !(this.handlers.canPick?.(letter) ?? false)) return;
    e.preventDefault();
    this.startPress(dropKey(letter), letter, e);
  }

  private drawStatic(): void {
    this.svg.setAttribute("viewBox", this.layout.viewBox);
    this.layers.grid.replaceChildren(
      this.geo.variant === "chess" ? drawChessGrid(this.layout) : drawXiangqiGrid(this.layout),
    );
    this.layers.hits.replaceChildren();
    for (let file = 0; file < this.geo.files; file++) {
      for (let rank = 0; rank < this.geo.ranks; rank++) {
        const { x, y } = this.layout.centre({ file, rank });
        const square = squareName(this.geo, { file, rank });
        this.layers.hits.append(
          s("rect", { x: x - 0.5, y: y - 0.5, width: 1, height: 1, class: "hit", "data-square": square }),
        );
      }
    }
  }

  private drawDynamic(): void {
    const marks: SVGElement[] = [];
    const mark = (square: string, cls: string) => {
      const spot = parseSquare(this.geo, square);
      if (!spot) return;
      const { x, y } = this.layout.centre(spot);
      marks.push(
        this.geo.variant === "chess"
          ? s("rect", { x: x - 0.5, y: y - 0.5, width: 1, height: 1, class: cls })
          : s("circle", { cx: x, cy: y, r: 0.5, class: cls }),
      );
    };
    if (this.lastMove) for (const sq of this.lastMove) mark(sq, "last-move");
    if (this.checkSquare) mark(this.checkSquare, "check");
    this.handlers.onSelect?.(this.selected);
    if (this.selected) {
      mark(this.selected, "selected");
      for (const to of this.handlers.destinations?.(this.selected) ?? []) {
        const spot = parseSquare(this.geo, to);
        if (!spot) continue;
        const { x, y } = this.layout.centre(spot);
        const capture = this.placement.has(to);
        marks.push(
          s("circle", {
            cx: x,
            cy: y,
            r: capture ? 0.46 : 0.14,
            class: capture ? "dest capture" : "dest",
            "data-dest": to,
          }),
        );
      }
    }
    this.layers.marks.replaceChildren(...marks);
    const pieces: SVGElement[] = [];
    for (const [square, letter] of this.placement) {
      const spot = parseSquare(this.geo, square);
      if (!spot) continue;
      const { x, y } = this.layout.centre(spot);
      const piece = drawPiece(this.geo, letter);
      piece.setAttribute("transform", `translate(${x} ${y})`);
      piece.setAttribute("data-square", square);
      piece.setAttribute("aria-label", `${pieceName(this.geo, letter)} on ${square}`);
      if (this.press?.dragging && this.press.square === square) piece.classList.add("lifted");
      pieces.push(piece);
    }
    this.layers.pieces.replaceChildren(...pieces);
  }

  private point(e: PointerEvent): { x: number; y: number } {
    const ctm = this.svg.getScreenCTM();
    if (!ctm) return { x: -1, y: -1 };
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse());
    return { x: p.x, y: p.y };
  }

  private squareAt(e: PointerEvent): string | undefined {
    const { x, y } = this.point(e);
    const spot = this.layout.spotAt(x, y);
    return spot && squareName(this.geo, spot);
  }

  private pointerDown(e: PointerEvent): void {
    if (e.button !== 0) return;
    const square = this.squareAt(e);
    if (!square) return;
    e.preventDefault();
    if (this.handlers.onSquare) {
      this.handlers.onSquare(square);
      return;
    }
    const piece = this.placement.get(square);
    const pickable = piece !== undefined && (this.handlers.canPick?.(piece) ?? false);
    // An own piece is a destination where the king castles by taking its rook.
    const destination = this.selected !== undefined && (this.handlers.destinations?.(this.selected) ?? []).includes(square);
    if (this.selected && this.selected !== square && (!pickable || destination)) {
      const from = this.selected;
      this.deselect();
      this.handlers.onMove?.(from, square);
      return;
    }
    if (!pickable || piece === undefined) {
      this.deselect();
      return;
    }
    this.startPress(square, piece, e);
  }

  /** Selects `square` (or a drop) and follows the pointer in case it drags. */
  private startPress(square: string, letter: string, e: PointerEvent): void {
    this.selected = square;
    const { x, y } = this.point(e);
    this.press = { square, letter, x, y, dragging: false };
    this.svg.setPointerCapture(e.pointerId);
    this.drawDynamic();
  }

  private pointerMove(e: PointerEvent): void {
    if (!this.press) return;
    const { x, y } = this.point(e);
    if (!this.press.dragging && Math.hypot(x - this.press.x, y - this.press.y) < DRAG_THRESHOLD) return;
    if (!this.press.dragging) {
      this.press.dragging = true;
      this.dragPiece = drawPiece(this.geo, this.press.letter);
      this.dragPiece.classList.add("dragging");
      this.layers.drag.replaceChildren(this.dragPiece);
      this.drawDynamic();
    }
    this.dragPiece?.setAttribute("transform", `translate(${x} ${y})`);
  }

  private pointerUp(e: PointerEvent): void {
    const press = this.press;
    if (!press) return;
    this.cancelPress();
    if (!press.dragging) return; // a click: the piece stays selected
    const to = this.squareAt(e);
    if (to && to !== press.square) {
      this.deselect();
      this.handlers.onMove?.(press.square, to);
    } else {
      this.drawDynamic();
    }
  }

  private cancelPress(): void {
    this.press = undefined;
    this.dragPiece = undefined;
    this.layers.drag.replaceChildren();
  }
}
