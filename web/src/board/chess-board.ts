// The chess board: 8x8 squares with file and rank labels.

import { s } from "../dom";
import type { Layout } from "./layout";

export function drawChessGrid(layout: Layout): SVGGElement {
  const g = s("g", { class: "grid chess" });
  for (let file = 0; file < 8; file++) {
    for (let rank = 0; rank < 8; rank++) {
      const { x, y } = layout.centre({ file, rank });
      const light = (file + rank) % 2 === 1;
      g.append(s("rect", { x: x - 0.5, y: y - 0.5, width: 1, height: 1, class: light ? "light" : "dark" }));
    }
  }
  // Labels inside the edge squares, as on a printed board.
  for (let i = 0; i < 8; i++) {
    const fileSpot = layout.centre({ file: i, rank: layout.flipped ? 7 : 0 });
    g.append(
      s("text", { x: fileSpot.x + 0.44, y: fileSpot.y + 0.44, class: "label", "text-anchor": "end" }, String.fromCharCode(97 + i)),
    );
    const rankSpot = layout.centre({ file: layout.flipped ? 7 : 0, rank: i });
    g.append(s("text", { x: rankSpot.x - 0.44, y: rankSpot.y - 0.3, class: "label" }, String(i + 1)));
  }
  return g;
}
