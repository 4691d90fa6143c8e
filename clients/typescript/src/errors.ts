// The ErrorInfo that every error of the API carries, read from a
// ConnectError: which case it is (the reason) and its details (metadata).

import { ConnectError } from "@connectrpc/connect";
import { type ErrorInfo, ErrorInfoSchema } from "./gen/google/rpc/error_details_pb.js";
import { ERROR_DOMAIN, type Reason } from "./gen/reasons.js";

/**
 * The API's ErrorInfo of `error`, or undefined when `error` is not an error
 * the server answered (a network failure, a cancelled call, a bug).
 */
export function errorInfo(error: unknown): ErrorInfo | undefined {
  if (!(error instanceof ConnectError)) {
    return undefined;
  }
  return error.findDetails(ErrorInfoSchema).find((info) => info.domain === ERROR_DOMAIN);
}

/**
 * The reason of `error` (one of {@link Reason}), or undefined when the server
 * did not answer it. A server newer than this client may send a reason this
 * client has no constant for: it is returned as it is.
 */
export function errorReason(error: unknown): Reason | (string & {}) | undefined {
  return errorInfo(error)?.reason;
}

/** The ErrorInfo metadata `key` of `error` (`current_ply`, `limit`, ...). */
export function errorMetadata(error: unknown, key: string): string | undefined {
  return errorInfo(error)?.metadata[key];
}

/**
 * The sentence for people that `error` carries (the server's message, which
 * names the problem: "the horse's leg is blocked at e9", ...), without the
 * `[code]` prefix that ConnectError's own `message` adds.
 */
export function errorMessage(error: unknown): string {
  if (error instanceof ConnectError) {
    return error.rawMessage;
  }
  return error instanceof Error ? error.message : String(error);
}
