// What the browser tests run against: a real `arbiter serve` on a free port
// with a fresh SQLite database, the built app (served by the binary itself,
// or by a small static server in front of it when the binary serves no app,
// or with ARBITER_WEB_DIST=1 one built after the binary embedded another),
// and Debian's Chromium driven by playwright-core (which never downloads a
// browser of its own).

import { spawn, type ChildProcess } from "node:child_process";
import { createSign } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, existsSync, copyFileSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { createArbiter, type Arbiter } from "@arbiter/client";

const webDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const screenshotDir = join(webDir, "test-results", "screenshots");
const docsDir = resolve(webDir, "..", "docs");
/** The RSA test key pair the server trusts as its identity provider's. */
const jwtDir = resolve(webDir, "..", "tests", "fixtures", "jwt");
const jwk = JSON.parse(readFileSync(join(jwtDir, "rs256-test-key.jwk.json"), "utf8")) as { kid: string };

/** A JWT of the identity provider the test server trusts (RS256, the
 * test key), naming player `sub`; `claims` over an hour to live. */
export function providerJwt(sub: string, claims: Record<string, unknown> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const signed = `${part({ alg: "RS256", typ: "JWT", kid: jwk.kid })}.${part({ sub, iat: now, exp: now + 3600, ...claims })}`;
  const signature = createSign("RSA-SHA256").update(signed).sign(readFileSync(join(jwtDir, "rs256-test-key.pem")));
  return `${signed}.${signature.toString("base64url")}`;
}

/** The server binary: ARBITER_BIN, else the workspace's debug build. */
const arbiterBin = process.env.ARBITER_BIN ?? resolve(webDir, "../target/debug/arbiter");
const chromiumBin = process.env.CHROMIUM_BIN ?? "/usr/bin/chromium";

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
];

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createNetServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => done(typeof address === "object" && address ? address.port : 0));
    });
  });
}

async function waitFor<T>(what: string, attempt: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One player: a browser context of its own (its own storage) with a page. */
export interface Player {
  context: BrowserContext;
  page: Page;
}

export interface Stack {
  /** The page's address: the app, whose grpc-web calls reach the server. */
  appUrl: string;
  /** Whether the pages carry the headers the binary serves its app with:
   * it serves the app, or (ARBITER_WEB_DIST=1) the tests serve web/dist
   * with them. */
  appHeaders: boolean;
  /** What the pages' Content-Security-Policy refused, as Chromium reports it. */
  cspViolations: string[];
  /** A Node client of the same server, for what the tests check beside the page. */
  api: Arbiter;
  browser: Browser;
  /** A fresh browser context (its own storage: another player) with a page. */
  newPlayer(): Promise<Player>;
  /** Stops the server (SIGTERM) and waits until it has exited. */
  stopServer(): Promise<void>;
  /** Starts the server again, on the same port and database. */
  startServer(): Promise<void>;
  stop(): Promise<void>;
}

export async function startStack(): Promise<Stack> {
  if (!existsSync(arbiterBin)) throw new Error(`no server binary at ${arbiterBin} (build it, or set ARBITER_BIN)`);
  if (!existsSync(join(webDir, "dist", "index.html"))) throw new Error("no web/dist: run `npm run build` first");
  const dir = mkdtempSync(join(tmpdir(), "arbiter-web-test-"));
  const port = await freePort();
  const serverUrl = `http://127.0.0.1:${port}`;
  const api = createArbiter(serverUrl);
  const jwks = join(dir, "jwks.json");
  writeFileSync(jwks, JSON.stringify({ keys: [jwk] }));
  let serverLog = "";
  let server: ChildProcess | undefined;
  const startServer = async () => {
    const child = spawn(
      arbiterBin,
      ["serve", "--listen", `127.0.0.1:${port}`, "--database-url", `sqlite://${join(dir, "arbiter.db")}`, "--auth-jwks", jwks],
      { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, RUST_LOG: "warn" } },
    );
    server = child;
    child.stderr?.on("data", (chunk: Buffer) => (serverLog = (serverLog + chunk.toString()).slice(-4000)));
    await waitFor("the server", async () => (await api.rules.validatePosition({ position: { variant: 1 } })) && true).catch(
      (err: unknown) => {
        child.kill("SIGKILL");
        throw new Error(`${String(err)}\n${serverLog}`);
      },
    );
  };
  const stopServer = async () => {
    const child = server;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  };
  await startServer();
  // The binary serves the app itself when it embeds one; else, or when
  // asked to test this checkout's build, serve dist/ (with the binary's
  // headers, where it has an app).
  const answer = await fetch(`${serverUrl}/`).catch(() => undefined);
  const embedded = Boolean(answer?.ok && (await answer.text()).includes('id="app"'));
  const headers = embedded ? securityHeaders(answer?.headers) : {};
  const front = embedded && process.env.ARBITER_WEB_DIST !== "1" ? undefined : await serveDist(serverUrl, headers);
  const appUrl = front ? front.url : serverUrl;
  console.log(`app served by ${front ? "the tests, from web/dist" : "the binary"}`);
  const browser = await chromium.launch({ executablePath: chromiumBin, headless: true, args: CHROMIUM_ARGS });
  mkdirSync(screenshotDir, { recursive: true });
  const cspViolations: string[] = [];
  return {
    appUrl,
    appHeaders: embedded,
    cspViolations,
    api,
    browser,
    async newPlayer() {
      const context = await browser.newContext({ viewport: { width: 1100, height: 760 }, acceptDownloads: true });
      const page = await context.newPage();
      page.on("pageerror", (err) => console.error(`page error: ${err.message}`));
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
      });
      return { context, page };
    },
    stopServer,
    startServer,
    async stop() {
      await browser.close();
      front?.server.close();
      await stopServer();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".svg": "image/svg+xml",
};

/** The headers that guard the binary's pages (its Content-Security-Policy
 * and the like), to serve web/dist with. */
function securityHeaders(headers: Headers | undefined): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of headers ?? []) {
    if (/^(content-security-policy|x-frame-options|referrer-policy|x-content-type-options|cross-origin-.*|permissions-policy)$/.test(name)) kept[name] = value;
  }
  return kept;
}

/** Serves dist/ (with `headers`) and passes every other request (grpc-web
 * calls) to the server. */
async function serveDist(serverUrl: string, headers: Record<string, string>): Promise<{ url: string; server: Server }> {
  const target = new URL(serverUrl);
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET" && !path.includes("..")) {
      const file = join(webDir, "dist", path === "/" ? "index.html" : path);
      if (existsSync(file)) {
        res.writeHead(200, { ...headers, "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
        res.end(readFileSync(file));
        return;
      }
    }
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${port}`, server };
}

/** Saves a screenshot of the page; with ARBITER_DOCS_SCREENSHOTS=1 also as
 * docs/NAME.png, for the README. */
export async function screenshot(page: Page, name: string, forDocs = false): Promise<void> {
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path });
  if (forDocs && process.env.ARBITER_DOCS_SCREENSHOTS === "1") {
    mkdirSync(docsDir, { recursive: true });
    copyFileSync(path, join(docsDir, `${name}.png`));
  }
}

/** Clicks a board square (or point) by its API name. */
export async function clickSquare(page: Page, square: string): Promise<void> {
  await page.click(`rect.hit[data-square="${square}"]`);
}

/** Drags the piece on `from` to `to` with the mouse. */
export async function dragPiece(page: Page, from: string, to: string): Promise<void> {
  const centre = async (square: string) => {
    const box = await page.locator(`rect.hit[data-square="${square}"]`).boundingBox();
    if (!box) throw new Error(`no square ${square}`);
    return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  };
  const a = await centre(from);
  const b = await centre(to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 4 });
  await page.mouse.move(b.x, b.y, { steps: 4 });
  await page.mouse.up();
}

/** Drags the piece `letter` from its side's Crazyhouse pocket to `to`. */
export async function dragPocketPiece(page: Page, letter: string, to: string): Promise<void> {
  const side = letter === letter.toUpperCase() ? "white" : "black";
  const piece = await page.locator(`[data-testid=pocket-${side}] [data-pocket-piece="${letter}"]`).boundingBox();
  const square = await page.locator(`rect.hit[data-square="${to}"]`).boundingBox();
  if (!piece || !square) throw new Error(`no pocket piece ${letter} or no square ${to}`);
  const a = { x: piece.x + piece.width / 2, y: piece.y + piece.height / 2 };
  const b = { x: square.x + square.width / 2, y: square.y + square.height / 2 };
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 4 });
  await page.mouse.move(b.x, b.y, { steps: 4 });
  await page.mouse.up();
}

/** The moves the page's move list shows, in order. */
export async function shownMoves(page: Page): Promise<string[]> {
  const cells = await page.locator("[data-testid=moves] td[data-ply]").allTextContents();
  return cells.filter((c) => c.length > 0);
}

/** The game id of the game screen the page shows. */
export async function shownGameId(page: Page): Promise<string> {
  const id = await page.locator("[data-game-id]").getAttribute("data-game-id");
  if (!id) throw new Error("no game on the page");
  return id;
}

/** Waits until the element `selector` shows a text containing `text`. */
export async function waitForText(page: Page, selector: string, text: string, timeoutMs = 15_000): Promise<string> {
  await page.waitForFunction(
    ([sel, want]) => document.querySelector(sel)?.textContent?.includes(want) ?? false,
    [selector, text] as const,
    { timeout: timeoutMs },
  );
  return (await page.textContent(selector)) ?? "";
}

/** Waits until the move list shows `count` moves. */
export async function waitForMoves(page: Page, count: number, timeoutMs = 15_000): Promise<string[]> {
  await page.waitForFunction(
    (n) => Array.from(document.querySelectorAll("[data-testid=moves] td[data-ply]")).filter((c) => c.textContent).length >= n,
    count,
    { timeout: timeoutMs },
  );
  return shownMoves(page);
}
