// The geometry of each game's board: files, ranks, square names and FEN
// placement. Squares are named as the API names them: chess "e4" (ranks 1-8),
// xiangqi ICCS "e0" (ranks 0-9 from Red's side). Every chess variant is
// played on the chess board.

export type VariantName = "chess" | "xiangqi";

/** A spot on the board by index: file 0 = a, rank 0 = White's (Red's) back rank. */
export interface Spot {
  file: number;
  rank: number;
}

export interface Geometry {
  variant: VariantName;
  files: number;
  ranks: number;
  /** Piece letters (upper case) a position editor offers, in display order. */
  pieceLetters: string[];
  /** The standard start position. */
  startFen: string;
  /** An empty board with only the placement part meaningful. */
  emptyFen: string;
}

export const CHESS: Geometry = {
  variant: "chess",
  files: 8,
  ranks: 8,
  pieceLetters: ["K", "Q", "R", "B", "N", "P"],
  startFen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
  emptyFen: "8/8/8/8/8/8/8/8 w - - 0 1",
};

export const XIANGQI: Geometry = {
  variant: "xiangqi",
  files: 9,
  ranks: 10,
  pieceLetters: ["K", "A", "B", "N", "R", "C", "P"],
  startFen: "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
  emptyFen: "9/9/9/9/9/9/9/9/9/9 w - - 0 1",
};

export function geometryOf(variant: VariantName): Geometry {
  return variant === "chess" ? CHESS : XIANGQI;
}

/** The API's name of a spot ("e4" in chess, "e0" in xiangqi). */
export function squareName(geo: Geometry, spot: Spot): string {
  const file = String.fromCharCode(97 + spot.file);
  return file + (geo.variant === "chess" ? spot.rank + 1 : spot.rank);
}

/** The spot of a square name, or undefined if it is not on the board. */
export function parseSquare(geo: Geometry, name: string): Spot | undefined {
  const m = /^([a-z])(\d{1,2})$/.exec(name);
  if (!m) return undefined;
  const file = m[1].charCodeAt(0) - 97;
  const rank = Number(m[2]) - (geo.variant === "chess" ? 1 : 0);
  if (file >= geo.files || rank < 0 || rank >= geo.ranks) return undefined;
  return { file, rank };
}

/** Pieces by square name, read from a FEN's placement field. */
export type Placement = Map<string, string>;

/** Reads the board of a FEN; a Crazyhouse FEN's pockets (`[Pp]`, or a ninth
 * row) are not on it, and its promoted pieces (`Q~`) are plain pieces. */
export function readPlacement(geo: Geometry, fen: string): Placement {
  const placement: Placement = new Map();
  const rows = fen.split(" ")[0].replace(/\[.*$/, "").split("/").slice(0, geo.ranks);
  rows.forEach((row, i) => {
    const rank = geo.ranks - 1 - i;
    let file = 0;
    for (const m of row.matchAll(/(\d+)|([a-zA-Z])/g)) {
      if (m[1]) {
        file += Number(m[1]);
      } else {
        placement.set(squareName(geo, { file, rank }), m[2]);
        file += 1;
      }
    }
  });
  return placement;
}

/** The FEN placement field of pieces by square name. */
export function writePlacement(geo: Geometry, placement: Placement): string {
  const rows: string[] = [];
  for (let rank = geo.ranks - 1; rank >= 0; rank--) {
    let row = "";
    let empty = 0;
    for (let file = 0; file < geo.files; file++) {
      const piece = placement.get(squareName(geo, { file, rank }));
      if (piece) {
        row += (empty > 0 ? String(empty) : "") + piece;
        empty = 0;
      } else {
        empty += 1;
      }
    }
    rows.push(row + (empty > 0 ? String(empty) : ""));
  }
  return rows.join("/");
}

/** Whether a FEN letter belongs to White (Red). */
export function isWhitePiece(letter: string): boolean {
  return letter === letter.toUpperCase();
}
