// The games the app offers: each with the name the server, the CLI and the
// URL use for it, the name people read, its API value and the board it is
// played on. Every form and list names games from here.

import { Variant } from "@arbiter/client";
import { radios } from "./dom";
import type { VariantName } from "./board/variant";

export interface GameVariant {
  /** The server's (and Lichess's) name: "chess960", "kingOfTheHill". */
  key: string;
  /** The name shown: "King of the Hill". */
  label: string;
  variant: Variant;
  /** The board and pieces it is played with. */
  board: VariantName;
}

export const VARIANTS: readonly GameVariant[] = [
  { key: "chess", label: "Chess", variant: Variant.CHESS, board: "chess" },
  { key: "chess960", label: "Chess960", variant: Variant.CHESS960, board: "chess" },
  { key: "crazyhouse", label: "Crazyhouse", variant: Variant.CRAZYHOUSE, board: "chess" },
  { key: "antichess", label: "Antichess", variant: Variant.ANTICHESS, board: "chess" },
  { key: "atomic", label: "Atomic", variant: Variant.ATOMIC, board: "chess" },
  { key: "horde", label: "Horde", variant: Variant.HORDE, board: "chess" },
  { key: "kingOfTheHill", label: "King of the Hill", variant: Variant.KING_OF_THE_HILL, board: "chess" },
  { key: "racingKings", label: "Racing Kings", variant: Variant.RACING_KINGS, board: "chess" },
  { key: "threeCheck", label: "Three-check", variant: Variant.THREE_CHECK, board: "chess" },
  { key: "xiangqi", label: "Xiangqi", variant: Variant.XIANGQI, board: "xiangqi" },
];

const CHESS = VARIANTS[0];

/** The game of a server name ("crazyhouse"), if the app knows it. */
export function variantByKey(key: string | null | undefined): GameVariant | undefined {
  return VARIANTS.find((v) => v.key === key);
}

/** The game of an API value (an unknown one reads as chess). */
export function variantInfo(variant: Variant): GameVariant {
  return VARIANTS.find((v) => v.variant === variant) ?? CHESS;
}

/** Radio buttons `name` for the games, valued by their server names. */
export function variantRadios(name: string, checked: string, games: readonly GameVariant[] = VARIANTS): HTMLElement[] {
  return radios(name, games.map((v) => [v.key, v.label]), checked);
}
