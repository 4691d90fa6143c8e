// The game screen: the board, both players with their clocks, the moves,
// the outcome, and the actions of the seat this browser plays (by its token,
// or as the signed-in player the seat is bound to). Everything
// the other side does arrives through WatchGame, whose events after the
// snapshot carry only the move played: the screen keeps the move list. Once
// the game ends the stream goes on until its rematch starts, and the screen
// moves on to it.

import {
  api,
  errorText,
  GameEventKind,
  OutcomeStatus,
  Side,
  sideName,
  Termination,
  Variant,
  variantName,
  watchGame,
  type Game,
  type Move,
  type PlayedMove,
  type Seat,
  type WatchGameResponse,
} from "../api";
import { BoardView } from "../board/board-view";
import { dropKey, PocketView, readPockets } from "../board/pockets";
import { geometryOf, isWhitePiece, readPlacement, type Geometry } from "../board/variant";
import { button, h } from "../dom";
import { CheckCounter, checksGiven } from "../game/checks";
import { ClockView } from "../game/clock";
import { MoveList } from "../game/move-list";
import { choosePromotion } from "../game/promotion";
import { SeatActions } from "../game/seat-actions";
import { linksPanel } from "../game/links";
import { downloadPgn } from "../game/pgn";
import { followRematch } from "../game/rematch";
import { playerSeat, rememberedSeat, rememberSeat, seatCall, type SeatToken } from "../seats";
import type { Screen } from "./screen";

export function gameScreen(gameId: string, seatInUrl: SeatToken | undefined): Screen {
  if (seatInUrl) {
    rememberSeat(gameId, seatInUrl);
    // The token stays in this browser's storage, not in the address bar
    // (nor in its history, nor in a screenshot of it).
    history.replaceState(null, "", `#/game/${encodeURIComponent(gameId)}`);
  }
  const tokenSeat = seatInUrl ?? rememberedSeat(gameId);
  let seat = tokenSeat;
  // Whether the game's stream is down, beside the game (never in the
  // board's grid, which it would push aside).
  const connection = h("p", { class: "connection", "data-testid": "connection", role: "status", hidden: true });
  const root = h("section", { class: "game", "data-testid": "game" }, h("p", {}, "Loading the game…"), connection);
  const abort = new AbortController();
  let view: GameView | undefined;
  let moves: PlayedMove[] = [];

  watchGame(
    gameId,
    tokenSeat?.token,
    (event) => {
      const game = event.game;
      if (!game) return;
      moves = movesAfter(moves, event);
      game.moves = moves;
      if (!view) {
        seat ??= playerSeat(game);
        view = new GameView(game, seat, connection);
        root.replaceChildren(view.element);
      }
      view.show(game, event.kind);
      if (event.kind === GameEventKind.REMATCH_STARTED) {
        followRematch(gameId, game.rematch, seat).catch((err: unknown) => view?.tell(errorText(err)));
      }
    },
    (connected) => {
      connection.hidden = connected;
      connection.textContent = connected ? "" : "Reconnecting…";
    },
    abort.signal,
  ).catch((err: unknown) => {
    if (abort.signal.aborted) return;
    connection.replaceChildren(h("span", { class: "notice", "data-testid": "watch-error" }, errorText(err)));
    connection.hidden = false;
  });

  return {
    element: root,
    dispose() {
      abort.abort();
      view?.dispose();
    },
  };
}

/** The game's moves after an event: the snapshot has them all, a move adds
 * one, an accepted takeback keeps the first `game.ply`. */
function movesAfter(moves: PlayedMove[], event: WatchGameResponse): PlayedMove[] {
  const game = event.game;
  if (!game || event.kind === GameEventKind.SNAPSHOT) return game?.moves ?? moves;
  if (event.kind === GameEventKind.MOVE && event.move) return [...moves, event.move];
  if (event.kind === GameEventKind.TAKEBACK_ACCEPTED) return moves.slice(0, game.ply);
  return moves;
}

/** A seat's rating, when its player has one in the game's perf, and once
 * a rated game ended what it changed: " (1500)", " (1500 +12)". */
function ratingText(seat: Seat | undefined): string {
  if (!seat?.rating) return "";
  const diff = seat.ratingDiff > 0 ? ` +${seat.ratingDiff}` : seat.ratingDiff < 0 ? ` ${seat.ratingDiff}` : "";
  return ` (${seat.rating}${diff})`;
}

/** The screen of one game once its first state is known. */
class GameView {
  readonly element: HTMLElement;
  private readonly geo: Geometry;
  private readonly mySide: Side | undefined;
  private readonly board: BoardView;
  private readonly moveList: MoveList;
  private readonly clocks: Record<"top" | "bottom", ClockView>;
  private readonly names = { top: h("span", { class: "player-name" }), bottom: h("span", { class: "player-name" }) };
  /** Crazyhouse: each side's pocket, beside the board. */
  private readonly pockets: Record<"top" | "bottom", PocketView> | undefined;
  /** Three-check: the checks each side gave, beside its name. */
  private readonly checks: Record<"top" | "bottom", CheckCounter> | undefined;
  /** The position the board shows (the current one, or an earlier one). */
  private shownFen: string;
  private selection: string | undefined;
  private readonly status = h("div", { class: "status", "data-testid": "status" });
  private readonly notice = h("div", { class: "notice", "data-testid": "notice", role: "alert" });
  private readonly actions: SeatActions;
  /** Whether the board shows an earlier position (moving is off then). */
  private browsing = false;
  private readonly keys = (e: KeyboardEvent) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === "ArrowLeft") this.moveList.step(-1);
    else if (e.key === "ArrowRight") this.moveList.step(1);
  };
  private readonly promotionHost = h("div");
  private readonly links = h("div");
  /** Whether the links panel shows the open seat's join link. */
  private linksForOpenSeat: boolean | undefined;
  private game: Game;
  /** Legal moves of the current position by origin square. */
  private legal = new Map<string, Move[]>();
  private legalFor = -1n;

  constructor(
    game: Game,
    private readonly seat: SeatToken | undefined,
    connection: HTMLElement,
  ) {
    this.game = game;
    this.shownFen = game.fen;
    this.geo = geometryOf(variantName(game.variant));
    this.mySide = seat ? (seat.side === "white" ? Side.WHITE : Side.BLACK) : undefined;
    const flipped = this.mySide === Side.BLACK;
    this.board = new BoardView(this.geo, flipped, {
      canPick: (piece) => !this.browsing && this.myTurn() && isWhitePiece(piece) === (this.mySide === Side.WHITE),
      destinations: (from) => [...new Set((this.legal.get(from) ?? []).flatMap(targets))],
      onMove: (from, to) => void this.attempt(from, to),
      onSelect: (selected) => {
        this.selection = selected;
        this.showPockets();
      },
    });
    if (game.variant === Variant.CRAZYHOUSE) {
      const pocket = () => new PocketView((letter, e) => this.board.pressDrop(letter, e));
      this.pockets = { top: pocket(), bottom: pocket() };
    }
    if (game.variant === Variant.THREE_CHECK) this.checks = { top: new CheckCounter(), bottom: new CheckCounter() };
    this.actions = new SeatActions(game.id, this.mySide, seat, (message) => {
      this.notice.textContent = message === "" ? "" : errorText(message);
    });
    this.moveList = new MoveList(this.geo.variant === "xiangqi", (move) => this.showMove(move));
    this.clocks = { top: new ClockView(flipped ? Side.WHITE : Side.BLACK), bottom: new ClockView(flipped ? Side.BLACK : Side.WHITE) };
    const bar = (where: "top" | "bottom") =>
      h(
        "div",
        { class: "player-bar", "data-testid": `player-${where}` },
        h("span", {}, this.names[where], this.checks?.[where].element),
        this.clocks[where].element,
      );
    // The arrow keys step through the moves.
    document.addEventListener("keydown", this.keys);
    this.element = h(
      "div",
      { class: "game-layout", "data-game-id": game.id, "data-variant": this.geo.variant },
      h(
        "div",
        {},
        bar("top"),
        this.pockets?.top.element,
        this.board.element,
        this.pockets?.bottom.element,
        bar("bottom"),
        this.promotionHost,
      ),
      h(
        "div",
        {},
        h("div", { class: "panel" }, this.startLine(), this.status, connection, this.notice, this.actions.offers, this.actions.buttons),
        this.moveList.element,
        this.links,
      ),
    );
  }

  /** A Chess960 game's start number, with a hint on how to castle. */
  private startLine(): HTMLElement | null {
    if (this.game.variant !== Variant.CHESS960) return null;
    const start = this.game.chess960Start === undefined ? "from a set position" : `start ${this.game.chess960Start}`;
    return h("p", { "data-testid": "chess960-start" }, `Chess960, ${start}. To castle, move the king onto its rook.`);
  }

  dispose(): void {
    document.removeEventListener("keydown", this.keys);
    this.clocks.top.dispose();
    this.clocks.bottom.dispose();
  }

  /** Shows a refusal or a failure. */
  tell(message: string): void {
    this.notice.textContent = message;
  }

  /** Shows the game as an event left it. */
  show(game: Game, kind: GameEventKind): void {
    this.game = game;
    if (this.linksForOpenSeat !== this.waiting()) {
      this.linksForOpenSeat = this.waiting();
      this.links.replaceChildren(linksPanel(game.id, this.seat, this.linksForOpenSeat));
    }
    const ongoing = this.ongoing();
    this.showCurrent();
    this.moveList.update(game.moves);
    this.showNames();
    const topSide = this.board.flipped ? Side.WHITE : Side.BLACK;
    const flagged = this.flaggedSide();
    this.clocks.top.update(game.clock, ongoing, flagged === topSide);
    this.clocks.bottom.update(game.clock, ongoing, flagged !== undefined && flagged !== topSide);
    this.status.replaceChildren(this.statusText());
    if (kind === GameEventKind.DRAW_DECLINED) this.notice.textContent = "The draw offer was declined.";
    else if (kind === GameEventKind.TAKEBACK_DECLINED) this.notice.textContent = "The takeback was declined.";
    else if (kind === GameEventKind.REMATCH_DECLINED) this.notice.textContent = "The rematch was declined.";
    else if (kind !== GameEventKind.SNAPSHOT) this.notice.textContent = "";
    this.actions.update(game, [
      button("Flip board", () => {
        this.board.setFlipped(!this.board.flipped);
        this.showNames();
        this.showPockets();
        this.showChecks();
      }),
      button("Download PGN", () => downloadPgn(game.id).catch((err: unknown) => (this.notice.textContent = errorText(err))), {
        "data-testid": "download-pgn",
      }),
    ]);
    if (this.myTurn()) void this.loadLegalMoves();
  }

  /** The players' names, the top one the side at the top of the board. */
  private showNames(): void {
    const game = this.game;
    const seatOf = (side: Side) => (side === Side.WHITE ? game.white : game.black);
    const label = (side: Side) =>
      `${seatOf(side)?.displayName ?? sideName(side, game.variant)}${ratingText(seatOf(side))}${side === this.mySide ? " (you)" : ""}`;
    this.names.top.textContent = label(this.board.flipped ? Side.WHITE : Side.BLACK);
    this.names.bottom.textContent = label(this.board.flipped ? Side.BLACK : Side.WHITE);
  }

  /** The sides at the top and at the bottom of the board. */
  private sidesShown(): { top: "white" | "black"; bottom: "white" | "black" } {
    return this.board.flipped ? { top: "white", bottom: "black" } : { top: "black", bottom: "white" };
  }

  /** Crazyhouse: the pockets of the position shown, the drop selected
   * marked in this player's pocket. */
  private showPockets(): void {
    if (!this.pockets) return;
    const pockets = readPockets(this.shownFen);
    const sides = this.sidesShown();
    const mine = this.mySide === Side.WHITE ? "white" : this.mySide === Side.BLACK ? "black" : undefined;
    for (const where of ["top", "bottom"] as const) {
      const side = sides[where];
      this.pockets[where].show(side, pockets[side], side === mine ? this.selection : undefined);
    }
  }

  /** Three-check: the checks given in the position shown. */
  private showChecks(): void {
    if (!this.checks) return;
    const given = checksGiven(this.shownFen) ?? { white: 0, black: 0 };
    const sides = this.sidesShown();
    this.checks.top.show(sides.top, given[sides.top]);
    this.checks.bottom.show(sides.bottom, given[sides.bottom]);
  }

  /** Shows a position on the board, with what goes beside it. */
  private setBoard(fen: string, lastMove?: [string, string], checkSquare?: string): void {
    this.shownFen = fen;
    this.board.setPosition(fen, lastMove, checkSquare);
    this.showPockets();
    this.showChecks();
  }

  private showCurrent(): void {
    this.browsing = false;
    const last = this.game.moves.at(-1)?.move;
    this.setBoard(this.game.fen, last ? [last.from, last.to] : undefined, this.checkSquare());
  }

  /** Shows the position after an earlier move (undefined: the current one). */
  private showMove(move: PlayedMove | undefined): void {
    if (!move?.move) {
      this.showCurrent();
      return;
    }
    this.browsing = true;
    this.setBoard(move.fenAfter, [move.move.from, move.move.to]);
  }

  private ongoing(): boolean {
    return this.game.outcome?.status === OutcomeStatus.ONGOING;
  }

  /** Whether the game waits for a player to take its open seat (a game
   * nobody joined in time is over instead). */
  private waiting(): boolean {
    return this.ongoing() && Boolean(this.game.white?.open || this.game.black?.open);
  }

  private myTurn(): boolean {
    return this.mySide !== undefined && !this.waiting() && this.ongoing() && this.game.turn === this.mySide;
  }

  /** The side whose flag fell, once a game ended on time: the side to move. */
  private flaggedSide(): Side | undefined {
    const termination = this.game.outcome?.termination;
    if (termination !== Termination.TIMEOUT && termination !== Termination.TIMEOUT_VS_INSUFFICIENT_MATERIAL) return undefined;
    return this.game.fen.split(" ")[1] === "b" ? Side.BLACK : Side.WHITE;
  }

  private checkSquare(): string | undefined {
    if (!this.game.isCheck) return undefined;
    const king = this.game.turn === Side.WHITE ? "K" : "k";
    for (const [square, piece] of readPlacement(this.geo, this.game.fen)) if (piece === king) return square;
    return undefined;
  }

  private statusText(): HTMLElement {
    const game = this.game;
    if (!this.ongoing()) {
      const sentence = game.outcome?.description ?? "";
      return h("span", { class: "outcome", "data-testid": "outcome" }, sentence.charAt(0).toUpperCase() + sentence.slice(1) + ".");
    }
    if (this.waiting()) {
      return h("span", { "data-testid": "waiting" }, this.mySide !== undefined ? "Waiting for your friend to join…" : "Waiting for a player to join…");
    }
    const mover = game.turn === Side.WHITE ? game.white : game.black;
    if (game.turn === this.mySide) return h("span", {}, game.isCheck ? "Your move: you are in check." : "Your move.");
    if (mover?.engine) return h("span", {}, `${mover.displayName} is thinking…`);
    return h("span", {}, `${mover?.displayName ?? sideName(game.turn, game.variant)} to move.`);
  }

  private async loadLegalMoves(): Promise<void> {
    const version = this.game.version;
    if (this.legalFor === version) return;
    this.legalFor = version;
    this.legal = new Map();
    try {
      const answer = await api.rules.legalMoves({
        position: {
          variant: this.game.variant,
          fen: this.game.startFen,
          moves: this.game.moves.map((m) => m.move?.uci ?? ""),
          xiangqiRules: this.game.xiangqiRules,
        },
      });
      if (this.game.version !== version) return;
      for (const move of answer.moves) {
        const list = this.legal.get(origin(move)) ?? [];
        list.push(move);
        this.legal.set(origin(move), list);
      }
      this.board.refresh();
    } catch (err) {
      this.notice.textContent = errorText(err);
    }
  }

  /** Sends a move to the server; an illegal one comes back with its reason. */
  private async attempt(from: string, to: string): Promise<void> {
    if (!this.seat) return;
    const candidates = (this.legal.get(from) ?? []).filter((m) => targets(m).includes(to));
    let move = from + to;
    const promotions = candidates.filter((m) => m.promotion).map((m) => m.promotion.toLowerCase());
    if (promotions.length > 0) {
      const letter = await choosePromotion(this.promotionHost, promotions, this.mySide === Side.WHITE);
      if (!letter) return;
      move += letter;
    } else if (candidates.length === 1) {
      move = candidates[0].uci;
    }
    try {
      const [call, options] = seatCall(this.game.id, this.seat);
      const answer = await api.games.makeMove({ ...call, move, expectedPly: this.game.ply }, options);
      this.notice.textContent = "";
      // Show the move at once; the watch stream brings the rest.
      if (answer.game && answer.game.version > this.game.version) {
        this.setBoard(answer.game.fen, [from, to]);
      }
    } catch (err) {
      this.notice.textContent = errorText(err);
      this.board.deselect();
    }
  }
}

/** Where the board picks a move up: its square, or for a drop ("N@f3")
 * the drop ("N@"). */
function origin(move: Move): string {
  const drop = /^([A-Z])@/.exec(move.uci);
  return drop ? dropKey(drop[1]) : move.from;
}

/**
 * The squares a click ends a move on: its destination and, for castling, the
 * rook's square (the king takes its own rook, as Chess960 castling is played
 * where the king's destination is an ordinary king step or its own square).
 */
function targets(move: Move): string[] {
  return move.isCastling ? [move.to, move.uci.slice(2, 4)] : [move.to];
}
