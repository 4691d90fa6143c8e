// Where each spot of a board is drawn: one unit per square (chess) or point
// (xiangqi), White (Red) at the bottom unless flipped.

import type { Geometry, Spot } from "./variant";

export class Layout {
  constructor(
    readonly geo: Geometry,
    readonly flipped: boolean,
  ) {}

  /** The centre of a spot in board units. */
  centre(spot: Spot): { x: number; y: number } {
    const col = this.flipped ? this.geo.files - 1 - spot.file : spot.file;
    const row = this.flipped ? spot.rank : this.geo.ranks - 1 - spot.rank;
    return { x: col + 0.5, y: row + 0.5 };
  }

  /** The spot under a point in board units, if any. */
  spotAt(x: number, y: number): Spot | undefined {
    const col = Math.floor(x);
    const row = Math.floor(y);
    if (col < 0 || row < 0 || col >= this.geo.files || row >= this.geo.ranks) return undefined;
    return {
      file: this.flipped ? this.geo.files - 1 - col : col,
      rank: this.flipped ? row : this.geo.ranks - 1 - row,
    };
  }

  /** The margin around the spots: xiangqi pieces sit on the edge lines and
   * need room beyond them, chess pieces sit inside their squares. */
  get pad(): number {
    return this.geo.variant === "xiangqi" ? 0.3 : 0;
  }

  get viewBox(): string {
    const pad = this.pad;
    return `${-pad} ${-pad} ${this.geo.files + 2 * pad} ${this.geo.ranks + 2 * pad}`;
  }
}
