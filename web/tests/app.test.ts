// The web app in a real browser against a real server: both games played
// by clicks and drags, a friend joining by a link (the invitation shown
// first), live updates between two players, a game page that rides out a
// server restart, rematches, the server's reasons, clocks, resigning and
// aborting only once confirmed, the position editor (decided positions,
// deleting saved ones), the PGN download, players (a challenge by name
// between two browsers, a pairing in the pool, ratings, signing in with a
// token on another browser), a Chess960 start chosen by number and castled
// by clicks, and the Content-Security-Policy the pages run under.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import { errorReason, OutcomeStatus, Reason, Side, Variant } from "@arbiter/client";
import type { Page } from "playwright-core";
import {
  clickSquare,
  dragPiece,
  providerJwt,
  screenshot,
  shownGameId,
  shownMoves,
  startStack,
  waitForMoves,
  waitForText,
  type Player,
  type Stack,
} from "./harness";

let stack: Stack;

before(async () => {
  stack = await startStack();
});

after(async () => {
  await stack?.stop();
});

/** Fills and submits the new-game form. */
async function newGame(
  page: Page,
  choice: {
    variant: "chess" | "xiangqi";
    opponent: "engine" | "friend";
    level?: number;
    colour?: "white" | "black";
    minutes?: number;
    name?: string;
  },
): Promise<string> {
  await page.goto(`${stack.appUrl}/#/`);
  await page.waitForSelector("[data-testid=new-game]");
  if (choice.variant === "xiangqi" && choice.opponent === "engine") await screenshot(page, "new-game");
  await page.check(`input[name=variant][value=${choice.variant}]`);
  await page.check(`input[name=opponent][value=${choice.opponent}]`);
  if (choice.level !== undefined) await page.fill("[data-testid=level]", String(choice.level));
  await page.fill("[data-testid=name]", choice.name ?? "");
  await page.check(`input[name=colour][value=${choice.colour ?? "white"}]`);
  if (choice.minutes !== undefined) {
    await page.selectOption("[data-testid=time]", "custom");
    await page.fill("[data-testid=custom-minutes]", String(choice.minutes));
    await page.fill("[data-testid=custom-increment]", "0");
  }
  await page.click("[data-testid=start]");
  await page.waitForSelector("[data-game-id]");
  return shownGameId(page);
}

/** A chess game between two browsers: the host creates it with an open
 * seat and waits; the friend opens the join link, gives a name and joins. */
async function friendGame(choice: { hostName?: string; friendName?: string; minutes?: number }): Promise<{
  host: Player;
  friend: Player;
  gameId: string;
}> {
  const host = await stack.newPlayer();
  const gameId = await newGame(host.page, { variant: "chess", opponent: "friend", minutes: choice.minutes, name: choice.hostName });
  await waitForText(host.page, "[data-testid=status]", "Waiting for your friend");
  const link = await host.page.inputValue("[data-testid=join-link]");
  assert.match(link, /#\/join\/[0-9A-Z]{10}$/);
  await screenshot(host.page, "chess-waiting-for-friend");
  const friend = await stack.newPlayer();
  await friend.page.goto(link);
  await friend.page.waitForSelector("[data-testid=invitation-host]");
  await screenshot(friend.page, "join");
  await friend.page.fill("[data-testid=join-name]", choice.friendName ?? "");
  await friend.page.click("[data-testid=join-game]");
  await friend.page.waitForSelector(`[data-game-id="${gameId}"]`);
  // The host's page starts the game live when the friend's seat is taken.
  await waitForText(host.page, "[data-testid=status]", "Your move");
  await waitForText(friend.page, "[data-testid=status]", "to move");
  assert.equal(await host.page.locator("[data-testid=join-link]").count(), 0);
  return { host, friend, gameId };
}

/** A browser signed in as a new player `username`, on their page. */
async function signedInPlayer(username: string): Promise<Player> {
  const player = await stack.newPlayer();
  await player.page.goto(`${stack.appUrl}/#/player`);
  const form = player.page.getByRole("form", { name: "New player" });
  await form.getByLabel("Username").fill(username);
  await form.getByRole("button", { name: "Create player" }).click();
  await player.page.waitForSelector(`[data-testid=player][data-player-id="${username}"]`);
  return player;
}

/** Waits until the page moved on from game `gameId` to its rematch. */
async function shownRematch(page: Page, gameId: string): Promise<string> {
  await page.waitForSelector(`[data-game-id]:not([data-game-id="${gameId}"])`);
  return shownGameId(page);
}

describe("web app", () => {
  test("a xiangqi game against the engine is played to its end by clicks", async () => {
    const { page, context } = await stack.newPlayer();
    const gameId = await newGame(page, { variant: "xiangqi", opponent: "engine", level: 1 });
    // Red plays the engine's own best moves at a short search: level 1
    // loses to them, by mate, within a few dozen moves.
    const deadline = Date.now() + 100_000;
    for (let turn = 0; turn < 100 && Date.now() < deadline; turn++) {
      await page.waitForFunction(
        () => /Your move|won|drawn|lost/i.test(document.querySelector("[data-testid=status]")?.textContent ?? ""),
        undefined,
        { timeout: 15_000 },
      );
      const { game } = await stack.api.games.getGame({ gameId });
      if (!game || game.outcome?.status !== OutcomeStatus.ONGOING) break;
      const best = await stack.api.engine.bestMove({
        position: { variant: Variant.XIANGQI, fen: game.startFen, moves: game.moves.map((m) => m.move?.uci ?? "") },
        limits: { movetimeMs: 100 },
      });
      const move = best.move;
      assert.ok(move, "the engine has a move");
      await clickSquare(page, move.from);
      await page.waitForSelector(`[data-dest="${move.to}"]`);
      if (turn === 6) await screenshot(page, "web-xiangqi", true);
      await clickSquare(page, move.to);
      await waitForMoves(page, game.ply + 1);
    }
    const outcome = await waitForText(page, "[data-testid=outcome]", "won", 15_000);
    const { game } = await stack.api.games.getGame({ gameId });
    assert.equal(game?.outcome?.status, OutcomeStatus.DECISIVE);
    const winner = game?.outcome?.winner === Side.WHITE ? "Red" : "Black";
    assert.ok(outcome.startsWith(`${winner} won by`), outcome);
    await page.click("[data-testid=notation]");
    const chinese = await page.locator("[data-testid=moves] td[data-ply]").first().textContent();
    assert.equal(chinese, game?.moves[0].move?.chinese);
    await screenshot(page, "xiangqi-end");
    await context.close();
  });

  test("a friend joins by the link, both see each other's moves, a draw offered and accepted, then a rematch with the colours swapped", async () => {
    const { host: white, friend: black, gameId } = await friendGame({ hostName: "Alice", friendName: "Bob" });
    // Each player has their own side at the bottom.
    const rankOf = async (page: Page, square: string) => (await page.locator(`rect.hit[data-square="${square}"]`).boundingBox())?.y ?? 0;
    assert.ok((await rankOf(white.page, "e1")) > (await rankOf(white.page, "e8")));
    assert.ok((await rankOf(black.page, "e1")) < (await rankOf(black.page, "e8")));

    await clickSquare(white.page, "e2");
    await clickSquare(white.page, "e4");
    assert.deepEqual(await waitForMoves(black.page, 1), ["e4"]);
    await dragPiece(black.page, "e7", "e5");
    assert.deepEqual(await waitForMoves(white.page, 2), ["e4", "e5"]);
    await dragPiece(white.page, "g1", "f3");
    await waitForMoves(black.page, 3);
    await clickSquare(black.page, "b8");
    await clickSquare(black.page, "c6");
    await waitForMoves(white.page, 4);
    await clickSquare(white.page, "f1");
    await white.page.waitForSelector('[data-dest="b5"]');
    await screenshot(white.page, "web-chess", true);
    await clickSquare(white.page, "b5");
    assert.deepEqual(await waitForMoves(black.page, 5), ["e4", "e5", "Nf3", "Nc6", "Bb5"]);

    await white.page.click("[data-testid=offer-draw]");
    await black.page.waitForSelector("[data-testid=draw-offer]");
    await screenshot(black.page, "chess-draw-offer");
    await black.page.click("[data-testid=accept-draw]");
    for (const player of [white, black]) {
      assert.match(await waitForText(player.page, "[data-testid=outcome]", "agreement"), /drawn by agreement/i);
    }
    // Both pages kept the whole move list from the lean events.
    assert.deepEqual(await shownMoves(white.page), ["e4", "e5", "Nf3", "Nc6", "Bb5"]);
    assert.deepEqual(await shownMoves(black.page), ["e4", "e5", "Nf3", "Nc6", "Bb5"]);

    // The moves can be gone through again: the board after 1. e4.
    await white.page.click('[data-testid=moves] td[data-ply="0"]');
    await white.page.waitForSelector('g.piece[data-square="e7"][data-piece="p"]');
    await white.page.keyboard.press("ArrowRight");
    await white.page.waitForSelector('g.piece[data-square="e5"][data-piece="p"]');
    assert.equal(await white.page.locator('g.piece[data-square="f3"]').count(), 0);
    await white.page.keyboard.press("ArrowRight");
    await white.page.keyboard.press("ArrowRight");
    await white.page.keyboard.press("ArrowRight");
    await white.page.waitForSelector('g.piece[data-square="b5"][data-piece="B"]');

    const [download] = await Promise.all([
      white.page.waitForEvent("download"),
      white.page.click("[data-testid=download-pgn]"),
    ]);
    const path = await download.path();
    const pgn = await readFile(path, "utf8");
    const exported = await stack.api.games.exportGame({ gameId });
    assert.equal(pgn, exported.pgn);
    assert.match(pgn, /1\. e4 e5 2\. Nf3 Nc6 3\. Bb5/);

    // A rematch: offered by one, accepted by the other, both move on to it.
    await white.page.click("[data-testid=rematch]");
    await white.page.waitForSelector("[data-testid=rematch-offered]");
    await black.page.waitForSelector("[data-testid=rematch-offer]");
    await screenshot(black.page, "chess-rematch-offer");
    await black.page.click("[data-testid=accept-rematch]");
    const rematchId = await shownRematch(black.page, gameId);
    assert.equal(await shownRematch(white.page, gameId), rematchId);
    const { game: rematch } = await stack.api.games.getGame({ gameId: rematchId });
    assert.equal(rematch?.rematchOf, gameId);
    assert.equal(rematch?.white?.displayName, "Bob");
    assert.equal(rematch?.black?.displayName, "Alice");
    // The colours swapped: Bob now plays White, from the bottom.
    assert.ok((await rankOf(black.page, "e1")) > (await rankOf(black.page, "e8")));
    assert.ok((await rankOf(white.page, "e1")) < (await rankOf(white.page, "e8")));
    await waitForText(black.page, "[data-testid=status]", "Your move");
    await clickSquare(black.page, "d2");
    await clickSquare(black.page, "d4");
    assert.deepEqual(await waitForMoves(white.page, 1), ["d4"]);
    await dragPiece(white.page, "d7", "d5");
    assert.deepEqual(await waitForMoves(black.page, 2), ["d4", "d5"]);
    await white.context.close();
    await black.context.close();
  });

  test("an illegal move shows the server's reason; a takeback against the engine", async () => {
    const { page, context } = await stack.newPlayer();
    await newGame(page, { variant: "chess", opponent: "engine", level: 1 });
    await clickSquare(page, "e2");
    await clickSquare(page, "e5");
    const judged = await stack.api.rules.validateMove({ position: { variant: Variant.CHESS }, move: "e2e5" });
    assert.equal(judged.legal, false);
    const notice = await waitForText(page, "[data-testid=notice]", judged.message);
    assert.ok(notice.endsWith(judged.message), notice);
    await screenshot(page, "chess-illegal-move");
    // The engine grants a takeback at once: both moves are gone.
    await clickSquare(page, "e2");
    await clickSquare(page, "e4");
    await waitForMoves(page, 2);
    await page.click("[data-testid=takeback]");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=moves] td[data-ply]").length === 0);
    await page.waitForSelector('g.piece[data-square="e2"][data-piece="P"]');
    // The list goes on from the shorter game.
    await clickSquare(page, "d2");
    await clickSquare(page, "d4");
    assert.equal((await waitForMoves(page, 2))[0], "d4");
    await context.close();
  });

  test("a rematch against the engine starts at once, with the colours swapped", async () => {
    const { page, context } = await stack.newPlayer();
    const gameId = await newGame(page, { variant: "chess", opponent: "engine", level: 1 });
    await clickSquare(page, "e2");
    await clickSquare(page, "e4");
    await waitForMoves(page, 2);
    page.once("dialog", (dialog) => void dialog.accept());
    await page.click("[data-testid=resign]");
    await waitForText(page, "[data-testid=outcome]", "resign");
    await page.click("[data-testid=rematch]");
    const rematchId = await shownRematch(page, gameId);
    const { game } = await stack.api.games.getGame({ gameId: rematchId });
    assert.equal(game?.rematchOf, gameId);
    assert.ok(game?.white?.engine, "the engine plays White in the rematch");
    // The engine moves first; the player, now Black, answers.
    await waitForMoves(page, 1);
    await waitForText(page, "[data-testid=status]", "Your move");
    assert.match((await page.textContent("[data-testid=player-bottom]")) ?? "", /\(you\)/);
    await clickSquare(page, "e7");
    await clickSquare(page, "e5");
    await waitForMoves(page, 3);
    await context.close();
  });

  test("a pawn reaching the last rank promotes to the piece chosen", async () => {
    const { position } = await stack.api.positions.createPosition({
      variant: Variant.CHESS,
      source: { case: "fen", value: "7k/P7/8/8/8/8/8/K7 w - - 0 1" },
    });
    assert.ok(position);
    const created = await stack.api.games.createGame({
      variant: Variant.CHESS,
      start: { case: "positionId", value: position.id },
      white: {},
      black: {},
    });
    const { page, context } = await stack.newPlayer();
    // A seat's own link plays it.
    await page.goto(`${stack.appUrl}/#/game/${created.game?.id}/white/${created.whiteToken}`);
    await page.waitForSelector("[data-game-id]");
    await dragPiece(page, "a7", "a8");
    await page.waitForSelector("[data-testid=promotion]");
    await screenshot(page, "chess-promotion");
    await page.click('[data-testid=promotion] [data-promotion="n"]');
    assert.deepEqual(await waitForMoves(page, 1), ["a8=N"]);
    await page.waitForSelector('g.piece[data-square="a8"][data-piece="N"]');
    await context.close();
  });

  test("a Chess960 start is chosen by number, and the king castles by clicking its rook", async () => {
    const { page, context } = await stack.newPlayer();
    await page.goto(`${stack.appUrl}/#/`);
    await page.waitForSelector("[data-testid=new-game]");
    await page.check("input[name=variant][value=chess960]");
    await page.fill("[data-testid=chess960-start]", "100");
    await page.check("input[name=opponent][value=engine]");
    await page.fill("[data-testid=level]", "1");
    await page.check("input[name=colour][value=white]");
    await page.click("[data-testid=start]");
    await page.waitForSelector("[data-game-id]");
    await waitForText(page, "[data-testid=chess960-start]", "start 100");
    // Start 100 is QBBNRNKR: the knight leaves f1, then the king on g1
    // takes its h1 rook to castle, staying on g1 with the rook on f1.
    await page.waitForSelector('g.piece[data-square="a1"][data-piece="Q"]');
    await clickSquare(page, "f1");
    await page.waitForSelector('[data-dest="g3"]');
    await clickSquare(page, "g3");
    await waitForMoves(page, 2);
    await waitForText(page, "[data-testid=status]", "Your move");
    await clickSquare(page, "g1");
    await page.waitForSelector('[data-dest="h1"]');
    await clickSquare(page, "h1");
    const moves = await waitForMoves(page, 3);
    assert.equal(moves[2], "O-O");
    await page.waitForSelector('g.piece[data-square="f1"][data-piece="R"]');
    await page.waitForSelector('g.piece[data-square="g1"][data-piece="K"]');
    await screenshot(page, "chess960-castled");
    await context.close();
  });

  test("a clock runs out", async () => {
    const { host: white, friend: black, gameId } = await friendGame({ minutes: 0.05 });
    await clickSquare(white.page, "d2");
    await clickSquare(white.page, "d4");
    await waitForMoves(black.page, 1);
    await clickSquare(black.page, "d7");
    await clickSquare(black.page, "d5");
    await waitForMoves(white.page, 2);
    // White's three seconds run from Black's move on.
    await white.page.waitForSelector(".clock.running[data-side=white]");
    const outcome = await waitForText(white.page, "[data-testid=outcome]", "time", 15_000);
    assert.match(outcome, /^Black won by time/);
    await waitForText(black.page, "[data-testid=outcome]", "time");
    assert.equal(await white.page.textContent(".clock[data-side=white]"), "0:00.0");
    const { game } = await stack.api.games.getGame({ gameId });
    assert.equal(game?.outcome?.winner, Side.BLACK);
    await screenshot(white.page, "chess-timeout");
    await white.context.close();
    await black.context.close();
  });

  test("the position editor rejects a bad position and starts a game from a good one", async () => {
    const { page, context } = await stack.newPlayer();
    await page.goto(`${stack.appUrl}/#/editor/chess`);
    await page.waitForSelector("[data-testid=valid]");
    await page.click("[data-testid=clear]");
    await page.click("[data-tool=K]");
    await clickSquare(page, "e1");
    await page.waitForSelector("[data-testid=problems] li");
    const codes = await page.locator("[data-testid=problems] li").evaluateAll((items) => items.map((li) => li.getAttribute("data-code")));
    assert.ok(codes.length > 0);
    await screenshot(page, "editor-problems");
    await page.click("[data-testid=save-position]");
    await page.waitForFunction(() => (document.querySelector("[data-testid=notice]")?.textContent ?? "").length > 0);
    assert.equal(await page.locator("[data-testid=position-id]").count(), 0);

    await page.click("[data-tool=k]");
    await clickSquare(page, "e8");
    await page.click("[data-tool=R]");
    await clickSquare(page, "a1");
    await page.waitForSelector("[data-testid=valid]");
    await page.fill("[data-testid=position-name]", "rook ending");
    await page.click("[data-testid=save-position]");
    const positionId = await page.locator("[data-testid=position-id]").textContent();
    assert.ok(positionId);
    const saved = await stack.api.positions.getPosition({ id: positionId });
    assert.equal(saved.position?.fen, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    await page.click("[data-testid=start-from-position]");
    await page.check("input[name=opponent][value=engine]");
    await page.click("[data-testid=start]");
    await page.waitForSelector("[data-game-id]");
    const gameId = await shownGameId(page);
    const { game } = await stack.api.games.getGame({ gameId });
    assert.equal(game?.startFen, saved.position?.fen);
    await page.waitForSelector('g.piece[data-square="a1"][data-piece="R"]');
    await clickSquare(page, "a1");
    await clickSquare(page, "a7");
    await waitForMoves(page, 2);
    await context.close();
  });

  test("the join screen shows the invitation before joining, and says at once when a code cannot be used", async () => {
    const created = await stack.api.games.createGame({
      variant: Variant.XIANGQI,
      white: { displayName: "Alice" },
      black: { open: true },
      timeControl: { initialMs: 300_000n, incrementMs: 2_000n },
    });
    const link = `${stack.appUrl}/#/join/${created.joinCode}`;
    const friend = await stack.newPlayer();
    await friend.page.goto(link);
    assert.equal(await waitForText(friend.page, "[data-testid=invitation-host]", "Alice"), "Alice");
    assert.equal(await friend.page.textContent("[data-testid=invitation-game]"), "Xiangqi");
    assert.equal(await friend.page.textContent("[data-testid=invitation-clock]"), "5 min + 2 s a move");
    assert.equal(await friend.page.textContent("[data-testid=invitation-side]"), "Black");
    const { game: before } = await stack.api.games.getGame({ gameId: created.game?.id });
    assert.ok(before?.black?.open, "looking takes no seat");
    await friend.page.click("[data-testid=join-game]");
    await friend.page.waitForSelector(`[data-game-id="${created.game?.id}"]`);

    // The same link again, once the seat is taken; and a code no game has.
    const late = await stack.newPlayer();
    await late.page.goto(link);
    await waitForText(late.page, "[data-testid=notice]", "already taken");
    assert.ok(await late.page.isDisabled("[data-testid=join-game]"));
    await late.page.goto(`${stack.appUrl}/#/join/0000000000`);
    await waitForText(late.page, "[data-testid=notice]", "No game has this join code");
    assert.ok(await late.page.isDisabled("[data-testid=join-game]"));
    await friend.context.close();
    await late.context.close();
  });

  test("a game page rides out a server restart: it shows that it reconnects, then the opponent's move", async () => {
    const created = await stack.api.games.createGame({ variant: Variant.CHESS, white: { displayName: "Ada" }, black: { displayName: "Blaise" } });
    const gameId = created.game?.id ?? "";
    const { page, context } = await stack.newPlayer();
    await page.goto(`${stack.appUrl}/#/game/${gameId}/white/${created.whiteToken}`);
    await page.waitForSelector("[data-game-id]");
    await clickSquare(page, "e2");
    await clickSquare(page, "e4");
    await waitForMoves(page, 1);
    const board = await page.locator(".board-wrap").boundingBox();

    await stack.stopServer();
    await page.waitForSelector("[data-testid=connection]:not([hidden])", { timeout: 15_000 });
    assert.match((await page.textContent("[data-testid=connection]")) ?? "", /Reconnecting/);
    // The state shows beside the board, which stays where it was.
    assert.equal(await page.locator(".board-wrap [data-testid=connection], .game-layout > [data-testid=connection]").count(), 0);
    await screenshot(page, "reconnecting");
    // Down for about ten seconds, many more than the attempts once made.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    assert.equal(await page.isVisible("[data-testid=connection]"), true, "still reconnecting");
    assert.deepEqual(await page.locator(".board-wrap").boundingBox(), board);

    await stack.startServer();
    await stack.api.games.makeMove({ gameId, seatToken: created.blackToken, move: "e5" });
    assert.deepEqual(await waitForMoves(page, 2, 20_000), ["e4", "e5"]);
    await page.waitForSelector("[data-testid=connection]", { state: "hidden" });
    await waitForText(page, "[data-testid=status]", "Your move");
    await context.close();
  });

  test("resigning and aborting ask first", async () => {
    const { page, context } = await stack.newPlayer();
    const gameId = await newGame(page, { variant: "chess", opponent: "engine", level: 1 });
    const questions: string[] = [];
    page.once("dialog", (dialog) => {
      questions.push(dialog.message());
      void dialog.dismiss();
    });
    await page.click("[data-testid=resign]");
    assert.match(questions[0] ?? "", /Resign/);
    // Declined: the game goes on.
    await clickSquare(page, "e2");
    await clickSquare(page, "e4");
    await waitForMoves(page, 2);
    const { game } = await stack.api.games.getGame({ gameId });
    assert.equal(game?.outcome?.status, OutcomeStatus.ONGOING);
    page.once("dialog", (dialog) => void dialog.accept());
    await page.click("[data-testid=resign]");
    await waitForText(page, "[data-testid=outcome]", "resign");

    const host = await stack.newPlayer();
    const waiting = await newGame(host.page, { variant: "chess", opponent: "friend" });
    await waitForText(host.page, "[data-testid=status]", "Waiting for your friend");
    host.page.once("dialog", (dialog) => {
      questions.push(dialog.message());
      void dialog.dismiss();
    });
    await host.page.click("[data-testid=abort]");
    assert.match(questions[1] ?? "", /Abort/);
    assert.equal((await stack.api.games.getGame({ gameId: waiting })).game?.outcome?.status, OutcomeStatus.ONGOING);
    host.page.once("dialog", (dialog) => void dialog.accept());
    await host.page.click("[data-testid=abort]");
    await waitForText(host.page, "[data-testid=outcome]", "Aborted");
    await context.close();
    await host.context.close();
  });

  test("the editor shows that a stalemate is already decided and offers no game from it", async () => {
    const { page, context } = await stack.newPlayer();
    await page.goto(`${stack.appUrl}/#/editor/chess`);
    await page.waitForSelector("[data-testid=valid]");
    await page.fill("[data-testid=fen]", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    await page.locator("[data-testid=fen]").dispatchEvent("change");
    assert.match(await waitForText(page, "[data-testid=decided]", "stalemate"), /already decided/);
    await screenshot(page, "editor-decided");
    await page.click("[data-testid=save-position]");
    await page.waitForSelector("[data-testid=decided-saved]");
    assert.equal(await page.locator("[data-testid=start-from-position]").count(), 0);
    await context.close();
  });

  test("the editor keeps a saved position's owner token in the browser and deletes the position with it", async () => {
    const { page, context } = await stack.newPlayer();
    await page.goto(`${stack.appUrl}/#/editor/chess`);
    await page.waitForSelector("[data-testid=valid]");
    await page.fill("[data-testid=position-name]", "to delete");
    await page.click("[data-testid=save-position]");
    const id = (await page.locator("[data-testid=position-id]").textContent()) ?? "";
    assert.ok(id);
    // Another visit, later: the position is listed with its Delete.
    await page.goto(`${stack.appUrl}/#/`);
    await page.reload();
    await page.goto(`${stack.appUrl}/#/editor/chess`);
    const row = page.locator(`[data-testid=my-positions] li[data-position-id="${id}"]`);
    await row.waitFor();
    assert.match((await row.textContent()) ?? "", /to delete/);
    page.once("dialog", (dialog) => void dialog.accept());
    await row.locator("[data-testid=delete-position]").click();
    await row.waitFor({ state: "detached" });
    const gone = await stack.api.positions.getPosition({ id }).catch((err: unknown) => err);
    assert.equal(errorReason(gone), Reason.POSITION_NOT_FOUND);
    await context.close();
  });

  test("a player challenges another by name; the other accepts, both open the game and play it as players; the rated result shows in their ratings and games", async () => {
    const alice = await signedInPlayer("alice");
    const bob = await signedInPlayer("bob");
    assert.equal(await alice.page.textContent("[data-testid=session]"), "Signed in as alice");
    await alice.page.waitForSelector("[data-testid=ratings] >> text=No rated games yet.");

    const form = alice.page.getByRole("form", { name: "Challenge a player" });
    await form.getByLabel("Opponent's username").fill("bob");
    await form.getByLabel("Clock").selectOption("5+0");
    await form.getByLabel("White / Red").check();
    await form.getByLabel("Rated").check();
    await form.getByRole("button", { name: "Send challenge" }).click();
    await alice.page.getByRole("listitem", { name: "Challenge to bob" }).waitFor();
    // Bob's page hears of it on his events stream, without a reload.
    const challenge = bob.page.getByRole("listitem", { name: "Challenge from alice" });
    await challenge.waitFor();
    assert.match((await challenge.textContent()) ?? "", /Chess, 5 min, rated, you play Black/);
    await screenshot(bob.page, "player-challenge");
    await challenge.getByRole("button", { name: "Accept" }).click();
    await bob.page.waitForSelector("[data-game-id]");
    const gameId = await shownGameId(bob.page);
    // Alice's page opens the game when it starts.
    await alice.page.waitForSelector(`[data-game-id="${gameId}"]`);
    const { game } = await stack.api.games.getGame({ gameId });
    assert.equal(game?.white?.playerId, "alice");
    assert.equal(game?.black?.playerId, "bob");
    assert.equal(game?.rated, true);

    // Both seats are played with the players' own tokens.
    await waitForText(alice.page, "[data-testid=status]", "Your move");
    assert.match((await alice.page.textContent("[data-testid=player-bottom]")) ?? "", /alice.*\(you\)/);
    await clickSquare(alice.page, "e2");
    await clickSquare(alice.page, "e4");
    assert.deepEqual(await waitForMoves(bob.page, 1), ["e4"]);
    await dragPiece(bob.page, "e7", "e5");
    assert.deepEqual(await waitForMoves(alice.page, 2), ["e4", "e5"]);
    await screenshot(alice.page, "player-game");
    bob.page.once("dialog", (dialog) => void dialog.accept());
    await bob.page.click("[data-testid=resign]");
    await waitForText(alice.page, "[data-testid=outcome]", "resign");
    // The ended rated game shows the seats' ratings and what they changed.
    assert.match(await waitForText(alice.page, "[data-testid=player-bottom]", "+"), /alice \(1500 \+\d+\) \(you\)/);
    assert.match((await alice.page.textContent("[data-testid=player-top]")) ?? "", /bob \(1500 -\d+\)/);

    // Alice's page: her new rating, and the game among hers.
    await alice.page.goto(`${stack.appUrl}/#/player`);
    const rating = alice.page.locator('[data-testid=ratings] tr[data-perf="chess_blitz"]');
    await rating.waitFor();
    const [perf, value, games] = await rating.locator("th, td").allTextContents();
    assert.equal(perf, "Chess blitz");
    assert.ok(Number.parseInt(value, 10) > 1500, value);
    assert.equal(games, "1");
    const listed = alice.page.locator(`[data-testid=my-games] a[href="#/game/${gameId}"]`);
    assert.match((await listed.textContent()) ?? "", /chess, you \(White\) against bob: white won by resignation/i);
    await screenshot(alice.page, "player-page");

    // Another browser signs in as Alice with her token, finds her game and
    // signs out.
    const token = await alice.page.getByLabel("Player token").inputValue();
    const elsewhere = await stack.newPlayer();
    await elsewhere.page.goto(`${stack.appUrl}/#/player`);
    const signIn = elsewhere.page.getByRole("form", { name: "Sign in with a token" });
    await signIn.getByLabel("Player token").fill("not-a-token");
    await signIn.getByRole("button", { name: "Sign in" }).click();
    await waitForText(elsewhere.page, "form[aria-label='Sign in with a token'] [role=alert]", "no player's token");
    assert.equal(await elsewhere.page.textContent("[data-testid=session]"), "Sign in");
    await signIn.getByLabel("Player token").fill(token);
    await signIn.getByRole("button", { name: "Sign in" }).click();
    await elsewhere.page.locator(`[data-testid=my-games] a[href="#/game/${gameId}"]`).click();
    await elsewhere.page.waitForSelector(`[data-game-id="${gameId}"]`);
    await elsewhere.page.getByRole("link", { name: "alice", exact: true }).click();
    await elsewhere.page.getByRole("button", { name: "Sign out" }).click();
    await elsewhere.page.getByRole("form", { name: "New player" }).waitFor();
    assert.equal(await elsewhere.page.textContent("[data-testid=session]"), "Sign in");
    for (const player of [alice, bob, elsewhere]) await player.context.close();
  });

  test("two players seeking the same time control are paired into one game; a seek cancelled leaves the pool", async () => {
    const carol = await signedInPlayer("carol");
    const dave = await signedInPlayer("dave");
    const seek = async (player: Player, clock: string) => {
      const form = player.page.getByRole("form", { name: "Find an opponent" });
      await form.getByLabel("Clock").selectOption(clock);
      await form.getByRole("button", { name: "Find an opponent" }).click();
    };
    // Closing the seek's stream withdraws it.
    await seek(carol, "1+0");
    await waitForText(carol.page, "[data-testid=seeking]", "Waiting for an opponent");
    assert.equal((await stack.api.players.listSeeks({})).seeks.length, 1);
    await carol.page.getByRole("button", { name: "Cancel" }).click();
    await carol.page.getByRole("form", { name: "Find an opponent" }).waitFor();
    for (let i = 0; i < 50 && (await stack.api.players.listSeeks({})).seeks.length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal((await stack.api.players.listSeeks({})).seeks.length, 0);

    await seek(carol, "3+2");
    await waitForText(carol.page, "[data-testid=seeking]", "Waiting for an opponent");
    await screenshot(carol.page, "player-seeking");
    await seek(dave, "3+2");
    await carol.page.waitForSelector("[data-game-id]");
    await dave.page.waitForSelector("[data-game-id]");
    const gameId = await shownGameId(carol.page);
    assert.equal(await shownGameId(dave.page), gameId);
    const { game } = await stack.api.games.getGame({ gameId });
    assert.deepEqual([game?.white?.playerId, game?.black?.playerId].sort(), ["carol", "dave"]);
    assert.equal(game?.clock?.control?.initialMs, 180_000n);
    const [white, black] = game?.white?.playerId === "carol" ? [carol, dave] : [dave, carol];
    await waitForText(white.page, "[data-testid=status]", "Your move");
    await clickSquare(white.page, "d2");
    await clickSquare(white.page, "d4");
    assert.deepEqual(await waitForMoves(black.page, 1), ["d4"]);
    await carol.context.close();
    await dave.context.close();
  });

  test("a platform's user signs in by a link carrying their identity provider's JWT, is challenged by name and plays; an expired JWT is told", async () => {
    const erin = await stack.newPlayer();
    const jwt = providerJwt("idp|erin", { preferred_username: "Erin", name: "Erin Example" });
    await erin.page.goto(`${stack.appUrl}/#/player?token=${encodeURIComponent(jwt)}`);
    await waitForText(erin.page, "[data-testid=session]", "Signed in as Erin");
    await erin.page.waitForSelector('[data-testid=player][data-player-id="idp|erin"]');
    // The token left the address bar; a short-lived JWT offers no
    // sign-in for other devices.
    assert.equal(new URL(erin.page.url()).hash, "#/player");
    assert.equal(await erin.page.getByLabel("Player token").count(), 0);

    // An enrolled player challenges Erin by her provider's username.
    const frank = await signedInPlayer("frank");
    const form = frank.page.getByRole("form", { name: "Challenge a player" });
    await form.getByLabel("Opponent's username").fill("erin");
    await form.getByLabel("Clock").selectOption("5+0");
    await form.getByLabel("White / Red").check();
    await form.getByRole("button", { name: "Send challenge" }).click();
    const challenge = erin.page.getByRole("listitem", { name: "Challenge from frank" });
    await challenge.waitFor();
    await challenge.getByRole("button", { name: "Accept" }).click();
    await erin.page.waitForSelector("[data-game-id]");
    const gameId = await shownGameId(erin.page);
    await frank.page.waitForSelector(`[data-game-id="${gameId}"]`);
    await clickSquare(frank.page, "e2");
    await clickSquare(frank.page, "e4");
    assert.deepEqual(await waitForMoves(erin.page, 1), ["e4"]);
    await dragPiece(erin.page, "c7", "c5");
    assert.deepEqual(await waitForMoves(frank.page, 2), ["e4", "c5"]);
    const { game } = await stack.api.games.getGame({ gameId });
    assert.equal(game?.black?.playerId, "idp|erin");
    assert.equal(game?.ply, 2);

    // An expired JWT, by the form: the page says so and nobody is signed in.
    const late = await stack.newPlayer();
    await late.page.goto(`${stack.appUrl}/#/player`);
    const signIn = late.page.getByRole("form", { name: "Sign in with a token" });
    await signIn.getByLabel("Player token").fill(providerJwt("idp|late", { exp: Math.floor(Date.now() / 1000) - 120 }));
    await signIn.getByRole("button", { name: "Sign in" }).click();
    await waitForText(late.page, "form[aria-label='Sign in with a token'] [role=alert]", "expired");
    assert.equal(await late.page.textContent("[data-testid=session]"), "Sign in");
    for (const player of [erin, frank, late]) await player.context.close();
  });

  test("the pages carry a strict Content-Security-Policy, which no page of these tests broke", async (t) => {
    if (!stack.appHeaders) {
      t.skip("the binary serves no app");
      return;
    }
    const { page, context } = await stack.newPlayer();
    const answer = await page.goto(`${stack.appUrl}/`);
    const headers = answer?.headers() ?? {};
    const policy = headers["content-security-policy"] ?? "";
    assert.match(policy, /frame-ancestors 'none'/);
    assert.match(policy, /script-src 'self'/);
    assert.doesNotMatch(policy, /unsafe/);
    assert.equal(headers["x-frame-options"], "DENY");
    assert.equal(headers["referrer-policy"], "no-referrer");
    await page.goto(`${stack.appUrl}/#/editor/xiangqi`);
    await page.waitForSelector("[data-testid=valid]");
    await context.close();
    assert.deepEqual(stack.cspViolations, []);
  });
});
