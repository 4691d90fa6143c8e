// The Lichess variants in a real browser against a real server: the forms
// offer them (and the URL picks one), boards start from each variant's own
// start, a Crazyhouse capture fills the capturer's pocket and its pieces
// are dropped by clicks and by a drag, and Three-check counts each side's
// checks up to the third, which wins.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Variant } from "@arbiter/client";
import type { Page } from "playwright-core";
import { clickSquare, dragPocketPiece, screenshot, startStack, waitForMoves, waitForText, type Stack } from "./harness";

let stack: Stack;

before(async () => {
  stack = await startStack();
});

after(async () => {
  await stack?.stop();
});

/** A game of `variant` between two seats; the page plays White's by its
 * link, `black` plays Black's moves through the API. */
async function whiteSeatGame(variant: Variant): Promise<{ page: Page; close: () => Promise<void>; black: (move: string) => Promise<void> }> {
  const created = await stack.api.games.createGame({ variant, white: { displayName: "Ada" }, black: { displayName: "Blaise" } });
  const gameId = created.game?.id ?? "";
  const { page, context } = await stack.newPlayer();
  await page.goto(`${stack.appUrl}/#/game/${gameId}/white/${created.whiteToken}`);
  await page.waitForSelector("[data-game-id]");
  let ply = 0;
  const black = async (move: string) => {
    await waitForMoves(page, ply + 1);
    await stack.api.games.makeMove({ gameId, seatToken: created.blackToken, move });
    ply += 2;
    await waitForMoves(page, ply);
    await waitForText(page, "[data-testid=status]", "Your move");
  };
  return { page, close: () => context.close(), black };
}

/** White moves by clicking `from`, then `to` once it shows as a destination. */
async function clickMove(page: Page, from: string, to: string): Promise<void> {
  await clickSquare(page, from);
  await page.waitForSelector(`[data-dest="${to}"]`);
  await clickSquare(page, to);
}

describe("Lichess variants", () => {
  test("the forms offer the variants, the URL picks one, and each board starts from its variant's start", async () => {
    const { page, context } = await stack.newPlayer();
    await page.goto(`${stack.appUrl}/#/?variant=racingKings`);
    await page.waitForSelector("[data-testid=new-game]");
    const labels = await page.locator("input[name=variant]").evaluateAll((inputs) =>
      inputs.map((input) => input.parentElement?.textContent?.trim()),
    );
    for (const label of ["Crazyhouse", "Antichess", "Atomic", "Horde", "King of the Hill", "Racing Kings", "Three-check"]) {
      assert.ok(labels.includes(label), `${label} in ${labels.join(", ")}`);
    }
    assert.equal(await page.isChecked("input[name=variant][value=racingKings]"), true);
    await page.check("input[name=opponent][value=friend]");
    await page.click("[data-testid=start]");
    await page.waitForSelector("[data-game-id]");
    // Racing Kings: both sides on the first two ranks, White's king on h2.
    await page.waitForSelector('g.piece[data-square="h2"][data-piece="K"]');
    await page.waitForSelector('g.piece[data-square="a1"][data-piece="q"]');

    // The editor sets up Horde from its own start: White's pawns fill rank 1.
    await page.goto(`${stack.appUrl}/#/editor/horde`);
    await page.waitForSelector('[data-testid=editor][data-variant="horde"]');
    await page.waitForSelector('g.piece[data-square="a1"][data-piece="P"]');
    await page.waitForSelector("[data-testid=valid]");
    assert.equal(await page.inputValue("[data-testid=editor-variant]"), "horde");
    await context.close();
  });

  test("a Crazyhouse capture goes to the pocket, and its pieces are dropped by clicks and by a drag", async () => {
    const { page, close, black } = await whiteSeatGame(Variant.CRAZYHOUSE);
    const pocketPiece = (letter: string, count: number) =>
      `[data-testid=pocket-${letter === letter.toUpperCase() ? "white" : "black"}] [data-pocket-piece="${letter}"][data-count="${count}"]`;
    await page.waitForSelector(pocketPiece("P", 0));
    await clickMove(page, "e2", "e4");
    await black("d5");
    await clickMove(page, "e4", "d5");
    await page.waitForSelector(pocketPiece("P", 1));
    await black("Qxd5");
    await page.waitForSelector(pocketPiece("p", 1));
    // The pawn is dropped by clicks: the pocket piece, then a legal square.
    await page.click(pocketPiece("P", 1));
    await page.waitForSelector(`${pocketPiece("P", 1)}.selected`);
    await page.waitForSelector('[data-dest="e3"]');
    assert.equal(await page.locator('[data-dest="e8"], [data-dest="d5"]').count(), 0, "no drop on the last rank or on a piece");
    await screenshot(page, "crazyhouse-drop");
    await clickSquare(page, "e3");
    assert.match((await waitForMoves(page, 5))[4], /^P?@e3$/);
    await page.waitForSelector('g.piece[data-square="e3"][data-piece="P"]');
    await page.waitForSelector(pocketPiece("P", 0));
    // The queen taken goes to White's pocket and is dragged onto d4.
    await black("Qxa2");
    await clickMove(page, "a1", "a2");
    await page.waitForSelector(pocketPiece("Q", 1));
    await black("Nf6");
    await dragPocketPiece(page, "Q", "d4");
    assert.equal((await waitForMoves(page, 9))[8], "Q@d4");
    await page.waitForSelector('g.piece[data-square="d4"][data-piece="Q"]');
    await page.waitForSelector(pocketPiece("Q", 0));
    await close();
  });

  test("Three-check counts each side's checks, and the third wins", async () => {
    const { page, close, black } = await whiteSeatGame(Variant.THREE_CHECK);
    await waitForText(page, "[data-testid=checks-white]", "0 checks given");
    await clickMove(page, "e2", "e4");
    await black("d6");
    await clickMove(page, "f1", "b5");
    assert.equal((await waitForMoves(page, 3))[2], "Bb5+");
    await waitForText(page, "[data-testid=checks-white]", "1 check");
    assert.equal(await page.textContent("[data-testid=checks-black]"), "0 checks given");
    await screenshot(page, "three-check");
    await black("c6");
    await clickMove(page, "b5", "c6");
    await waitForText(page, "[data-testid=checks-white]", "2 checks");
    await black("Nxc6");
    await clickMove(page, "d1", "h5");
    await black("a6");
    await clickMove(page, "h5", "f7");
    await waitForText(page, "[data-testid=checks-white]", "3 checks");
    const outcome = await waitForText(page, "[data-testid=outcome]", "won");
    assert.equal(outcome, "White won by giving three checks.");
    await close();
  });
});
