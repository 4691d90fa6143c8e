// A game in one line, as a player of it sees it in a list of their games.

import { Side, sideName, Variant, type Game } from "../api";

/** "chess, you (White) against Bob: in progress". */
export function gameSummary(game: Game, mine: Side): string {
  const other = mine === Side.WHITE ? game.black : game.white;
  const variant = game.variant === Variant.XIANGQI ? "xiangqi" : game.variant === Variant.CHESS960 ? "Chess960" : "chess";
  return `${variant}, you (${sideName(mine, game.variant)}) against ${other?.displayName ?? ""}: ${game.outcome?.description ?? ""}`;
}
