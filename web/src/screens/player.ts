// The signed-in player's page: their ratings, a seek in the pairing pool,
// a challenge by name, the challenges waiting, and their games. Their
// events stream keeps it live: a challenge made to them or answered shows
// at once, and a game that starts (a challenge accepted, a pairing) opens.

import { errorReason, errorText, PlayerEventKind, Reason, type WatchEventsResponse } from "../api";
import { button, h } from "../dom";
import { challengeForm } from "../player/challenge-form";
import { ChallengesPanel } from "../player/challenges";
import { watchPlayerEvents } from "../player/events";
import { MyGames } from "../player/my-games";
import { RatingsPanel } from "../player/ratings";
import { SeekPanel } from "../player/seek";
import { isJwt, signOut, type Session } from "../player/session";
import type { Screen } from "./screen";

export function playerScreen(session: Session): Screen {
  const abort = new AbortController();
  const ratings = new RatingsPanel(session.id);
  const seek = new SeekPanel(session);
  const challenges = new ChallengesPanel(session);
  const games = new MyGames(session.id);
  const connection = h("p", { class: "connection", role: "status", hidden: true });
  const token = h("input", { readonly: true, value: session.token, "aria-label": "Player token" });
  token.addEventListener("focus", () => token.select());
  const element = h(
    "section",
    { "data-testid": "player", "data-player-id": session.id },
    h("div", { class: "row player-head" }, h("h1", {}, session.username), button("Sign out", signOut)),
    connection,
    h(
      "div",
      { class: "player-layout" },
      h("div", {}, seek.element, challengeForm(session, () => void challenges.refresh())),
      h("div", {}, challenges.element, ratings.element, games.element),
    ),
    // A platform's JWT is short-lived: other devices sign in through the
    // platform.
    !isJwt(session.token) &&
      h(
        "details",
        { class: "panel" },
        h("summary", {}, "Play from another device"),
        h("p", {}, "Sign in there with this token. Keep it secret: it acts as you."),
        h("div", { class: "row links" }, token),
      ),
  );
  void ratings.refresh();
  void challenges.refresh();
  // Games in play before the page opened are listed; the events stream
  // tells them again, and opens only those that start later.
  void games.refresh().then((known) => {
    if (abort.signal.aborted) return;
    const onEvent = (event: WatchEventsResponse) => {
      const game = event.game;
      if (event.kind === PlayerEventKind.GAME_STARTED && game && !known.has(game.id)) {
        known.add(game.id);
        location.hash = `#/game/${encodeURIComponent(game.id)}`;
      } else if (event.kind === PlayerEventKind.CHALLENGE || event.kind === PlayerEventKind.CHALLENGE_CANCELED) {
        void challenges.refresh();
      } else if (event.kind === PlayerEventKind.CHALLENGE_DECLINED) {
        void challenges.refresh().then(() => challenges.tell(`${event.challenge?.destinationId ?? "Your opponent"} declined your challenge.`));
      } else if (event.kind === PlayerEventKind.GAME_ENDED) {
        void games.refresh();
        void ratings.refresh();
      }
    };
    const onConnected = (connected: boolean) => {
      connection.hidden = connected;
      connection.textContent = connected ? "" : "Reconnecting…";
    };
    watchPlayerEvents(session, onEvent, onConnected, abort.signal).catch((err: unknown) => {
      switch (errorReason(err)) {
        case Reason.JWT_EXPIRED:
          signOut("Your sign-in has expired: sign in again through your platform.");
          return;
        case Reason.PLAYER_TOKEN_UNKNOWN:
        case Reason.PLAYER_DELETED:
          signOut("The server no longer knows this player's token: sign in again.");
          return;
      }
      connection.textContent = errorText(err);
      connection.hidden = false;
    });
  });
  return {
    element,
    dispose() {
      abort.abort();
      seek.dispose();
    },
  };
}
