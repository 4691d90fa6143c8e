// The game as PGN (Games.ExportGame), saved as a file by the browser.

import { api } from "../api";
import { h } from "../dom";

export async function downloadPgn(gameId: string): Promise<void> {
  const { pgn } = await api.games.exportGame({ gameId });
  const url = URL.createObjectURL(new Blob([pgn], { type: "application/x-chess-pgn" }));
  const a = h("a", { href: url, download: `arbiter-${gameId}.pgn` });
  document.body.append(a);
  a.click();
  a.remove();
  // The browser has read the blob once the click's download started.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
