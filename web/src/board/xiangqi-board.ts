// The xiangqi board: 9x10 points, the river between ranks 4 and 5, and the
// two palaces (files d-f, three ranks at each end) with their diagonals.

import { s } from "../dom";
import type { Layout } from "./layout";
import type { Spot } from "./variant";
import { xiangqiChinese } from "./pieces";

export function drawXiangqiGrid(layout: Layout): SVGGElement {
  const g = s("g", { class: "grid xiangqi" });
  const line = (a: Spot, b: Spot, cls = "line") => {
    const p = layout.centre(a);
    const q = layout.centre(b);
    g.append(s("line", { x1: p.x, y1: p.y, x2: q.x, y2: q.y, class: cls }));
  };
  const pad = layout.pad;
  g.append(s("rect", { x: -pad, y: -pad, width: 9 + 2 * pad, height: 10 + 2 * pad, class: "wood" }));
  for (let rank = 0; rank < 10; rank++) line({ file: 0, rank }, { file: 8, rank });
  for (let file = 0; file < 9; file++) {
    // The edge files cross the river; the others stop at its banks.
    if (file === 0 || file === 8) {
      line({ file, rank: 0 }, { file, rank: 9 });
    } else {
      line({ file, rank: 0 }, { file, rank: 4 });
      line({ file, rank: 5 }, { file, rank: 9 });
    }
  }
  for (const [low, high] of [
    [0, 2],
    [7, 9],
  ]) {
    line({ file: 3, rank: low }, { file: 5, rank: high });
    line({ file: 5, rank: low }, { file: 3, rank: high });
  }
  const outerA = layout.centre({ file: 0, rank: 0 });
  const outerB = layout.centre({ file: 8, rank: 9 });
  g.append(
    s("rect", {
      x: Math.min(outerA.x, outerB.x) - 0.12,
      y: Math.min(outerA.y, outerB.y) - 0.12,
      width: 8.24,
      height: 9.24,
      class: "frame",
    }),
  );
  const river = (layout.centre({ file: 0, rank: 4 }).y + layout.centre({ file: 0, rank: 5 }).y) / 2;
  if (xiangqiChinese()) {
    g.append(s("text", { x: 4.5, y: river, class: "river", "text-anchor": "middle", "dominant-baseline": "central" }, "楚 河　　　漢 界"));
  }
  // ICCS file letters along the bottom edge, rank numbers along the left.
  for (let i = 0; i < 9; i++) {
    const p = layout.centre({ file: i, rank: layout.flipped ? 9 : 0 });
    g.append(s("text", { x: p.x, y: p.y + 0.68, class: "label", "text-anchor": "middle" }, String.fromCharCode(97 + i)));
  }
  for (let i = 0; i < 10; i++) {
    const p = layout.centre({ file: layout.flipped ? 8 : 0, rank: i });
    g.append(s("text", { x: p.x - 0.7, y: p.y + 0.07, class: "label" }, String(i)));
  }
  return g;
}
