// The game screen: the board, both players with their clocks, the moves,
// the outcome, and the actions of the seat this browser plays. Everything
// the other side does arrives through WatchGame.

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
} from "../api";
import { BoardView } from "../board/board-view";
import { geometryOf, isWhitePiece, readPlacement, type Geometry } from "../board/variant";
import { button, h } from "../dom";
import { ClockView } from "../game/clock";
import { MoveList } from "../game/move-list";
import { choosePromotion } from "../game/promotion";
import { rememberedInvite, rememberedSeat, rememberSeat, seatLink, watchLink, type SeatToken } from "../seats";
import type { Screen } from "./screen";

export function gameScreen(gameId: string, seatInUrl: SeatToken | undefined): Screen {
  if (seatInUrl) rememberSeat(gameId, seatInUrl);
  const seat = seatInUrl ?? rememberedSeat(gameId);
  const root = h("section", { class: "game", "data-testid": "game" }, h("p", {}, "Loading the game…"));
  const abort = new AbortController();
  let view: GameView | undefined;

  watchGame(
    gameId,
    (event) => {
      if (!event.game) return;
      if (!view) {
        view = new GameView(event.game, seat);
        root.replaceChildren(view.element);
      }
      view.show(event.game, event.kind);
    },
    abort.signal,
  ).catch((err: unknown) => {
    if (abort.signal.aborted) return;
    const message = h("p", { class: "notice", "data-testid": "watch-error" }, errorText(err));
    if (view) view.element.prepend(message);
    else root.replaceChildren(message);
  });

  return {
    element: root,
    dispose() {
      abort.abort();
      view?.dispose();
    },
  };
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
  private readonly status = h("div", { class: "status", "data-testid": "status" });
  private readonly notice = h("div", { class: "notice", "data-testid": "notice", role: "alert" });
  private readonly offers = h("div", { "data-testid": "offers" });
  private readonly controls = h("div", { class: "controls" });
  private readonly promotionHost = h("div");
  private game: Game;
  /** Legal moves of the current position by origin square. */
  private legal = new Map<string, Move[]>();
  private legalFor = -1n;

  constructor(
    game: Game,
    private readonly seat: SeatToken | undefined,
  ) {
    this.game = game;
    this.geo = geometryOf(variantName(game.variant));
    this.mySide = seat ? (seat.side === "white" ? Side.WHITE : Side.BLACK) : undefined;
    const flipped = this.mySide === Side.BLACK;
    this.board = new BoardView(this.geo, flipped, {
      canPick: (piece) => this.myTurn() && isWhitePiece(piece) === (this.mySide === Side.WHITE),
      destinations: (from) => [...new Set((this.legal.get(from) ?? []).map((m) => m.to))],
      onMove: (from, to) => void this.attempt(from, to),
    });
    this.moveList = new MoveList(this.geo.variant === "xiangqi");
    this.clocks = { top: new ClockView(flipped ? Side.WHITE : Side.BLACK), bottom: new ClockView(flipped ? Side.BLACK : Side.WHITE) };
    const bar = (where: "top" | "bottom") =>
      h("div", { class: "player-bar", "data-testid": `player-${where}` }, this.names[where], this.clocks[where].element);
    this.element = h(
      "div",
      { class: "game-layout", "data-game-id": game.id, "data-variant": this.geo.variant },
      h("div", {}, bar("top"), this.board.element, bar("bottom"), this.promotionHost),
      h(
        "div",
        {},
        h("div", { class: "panel" }, this.status, this.notice, this.offers, this.controls),
        this.moveList.element,
        this.linksPanel(),
      ),
    );
  }

  dispose(): void {
    this.clocks.top.dispose();
    this.clocks.bottom.dispose();
  }

  /** Shows the game as an event left it. */
  show(game: Game, kind: GameEventKind): void {
    this.game = game;
    const ongoing = this.ongoing();
    const last = game.moves.at(-1)?.move;
    this.board.setPosition(game.fen, last ? [last.from, last.to] : undefined, this.checkSquare());
    this.moveList.update(game.moves);
    const topSide = this.board.flipped ? Side.WHITE : Side.BLACK;
    const seatOf = (side: Side) => (side === Side.WHITE ? game.white : game.black);
    const label = (side: Side) =>
      `${seatOf(side)?.displayName ?? sideName(side, game.variant)}${side === this.mySide ? " (you)" : ""}`;
    this.names.top.textContent = label(topSide);
    this.names.bottom.textContent = label(topSide === Side.WHITE ? Side.BLACK : Side.WHITE);
    const flagged = this.flaggedSide();
    this.clocks.top.update(game.clock, ongoing, flagged === topSide);
    this.clocks.bottom.update(game.clock, ongoing, flagged !== undefined && flagged !== topSide);
    this.status.replaceChildren(this.statusText());
    if (kind === GameEventKind.DRAW_DECLINED) this.notice.textContent = "The draw offer was declined.";
    else if (kind === GameEventKind.TAKEBACK_DECLINED) this.notice.textContent = "The takeback was declined.";
    else if (kind !== GameEventKind.SNAPSHOT) this.notice.textContent = "";
    this.drawOffers();
    this.drawControls();
    if (this.myTurn()) void this.loadLegalMoves();
  }

  private ongoing(): boolean {
    return this.game.outcome?.status === OutcomeStatus.ONGOING;
  }

  private myTurn(): boolean {
    return this.mySide !== undefined && this.ongoing() && this.game.turn === this.mySide;
  }

  private opponent(): Side {
    return this.mySide === Side.WHITE ? Side.BLACK : Side.WHITE;
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
      const sentence = outcomeSentence(game);
      return h("span", { class: "outcome", "data-testid": "outcome" }, sentence.charAt(0).toUpperCase() + sentence.slice(1) + ".");
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
        const list = this.legal.get(move.from) ?? [];
        list.push(move);
        this.legal.set(move.from, list);
      }
      this.board.refresh();
    } catch (err) {
      this.notice.textContent = errorText(err);
    }
  }

  /** Sends a move to the server; an illegal one comes back with its reason. */
  private async attempt(from: string, to: string): Promise<void> {
    if (!this.seat) return;
    const candidates = (this.legal.get(from) ?? []).filter((m) => m.to === to);
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
      const answer = await api.games.makeMove({
        gameId: this.game.id,
        seatToken: this.seat.token,
        move,
        expectedPly: this.game.ply,
      });
      this.notice.textContent = "";
      // Show the move at once; the watch stream brings the rest.
      if (answer.game && answer.game.version > this.game.version) {
        this.board.setPosition(answer.game.fen, [from, to]);
      }
    } catch (err) {
      this.notice.textContent = errorText(err);
      this.board.deselect();
    }
  }

  /** Runs a seat action, showing the server's refusal if any. */
  private act(action: (gameId: string, seatToken: string) => Promise<unknown>): void {
    if (!this.seat) return;
    const seat = this.seat;
    this.notice.textContent = "";
    action(this.game.id, seat.token).catch((err: unknown) => {
      this.notice.textContent = errorText(err);
    });
  }

  private drawOffers(): void {
    const game = this.game;
    const items: HTMLElement[] = [];
    if (this.mySide !== undefined && this.ongoing()) {
      const theirs = this.opponent();
      if (game.drawOffer === theirs) {
        items.push(
          h(
            "div",
            { class: "offer", "data-testid": "draw-offer" },
            "Your opponent offers a draw. ",
            button("Accept draw", () => this.act((gameId, seatToken) => api.games.respondToDraw({ gameId, seatToken, accept: true })), { "data-testid": "accept-draw" }),
            " ",
            button("Decline", () => this.act((gameId, seatToken) => api.games.respondToDraw({ gameId, seatToken, accept: false })), { "data-testid": "decline-draw" }),
          ),
        );
      } else if (game.drawOffer === this.mySide) {
        items.push(h("div", { class: "offer" }, "You offered a draw."));
      }
      if (game.takebackOffer === theirs) {
        items.push(
          h(
            "div",
            { class: "offer", "data-testid": "takeback-offer" },
            "Your opponent asks to take back their last move. ",
            button("Accept takeback", () => this.act((gameId, seatToken) => api.games.respondToTakeback({ gameId, seatToken, accept: true })), { "data-testid": "accept-takeback" }),
            " ",
            button("Decline", () => this.act((gameId, seatToken) => api.games.respondToTakeback({ gameId, seatToken, accept: false })), { "data-testid": "decline-takeback" }),
          ),
        );
      } else if (game.takebackOffer === this.mySide) {
        items.push(h("div", { class: "offer" }, "You asked to take back your last move."));
      }
    } else if (this.ongoing() && game.drawOffer !== Side.UNSPECIFIED) {
      items.push(h("div", { class: "offer" }, `${sideName(game.drawOffer, game.variant)} offers a draw.`));
    }
    this.offers.replaceChildren(...items);
  }

  private drawControls(): void {
    const game = this.game;
    const playing = this.mySide !== undefined && this.ongoing();
    const buttons: HTMLButtonElement[] = [];
    if (playing) {
      buttons.push(
        button("Resign", () => this.act((gameId, seatToken) => api.games.resign({ gameId, seatToken })), { "data-testid": "resign" }),
        button("Offer draw", () => this.act((gameId, seatToken) => api.games.offerDraw({ gameId, seatToken })), {
          "data-testid": "offer-draw",
          disabled: game.drawOffer !== Side.UNSPECIFIED,
        }),
        button("Take back", () => this.act((gameId, seatToken) => api.games.proposeTakeback({ gameId, seatToken })), {
          "data-testid": "takeback",
          disabled: game.ply === 0 || game.takebackOffer !== Side.UNSPECIFIED,
        }),
      );
      if (this.myTurn() && (game.outcome?.claimableDraws.length ?? 0) > 0) {
        buttons.push(
          button("Claim draw", () => this.act((gameId, seatToken) => api.games.claimDraw({ gameId, seatToken })), { "data-testid": "claim-draw", class: "primary" }),
        );
      }
    }
    buttons.push(
      button("Flip board", () => this.board.setFlipped(!this.board.flipped)),
      button("Download PGN", () => void this.downloadPgn(), { "data-testid": "download-pgn" }),
    );
    this.controls.replaceChildren(...buttons);
  }

  private async downloadPgn(): Promise<void> {
    try {
      const { pgn } = await api.games.exportGame({ gameId: this.game.id });
      const url = URL.createObjectURL(new Blob([pgn], { type: "application/x-chess-pgn" }));
      const a = h("a", { href: url, download: `arbiter-${this.game.id}.pgn` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      this.notice.textContent = errorText(err);
    }
  }

  private linksPanel(): HTMLElement {
    const invite = rememberedInvite(this.game.id);
    const field = (label: string, value: string, testid: string) => {
      const input = h("input", { readonly: true, value, "data-testid": testid });
      input.addEventListener("focus", () => input.select());
      return h(
        "div",
        {},
        h("label", {}, label),
        h("div", { class: "row" }, input, button("Copy", () => void navigator.clipboard?.writeText(value))),
      );
    };
    return h(
      "div",
      { class: "panel links" },
      invite ? field("Your friend's seat: send them this link", invite, "invite-link") : null,
      this.seat ? field("Your seat: keep this link to play on from elsewhere", seatLink(this.game.id, this.seat), "seat-link") : null,
      field("Watch this game", watchLink(this.game.id), "watch-link"),
    );
  }
}

/** The server's outcome sentence, with xiangqi's first side called Red. */
function outcomeSentence(game: Game): string {
  const sentence = game.outcome?.description ?? "";
  return game.variant === Variant.XIANGQI ? sentence.replace(/\bwhite\b/gi, (w) => (w[0] === "W" ? "Red" : "red")) : sentence;
}
