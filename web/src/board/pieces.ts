// Piece symbols drawn in SVG with the fonts every system has: chess as the
// Unicode chess glyphs, xiangqi as discs with the Chinese character, or a
// Latin letter where no system font has the Chinese glyphs.

import { s } from "../dom";
import { isWhitePiece, type Geometry } from "./variant";

// The solid glyphs: a Black piece, and under a White piece its white
// silhouette. A White piece is the outline glyph drawn over that silhouette:
// the solid glyphs of several fonts have inner contours, so filled white
// they read as black pieces. U+FE0E asks for the text presentation, never
// an emoji.
const CHESS_SOLID: Record<string, string> = {
  K: "\u265A",
  Q: "\u265B",
  R: "\u265C",
  B: "\u265D",
  N: "\u265E",
  P: "\u265F",
};

const CHESS_OUTLINE: Record<string, string> = {
  K: "\u2654",
  Q: "\u2655",
  R: "\u2656",
  B: "\u2657",
  N: "\u2658",
  P: "\u2659",
};

const XIANGQI_CHINESE: Record<string, string> = {
  K: "帥", A: "仕", B: "相", N: "傌", R: "俥", C: "炮", P: "兵",
  k: "將", a: "士", b: "象", n: "馬", r: "車", c: "砲", p: "卒",
};

// Western xiangqi letters: Elephant and Horse, not the FEN's B and N.
const XIANGQI_LATIN: Record<string, string> = {
  K: "K", A: "A", B: "E", N: "H", R: "R", C: "C", P: "P",
};

const CHESS_FONTS =
  "'DejaVu Sans', 'Segoe UI Symbol', 'Apple Symbols', 'Noto Sans Symbols 2', 'Noto Sans Symbols2', 'FreeSerif', serif";
const CJK_FONTS =
  "'AR PL UKai TW', 'AR PL UKai CN', 'Noto Serif CJK SC', 'Noto Sans CJK SC', 'Source Han Serif SC', 'WenQuanYi Zen Hei', 'WenQuanYi Micro Hei', 'STKaiti', 'KaiTi', 'SimSun', 'PingFang SC', 'Microsoft YaHei', serif";

/** Whether this browser's fonts draw Chinese characters (two different
 * characters drawn alike are both the missing-glyph box). */
function drawsChinese(): boolean {
  const canvas = document.createElement("canvas");
  canvas.width = 32;
  canvas.height = 32;
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  if (!ctx) return true;
  const pixels = (text: string): string => {
    ctx.clearRect(0, 0, 32, 32);
    ctx.font = `28px ${CJK_FONTS}`;
    ctx.fillText(text, 2, 28);
    return Array.from(ctx.getImageData(0, 0, 32, 32).data).join(",");
  };
  return pixels("帥") !== pixels("將");
}

let chineseGlyphs: boolean | undefined;

/** Whether xiangqi pieces show Chinese characters (else Latin letters). */
export function xiangqiChinese(): boolean {
  chineseGlyphs ??= drawsChinese();
  return chineseGlyphs;
}

/** A piece centred on (0, 0), one board unit across. */
export function drawPiece(geo: Geometry, letter: string): SVGGElement {
  const white = isWhitePiece(letter);
  const side = white ? "white" : "black";
  if (geo.variant === "chess") {
    const kind = letter.toUpperCase();
    const glyph = (className: string, text: string): SVGElement =>
      s(
        "text",
        {
          class: className,
          "text-anchor": "middle",
          "dominant-baseline": "central",
          y: 0.04,
          "font-size": 0.86,
          "font-family": CHESS_FONTS,
        },
        text + "\uFE0E",
      );
    const glyphs = white
      ? [glyph("silhouette", CHESS_SOLID[kind]), glyph("outline", CHESS_OUTLINE[kind])]
      : [glyph("solid", CHESS_SOLID[kind])];
    return s("g", { class: `piece chess ${side}`, "data-piece": letter }, ...glyphs);
  }
  const chinese = xiangqiChinese();
  const label = chinese ? XIANGQI_CHINESE[letter] : XIANGQI_LATIN[letter.toUpperCase()];
  return s(
    "g",
    { class: `piece xiangqi ${white ? "red" : "black"}`, "data-piece": letter },
    s("circle", { class: "disc", r: 0.44 }),
    s("circle", { class: "ring", r: 0.37 }),
    s(
      "text",
      {
        "text-anchor": "middle",
        "dominant-baseline": "central",
        y: chinese ? 0.02 : 0.03,
        "font-size": chinese ? 0.54 : 0.44,
        "font-weight": chinese ? 400 : 700,
        "font-family": chinese ? CJK_FONTS : "'DejaVu Sans', 'Liberation Sans', Arial, sans-serif",
      },
      label,
    ),
  );
}

/** A piece's name for people and tests ("white knight", "red cannon"). */
export function pieceName(geo: Geometry, letter: string): string {
  const names: Record<string, string> =
    geo.variant === "chess"
      ? { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" }
      : { k: "general", a: "advisor", b: "elephant", n: "horse", r: "chariot", c: "cannon", p: "soldier" };
  const side = isWhitePiece(letter) ? (geo.variant === "chess" ? "white" : "red") : "black";
  return `${side} ${names[letter.toLowerCase()]}`;
}
