// The signed-in player's games (ListGames by player id): those in play
// first, then the latest finished ones, each linking to its game screen.

import { api, errorText, GameStatusFilter, Side, type Game } from "../api";
import { h } from "../dom";
import { gameSummary } from "../game/summary";

const FINISHED_SHOWN = 20;

export class MyGames {
  readonly element = h("div", { class: "panel" }, h("h2", {}, "My games"));
  private readonly list = h("ul", { "data-testid": "my-games" });

  constructor(private readonly playerId: string) {
    this.element.append(this.list);
  }

  /** Lists the games again; answers the ids of those in play. */
  async refresh(): Promise<Set<string>> {
    const list = (status: GameStatusFilter, pageSize: number) =>
      api.games.listGames({ playerId: this.playerId, status, pageSize }).then((page) => page.games);
    try {
      const [ongoing, finished] = await Promise.all([
        list(GameStatusFilter.ONGOING, 100),
        list(GameStatusFilter.FINISHED, FINISHED_SHOWN),
      ]);
      const games = [...ongoing, ...finished];
      this.list.replaceChildren(...games.map((game) => this.item(game)));
      if (games.length === 0) this.list.replaceChildren(h("li", {}, "No games yet."));
      return new Set(ongoing.map((game) => game.id));
    } catch (err) {
      this.list.replaceChildren(h("li", { class: "notice" }, errorText(err)));
      return new Set();
    }
  }

  private item(game: Game): HTMLElement {
    const mine = game.white?.playerId === this.playerId ? Side.WHITE : Side.BLACK;
    return h(
      "li",
      { "data-listed-game": game.id },
      h("a", { href: `#/game/${encodeURIComponent(game.id)}` }, gameSummary(game, mine)),
    );
  }
}
