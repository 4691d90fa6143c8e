// A game in one line, as a player of it sees it in a list of their games.

import { Side, sideName, type Game } from "../api";
import { variantInfo } from "../variants";

/** "Chess, you (White) against Bob: in progress". */
export function gameSummary(game: Game, mine: Side): string {
  const other = mine === Side.WHITE ? game.black : game.white;
  const variant = variantInfo(game.variant).label;
  return `${variant}, you (${sideName(mine, game.variant)}) against ${other?.displayName ?? ""}: ${game.outcome?.description ?? ""}`;
}
