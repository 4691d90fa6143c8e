// The positions this browser saved with the editor, each with its owner
// token (CreatePosition shows it once; DeletePosition needs it), kept in
// localStorage so that its user can delete it later.

export interface SavedPosition {
  id: string;
  ownerToken: string;
  /** The game's server name ("chess", "crazyhouse"). */
  variant: string;
  fen: string;
  name: string;
  savedAt: number;
}

const PREFIX = "arbiter.position.";

export function rememberPosition(position: SavedPosition): void {
  localStorage.setItem(PREFIX + position.id, JSON.stringify(position));
}

export function forgetPosition(id: string): void {
  localStorage.removeItem(PREFIX + id);
}

/** The positions of `variant` this browser saved, most recent first. */
export function rememberedPositions(variant: string): SavedPosition[] {
  const positions: SavedPosition[] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key?.startsWith(PREFIX)) continue;
    try {
      const position = JSON.parse(localStorage.getItem(key) ?? "null") as SavedPosition | null;
      if (position?.ownerToken && position.variant === variant) positions.push(position);
    } catch {
      // Not one of ours: left alone.
    }
  }
  return positions.sort((a, b) => b.savedAt - a.savedAt);
}
