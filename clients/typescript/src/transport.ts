// One grpc-web connection to an Arbiter server and a client for each of its
// services.

import { type Client, createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { Engine } from "./gen/arbiter/v1/engine_pb.js";
import { Games } from "./gen/arbiter/v1/games_pb.js";
import { Players } from "./gen/arbiter/v1/players_pb.js";
import { Positions } from "./gen/arbiter/v1/positions_pb.js";
import { Rules } from "./gen/arbiter/v1/rules_pb.js";

/** The five services of an Arbiter server. */
export interface Arbiter {
  rules: Client<typeof Rules>;
  positions: Client<typeof Positions>;
  games: Client<typeof Games>;
  engine: Client<typeof Engine>;
  /** Calls made as a player carry `authorization: Bearer <token>` in their `headers`. */
  players: Client<typeof Players>;
}

export interface ArbiterOptions {
  /** Runs around every call (headers, logging, ...). */
  interceptors?: Interceptor[];
  /** The fetch to send with (the global one unless set). */
  fetch?: typeof globalThis.fetch;
}

/**
 * Clients of the server at `baseUrl` (`http://127.0.0.1:50051`, or the
 * page's own origin when the server serves the page), over grpc-web in
 * binary form: it runs in browsers, and in Node.js with its fetch.
 */
export function createArbiter(baseUrl: string, options: ArbiterOptions = {}): Arbiter {
  const transport = createGrpcWebTransport({
    baseUrl,
    useBinaryFormat: true,
    interceptors: options.interceptors,
    fetch: options.fetch,
  });
  return {
    rules: createClient(Rules, transport),
    positions: createClient(Positions, transport),
    games: createClient(Games, transport),
    engine: createClient(Engine, transport),
    players: createClient(Players, transport),
  };
}
