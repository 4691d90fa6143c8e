// @arbiter/client: the API's messages and services as protobuf-es generates
// them from proto/, a grpc-web connection to a server, the reasons of its
// errors, and WatchGame resumed across dropped streams.

export * from "./gen/arbiter/v1/common_pb.js";
export * from "./gen/arbiter/v1/engine_pb.js";
export * from "./gen/arbiter/v1/games_pb.js";
export * from "./gen/arbiter/v1/players_pb.js";
export * from "./gen/arbiter/v1/positions_pb.js";
export * from "./gen/arbiter/v1/rules_pb.js";
export * from "./gen/google/rpc/error_details_pb.js";
export * from "./gen/reasons.js";
export * from "./errors.js";
export * from "./transport.js";
export * from "./watch.js";
export { create } from "@bufbuild/protobuf";
export { Code, ConnectError } from "@connectrpc/connect";
