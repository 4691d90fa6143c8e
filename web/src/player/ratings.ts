// A player's ratings, one per perf they have played rated games in
// (GetPlayer): "?" marks a provisional one, as Lichess does.

import { api, errorText, type PerfRating } from "../api";
import { h } from "../dom";
import { variantByKey } from "../variants";

/** "chess_blitz" as "Chess blitz", "kingOfTheHill" as "King of the Hill". */
export function perfName(perf: string): string {
  const [game, ...speed] = perf.split("_");
  const words = [variantByKey(game)?.label ?? game, ...speed].join(" ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function ratingRow(rating: PerfRating): HTMLElement {
  return h(
    "tr",
    { "data-perf": rating.perf },
    h("th", { scope: "row" }, perfName(rating.perf)),
    h("td", {}, `${rating.rating}${rating.provisional ? "?" : ""}`),
    h("td", {}, `${rating.games}`),
  );
}

export class RatingsPanel {
  readonly element = h("div", { class: "panel", "data-testid": "ratings" }, h("h2", {}, "Ratings"));
  private readonly body = h("div", {});

  constructor(private readonly playerId: string) {
    this.element.append(this.body);
  }

  async refresh(): Promise<void> {
    try {
      const { player } = await api.players.getPlayer({ player: this.playerId });
      const ratings = player?.ratings ?? [];
      this.body.replaceChildren(
        ratings.length === 0
          ? h("p", {}, "No rated games yet.")
          : h(
              "table",
              { class: "ratings" },
              h("thead", {}, h("tr", {}, h("th", {}, "Perf"), h("th", {}, "Rating"), h("th", {}, "Rated games"))),
              h("tbody", {}, ...ratings.map(ratingRow)),
            ),
      );
    } catch (err) {
      this.body.replaceChildren(h("p", { class: "notice" }, errorText(err)));
    }
  }
}
