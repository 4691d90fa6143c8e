// The new-game form: against the engine (level, colour, time control) or
// against a friend (an open seat the friend joins by a link), from the
// standard start or a saved position.

import { api, errorText, GameView, Side, Variant, XiangqiRules } from "../api";
import { h, radios } from "../dom";
import { variantByKey, variantRadios } from "../variants";
import { gameSummary } from "../game/summary";
import { rememberedGames, rememberJoinCode, rememberSeat, type SeatToken, type SideName } from "../seats";
import { presetTimeControl, timeControl, timeControlSelect } from "../time-controls";
import type { Screen } from "./screen";

/** The name this browser's player gave last (the join screen reads it too). */
export const NAME_KEY = "arbiter.displayName";

export interface NewGameOptions {
  /** The game's server name ("crazyhouse"). */
  variant?: string;
  positionId?: string;
}

export function newGameScreen(options: NewGameOptions): Screen {
  const notice = h("p", { class: "notice", "data-testid": "notice", role: "alert" });
  const levelInput = h("input", { type: "range", name: "level", min: 1, max: 10, value: 3, "data-testid": "level" });
  const levelLabel = h("span", {}, "3");
  levelInput.addEventListener("input", () => (levelLabel.textContent = levelInput.value));
  const timeSelect = timeControlSelect("time", "all");
  const nameInput = h("input", { type: "text", name: "name", maxlength: 100, "data-testid": "name", value: localStorage.getItem(NAME_KEY) ?? "" });
  const customMinutes = h("input", { type: "number", min: 0.05, step: "any", value: 3, name: "custom-minutes", "data-testid": "custom-minutes", style: "width: 6rem" });
  const customIncrement = h("input", { type: "number", min: 0, step: 1, value: 2, name: "custom-increment", "data-testid": "custom-increment", style: "width: 5rem" });
  const customClock = h("div", { class: "row" }, customMinutes, "minutes +", customIncrement, "seconds a move");
  const rulesSelect = h(
    "select",
    { name: "xiangqi-rules", "data-testid": "xiangqi-rules" },
    h("option", { value: String(XiangqiRules.ASIAN) }, "Asian rules: perpetual check or chase loses"),
    h("option", { value: String(XiangqiRules.ASIAN_REFUSING) }, "Asian rules, the forbidden repetition refused"),
    h("option", { value: String(XiangqiRules.REPETITION_DRAWS) }, "Casual: every repetition draws"),
  );
  const xiangqiOnly = h("fieldset", {}, h("legend", {}, "Xiangqi repetitions"), rulesSelect);
  const startInput = h("input", { type: "number", name: "chess960-start", min: 0, max: 959, step: 1, placeholder: "random", "data-testid": "chess960-start", style: "width: 7rem" });
  const chess960Only = h("fieldset", {}, h("legend", {}, "Chess960 start (0-959; empty: random)"), startInput);
  const engineOnly = h(
    "fieldset",
    {},
    h("legend", {}, "Engine level (1 beginner - 10 full strength)"),
    h("div", { class: "row" }, levelInput, levelLabel),
  );
  const form = h(
    "form",
    { class: "new-game panel", "data-testid": "new-game" },
    h("fieldset", {}, h("legend", {}, "Game"), ...variantRadios("variant", options.variant ?? "chess")),
    h("fieldset", {}, h("legend", {}, "Opponent"), ...radios("opponent", [["engine", "The engine"], ["friend", "A friend (share a link)"]], "engine")),
    engineOnly,
    h("fieldset", {}, h("legend", {}, "Your name (optional)"), nameInput),
    h("fieldset", {}, h("legend", {}, "You play"), ...radios("colour", [["white", "White / Red"], ["black", "Black"], ["random", "Random"]], "white")),
    h("fieldset", {}, h("legend", {}, "Time control"), timeSelect, customClock),
    xiangqiOnly,
    chess960Only,
    options.positionId
      ? h("p", {}, "Starting from saved position ", h("code", {}, options.positionId), ".")
      : null,
    h("div", {}, h("button", { type: "submit", class: "primary", "data-testid": "start" }, "Start game")),
    notice,
  );
  const value = (name: string) => (form.elements.namedItem(name) as RadioNodeList).value;
  const sync = () => {
    engineOnly.hidden = value("opponent") !== "engine";
    customClock.hidden = timeSelect.value !== "custom";
    xiangqiOnly.hidden = value("variant") !== "xiangqi";
    chess960Only.hidden = value("variant") !== "chess960" || options.positionId !== undefined;
  };
  form.addEventListener("change", sync);
  sync();

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const variant = variantByKey(value("variant"))?.variant ?? Variant.CHESS;
    const startNumber = startInput.value.trim();
    const engine = value("opponent") === "engine";
    const colour = value("colour");
    const me: SideName = colour === "random" ? (Math.random() < 0.5 ? "white" : "black") : (colour as SideName);
    const clock =
      timeSelect.value === "custom"
        ? timeControl(Number(customMinutes.value), Number(customIncrement.value))
        : presetTimeControl(timeSelect.value);
    const engineSeat = { engine: { level: Number(levelInput.value) } };
    const mySeat = { displayName: nameInput.value.trim() };
    const openSeat = { open: true };
    localStorage.setItem(NAME_KEY, mySeat.displayName);
    notice.textContent = "";
    api.games
      .createGame({
        variant,
        start: options.positionId
          ? { case: "positionId", value: options.positionId }
          : variant === Variant.CHESS960 && startNumber !== ""
            ? { case: "chess960Start", value: Number(startNumber) }
            : { case: undefined },
        white: me === "white" ? mySeat : engine ? engineSeat : openSeat,
        black: me === "black" ? mySeat : engine ? engineSeat : openSeat,
        timeControl: clock,
        xiangqiRules: variant === Variant.XIANGQI ? (Number(rulesSelect.value) as XiangqiRules) : XiangqiRules.UNSPECIFIED,
      })
      .then((created) => {
        const game = created.game;
        if (!game) throw new Error("the server sent no game");
        const tokens: Record<SideName, string> = { white: created.whiteToken, black: created.blackToken };
        const mine: SeatToken = { side: me, token: tokens[me] };
        rememberSeat(game.id, mine);
        if (created.joinCode) rememberJoinCode(game.id, created.joinCode);
        location.hash = `#/game/${encodeURIComponent(game.id)}`;
      })
      .catch((err: unknown) => (notice.textContent = errorText(err)));
  });

  return {
    element: h("section", {}, h("h1", {}, "New game"), form, yourGames()),
    dispose() {},
  };
}

const YOUR_GAMES = 8;

/** The games this browser plays, each with where it stands (filled in as
 * the server answers). */
function yourGames(): HTMLElement | null {
  const games = rememberedGames(YOUR_GAMES);
  if (games.length === 0) return null;
  const list = h("ul", { "data-testid": "your-games" });
  for (const { gameId, seat } of games) {
    const state = h("span", {});
    list.append(h("li", {}, h("a", { href: `#/game/${encodeURIComponent(gameId)}` }, gameId), " ", state));
    api.games
      .getGame({ gameId, view: GameView.BASIC })
      .then(({ game }) => {
        if (game) state.textContent = gameSummary(game, seat.side === "white" ? Side.WHITE : Side.BLACK);
      })
      .catch((err: unknown) => (state.textContent = errorText(err)));
  }
  return h("div", { class: "panel" }, h("h2", {}, "Your games"), list);
}
