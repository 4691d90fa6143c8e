// The position editor, for every game but Chess960: place pieces, choose
// the side to move (and chess castling rights; a Crazyhouse position's
// pockets and a Three-check position's checks stay as loaded);
// ValidatePosition's problems show as the board changes, and a valid position the rules have already decided (a mate, a
// stalemate) says so; a valid position is saved with CreatePosition and a
// game started from it, unless it is decided. The positions this browser
// saved are listed with their owner tokens, to load or delete.

import { api, errorReason, errorText, OutcomeStatus, Reason, Variant } from "../api";
import { BoardView } from "../board/board-view";
import { drawPiece, pieceName } from "../board/pieces";
import { geometryOf, readPlacement, writePlacement, type Placement } from "../board/variant";
import { button, h, s } from "../dom";
import { forgetPosition, rememberedPositions, rememberPosition, type SavedPosition } from "../positions";
import { VARIANTS, type GameVariant } from "../variants";
import type { Screen } from "./screen";

/** The games the editor sets up positions of. */
export const EDITOR_VARIANTS = VARIANTS.filter((v) => v.variant !== Variant.CHESS960);

const ERASER = "";
const VALIDATE_DELAY_MS = 150;

export function editorScreen(game: GameVariant): Screen {
  const geo = geometryOf(game.board);
  const chessBoard = geo.variant === "chess";
  let startFen = geo.startFen;
  let placement: Placement = readPlacement(geo, startFen);
  let extras = variantFields(game, startFen);
  let tool = geo.pieceLetters[0];
  let validation = 0;
  let timer: number | undefined;

  const board = new BoardView(geo, false, {
    onSquare: (square) => {
      if (tool === ERASER || placement.get(square) === tool) placement.delete(square);
      else placement.set(square, tool);
      changed();
    },
  });

  const paletteButtons: HTMLButtonElement[] = [];
  const paletteButton = (letter: string) => {
    const glyph = letter === ERASER
      ? s("svg", { viewBox: "-0.5 -0.5 1 1" }, s("text", { "text-anchor": "middle", "dominant-baseline": "central", "font-size": 0.6 }, "✕"))
      : s("svg", { viewBox: "-0.5 -0.5 1 1" }, drawPiece(geo, letter));
    const b = h("button", { type: "button", title: letter === ERASER ? "remove pieces" : pieceName(geo, letter), "data-tool": letter || "erase" }, glyph);
    b.addEventListener("click", () => {
      tool = letter;
      for (const other of paletteButtons) other.classList.toggle("active", other === b);
    });
    b.classList.toggle("active", letter === tool);
    paletteButtons.push(b);
    return b;
  };
  const palette = h(
    "div",
    { class: "palette", style: `--columns: ${geo.pieceLetters.length}` },
    ...geo.pieceLetters.map(paletteButton),
    ...geo.pieceLetters.map((l) => paletteButton(l.toLowerCase())),
    paletteButton(ERASER),
  );

  const turnSelect = h(
    "select",
    { "data-testid": "turn" },
    h("option", { value: "w" }, chessBoard ? "White to move" : "Red to move"),
    h("option", { value: "b" }, "Black to move"),
  );
  const castling = ["K", "Q", "k", "q"].map((right) => h("input", { type: "checkbox", value: right, "data-castling": right }));
  const castlingRow =
    chessBoard
      ? h(
          "div",
          { class: "row" },
          "Castling:",
          ...castling.map((box, i) => h("label", { class: "choice" }, box, ["White O-O", "White O-O-O", "Black O-O", "Black O-O-O"][i])),
        )
      : null;
  const fenInput = h("input", { type: "text", "data-testid": "fen", style: "width: 100%" });
  const verdict = h("div", { "data-testid": "verdict" });
  const nameInput = h("input", { type: "text", placeholder: "Name (optional)", maxlength: 200, "data-testid": "position-name" });
  const saved = h("div", { "data-testid": "saved" });
  const notice = h("p", { class: "notice", "data-testid": "notice", role: "alert" });

  const fen = (): string => {
    const rights = castling.filter((box) => box.checked).map((box) => box.value).join("") || "-";
    return `${writePlacement(geo, placement)}${extras.pocket} ${turnSelect.value} ${chessBoard ? rights : "-"} -${extras.checks} 0 1`;
  };

  const validate = async () => {
    const mine = ++validation;
    const position = { variant: game.variant, fen: fen() };
    try {
      const answer = await api.rules.validatePosition({ position });
      const outcome = answer.valid ? await decidedOutcome(position) : undefined;
      if (mine !== validation) return;
      verdict.replaceChildren(
        !answer.valid
          ? h("ul", { class: "problems", "data-testid": "problems" }, ...answer.problems.map((p) => h("li", { "data-code": p.code }, p.message)))
          : outcome
            ? h("p", { class: "decided", "data-testid": "decided" }, `Valid, but already decided: ${outcome}. No game can start from it.`)
            : h("p", { class: "valid", "data-testid": "valid" }, "Valid position."),
      );
    } catch (err) {
      if (mine === validation) verdict.replaceChildren(h("p", { class: "notice" }, errorText(err)));
    }
  };

  function changed(): void {
    board.setPlacement(placement);
    fenInput.value = fen();
    saved.replaceChildren();
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void validate(), VALIDATE_DELAY_MS);
  }

  const load = (text: string) => {
    placement = readPlacement(geo, text);
    extras = variantFields(game, text);
    const fields = text.split(" ");
    turnSelect.value = fields[1] === "b" ? "b" : "w";
    for (const box of castling) box.checked = (fields[2] ?? "").includes(box.value);
    changed();
  };
  fenInput.addEventListener("change", () => load(fenInput.value.trim()));
  turnSelect.addEventListener("change", changed);
  for (const box of castling) box.addEventListener("change", changed);

  const mine = h("div", { "data-testid": "my-positions" });
  const showMine = () => {
    const positions = rememberedPositions(game.key);
    mine.replaceChildren(
      ...(positions.length === 0
        ? []
        : [
            h("h2", {}, "Positions saved in this browser"),
            h("ul", { class: "my-positions" }, ...positions.map(savedRow)),
          ]),
    );
  };
  const savedRow = (position: SavedPosition) =>
    h(
      "li",
      { "data-position-id": position.id },
      h("span", {}, position.name || position.id),
      " ",
      button("Load", () => load(position.fen), { "data-testid": "load-position" }),
      " ",
      button("Delete", () => remove(position), { "data-testid": "delete-position" }),
    );
  const remove = (position: SavedPosition) => {
    if (!window.confirm(`Delete the saved position ${position.name || position.id}? Games started from it keep their start.`)) return;
    notice.textContent = "";
    api.positions
      .deletePosition({ id: position.id, ownerToken: position.ownerToken })
      .catch((err: unknown) => {
        // Deleted already (elsewhere, or by the operator): forgotten too.
        if (errorReason(err) !== Reason.POSITION_NOT_FOUND) throw err;
      })
      .then(() => {
        forgetPosition(position.id);
        if (saved.querySelector(`[data-position-id="${position.id}"]`)) saved.replaceChildren();
        showMine();
      })
      .catch((err: unknown) => (notice.textContent = errorText(err)));
  };

  const save = () => {
    notice.textContent = "";
    api.positions
      .createPosition({ variant: game.variant, source: { case: "fen", value: fen() }, name: nameInput.value })
      .then(async ({ position, ownerToken }) => {
        if (!position) return;
        rememberPosition({ id: position.id, ownerToken, variant: game.key, fen: position.fen, name: position.name, savedAt: Date.now() });
        showMine();
        const outcome = await decidedOutcome({ variant: game.variant, fen: position.fen });
        saved.replaceChildren(
          h("p", { "data-position-id": position.id }, "Saved as ", h("code", { "data-testid": "position-id" }, position.id), ". "),
          outcome
            ? h("p", { "data-testid": "decided-saved" }, `Already decided (${outcome}): no game can start from it.`)
            : button("Start a game from it", () => {
                location.hash = `#/new?variant=${game.key}&position=${encodeURIComponent(position.id)}`;
              }, { class: "primary", "data-testid": "start-from-position" }),
        );
      })
      .catch((err: unknown) => (notice.textContent = errorText(err)));
  };

  load(startFen);
  // Horde's and Racing Kings' starts (and every variant's FEN form) are the
  // server's to tell: its start replaces chess's unless the user edited it.
  if (game.board === "chess" && game.variant !== Variant.CHESS) {
    const chessStart = fenInput.value;
    api.rules
      .validatePosition({ position: { variant: game.variant } })
      .then((answer) => {
        if (!answer.fen || fenInput.value !== chessStart) return;
        startFen = answer.fen;
        load(startFen);
      })
      .catch((err: unknown) => (notice.textContent = errorText(err)));
  }
  showMine();
  const otherGames = h(
    "select",
    { "data-testid": "editor-variant", "aria-label": "Game" },
    ...EDITOR_VARIANTS.map((v) => h("option", { value: v.key, selected: v.key === game.key }, v.label)),
  );
  otherGames.addEventListener("change", () => (location.hash = `#/editor/${otherGames.value}`));
  return {
    element: h(
      "section",
      { "data-testid": "editor", "data-variant": game.key },
      h("h1", { class: "row" }, "Position editor:", otherGames),
      h(
        "div",
        { class: "editor-layout" },
        board.element,
        h(
          "div",
          {},
          h(
            "div",
            { class: "panel" },
            h("h2", {}, "Pieces"),
            h("p", {}, "Pick a piece, then click squares to place it (click again to remove)."),
            palette,
            h(
              "div",
              { class: "row" },
              button("Start position", () => load(startFen)),
              button("Clear board", () => load(geo.emptyFen), { "data-testid": "clear" }),
            ),
          ),
          h("div", { class: "panel" }, h("div", { class: "row" }, turnSelect), castlingRow, h("p", {}, "FEN"), fenInput, verdict),
          h(
            "div",
            { class: "panel" },
            h("div", { class: "row" }, nameInput, button("Save position", save, { class: "primary", "data-testid": "save-position" })),
            saved,
            notice,
            mine,
          ),
        ),
      ),
    ),
    dispose() {
      window.clearTimeout(timer);
      validation++;
    },
  };
}

/** How the rules have already decided `position` ("draw by stalemate"),
 * or undefined while it is still to play. */
async function decidedOutcome(position: { variant: Variant; fen: string }): Promise<string | undefined> {
  const { outcome } = await api.rules.getOutcome({ position });
  return outcome && outcome.status !== OutcomeStatus.ONGOING ? outcome.description : undefined;
}

/** What a game's FEN has beyond chess's fields, as the editor writes them
 * back: Crazyhouse's pockets ("[Nn]", none at first) after the board,
 * Three-check's checks left (" 3+3") after the en-passant square. */
function variantFields(game: GameVariant, fen: string): { pocket: string; checks: string } {
  const fields = fen.split(" ");
  const pocket = /\[[^\]]*\]/.exec(fields[0])?.[0] ?? "[]";
  const checks = /^\d+\+\d+$/.test(fields[4] ?? "") ? fields[4] : "3+3";
  return {
    pocket: game.variant === Variant.CRAZYHOUSE ? pocket : "",
    checks: game.variant === Variant.THREE_CHECK ? ` ${checks}` : "",
  };
}
