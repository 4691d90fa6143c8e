// A real `arbiter serve` for the tests: the binary of $ARBITER_BIN (the
// cargo target's debug build unless set), on a free port of 127.0.0.1 and a
// fresh SQLite file in a temporary directory, both gone when it stops.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** How long the server may take to come up. */
const COMING_UP_MS = 10_000;

const repo = resolve(import.meta.dirname, "../../..");

/** The binary to run. */
export function arbiterBinary(): string {
  return process.env.ARBITER_BIN ?? join(process.env.CARGO_TARGET_DIR ?? join(repo, "target"), "debug", "arbiter");
}

export interface RunningServer {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Starts a server (with `args` after the listen address and database) and waits until it accepts connections. */
export async function startServer(args: string[] = []): Promise<RunningServer> {
  const dir = mkdtempSync(join(tmpdir(), "arbiter-client-"));
  const port = await freePort();
  const child = spawn(
    arbiterBinary(),
    ["serve", "--listen", `127.0.0.1:${port}`, "--database-url", `sqlite://${join(dir, "arbiter.db")}`, ...args],
    { env: { ...process.env, RUST_LOG: "warn" }, stdio: ["ignore", "inherit", "inherit"] },
  );
  const exited = new Promise<never>((_, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => reject(new Error(`arbiter serve exited (${code ?? signal})`)));
  });
  exited.catch(() => {});
  try {
    await Promise.race([accepting(port), exited]);
  } catch (error) {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    stop: async () => {
      await kill(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A port of 127.0.0.1 that nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Resolves once `port` accepts a connection, retried for at most {@link COMING_UP_MS}. */
async function accepting(port: number): Promise<void> {
  const deadline = Date.now() + COMING_UP_MS;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`arbiter serve did not come up on port ${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

/**
 * A TCP relay to the server on `port` whose connections the test can cut,
 * and keep cut (new ones are dropped at once) until it restores them: what
 * a watcher sees when its network fails.
 */
export interface Relay {
  url: string;
  /** Drops every connection, and every new one until {@link Relay.restore}. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startRelay(port: number): Promise<Relay> {
  const sockets = new Set<Socket>();
  let cut = false;
  const server: Server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = connect(port, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  const relayPort = await new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)),
  );
  const dropAll = () => {
    for (const socket of sockets) {
      socket.destroy();
    }
  };
  return {
    url: `http://127.0.0.1:${relayPort}`,
    cut: () => {
      cut = true;
      dropAll();
    },
    restore: () => {
      cut = false;
    },
    close: () => {
      dropAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
