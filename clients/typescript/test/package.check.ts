// The package as a frontend gets it: packed by `npm pack`, installed from
// the tarball into a fresh project elsewhere, type-checked there against
// its declarations, and run under Node.js against a real server. Apart
// from `npm test` (`npm run test:package`): it installs the package's
// dependencies from the registry.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { Reason } from "../src/index.js";
import { type RunningServer, startServer } from "./server.js";

const LIMIT = { timeout: 300_000 };
const packageDir = resolve(import.meta.dirname, "..");
const tsc = join(packageDir, "node_modules", ".bin", "tsc");

/** What the consumer does with the installed package, against the server at `url`. */
const consumer = (url: string) => `
import { createArbiter, errorReason, GameEventKind, Reason, Variant, watchGame } from "@arbiter/client";

const arbiter = createArbiter(${JSON.stringify(url)});
const { game, whiteToken, blackToken } = await arbiter.games.createGame({
  variant: Variant.CHESS,
  white: { displayName: "Ada" },
  black: { displayName: "Blaise" },
});
const id: string = game!.id;
const stop = new AbortController();
const seen: string[] = [];
// The moves come after the snapshot, so that each is a MOVE event.
let watched!: () => void;
const snapshot = new Promise<void>((resolve) => (watched = resolve));
const watching = (async () => {
  for await (const event of watchGame(arbiter.games, id, { signal: stop.signal })) {
    if (event.kind === GameEventKind.SNAPSHOT) watched();
    if (event.kind === GameEventKind.MOVE) seen.push(event.move!.move!.san);
    if (seen.length === 2) return;
  }
})();
await snapshot;
await arbiter.games.makeMove({ gameId: id, seatToken: whiteToken, move: "e4" });
const refused = await arbiter.games.makeMove({ gameId: id, seatToken: blackToken, move: "e7e4" }).catch((e: unknown) => e);
await arbiter.games.makeMove({ gameId: id, seatToken: blackToken, move: "e5" });
await watching;
console.log(JSON.stringify({ seen, refused: errorReason(refused), known: errorReason(refused) === Reason.CANNOT_MOVE_THAT_WAY }));
`;

let server: RunningServer;
let scratch: string;

before(async () => {
  server = await startServer();
  scratch = mkdtempSync(join(tmpdir(), "arbiter-client-package-"));
});

after(async () => {
  await server?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
}

test("the packed client installs in a fresh project, type-checks there and plays against a server", LIMIT, async () => {
  const packed = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", scratch], packageDir)) as {
    filename: string;
    files: { path: string }[];
  }[];
  const files = packed[0].files.map((file) => file.path);
  assert.ok(files.includes("dist/index.js") && files.includes("dist/index.d.ts"), files.join(", "));
  assert.ok(!files.some((path) => path.startsWith("src/") || path.startsWith("test/")), "only the build ships");

  const project = join(scratch, "frontend");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "frontend", private: true, type: "module" }));
  run("npm", ["install", "--no-audit", "--no-fund", "--silent", join(scratch, packed[0].filename)], project);
  assert.ok(readdirSync(join(project, "node_modules", "@arbiter", "client", "dist")).includes("index.js"));

  writeFileSync(join(project, "main.ts"), consumer(server.url));
  run(
    tsc,
    ["--strict", "--target", "ES2022", "--module", "NodeNext", "--moduleResolution", "NodeNext", "--lib", "ES2022,DOM", "main.ts"],
    project,
  );
  const answer = JSON.parse(run("node", ["main.js"], project)) as { seen: string[]; refused: string; known: boolean };
  assert.deepEqual(answer, { seen: ["e4", "e5"], refused: Reason.CANNOT_MOVE_THAT_WAY, known: true });
});
