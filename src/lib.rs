//! Arbiter: referees and manages chess and xiangqi games for other programs.
//!
//! The crate is a stack of layers; each imports only layers below it, and
//! nothing imports upward. From the bottom:
//!
//! | layer | what it is | may import |
//! |---|---|---|
//! | [`rules`] | the exact rules of both games behind the [`rules::Game`] trait: moves, notations, FEN, outcomes, perft; no I/O | nothing |
//! | [`peers`] | per-address shares (slots and rates), the fairness every limit builds on | nothing |
//! | [`store`] | SQLite or PostgreSQL through sqlx: the stored shapes of games and positions (columns decoded once into the rules' types), the one-way write path, the change feed between replicas; SQL only | `rules` |
//! | [`reason`] | every reason an error of the API gives, and its kind of refusal | `rules` |
//! | [`engine`] | the search, generic over [`rules::Game`] | `rules` |
//! | [`analysis`] | the engine as a service: jobs, two pools of slots, turns between callers, external UCI engines' processes; the formulas that judge a game's moves | `engine`, `rules`, `peers` |
//! | [`games`] | game management: the model (`games::model`) under the services (create, moves and actions, offers, seats, rematches, engine seats, watching) | `store`, `analysis`, `engine`, `reason`, `rules` |
//! | [`players`] | accounts that own seats across games: usernames, player tokens, who may create players | `games` and everything below it |
//! | [`api`] | the gRPC API: requests into domain calls, domain errors into statuses; who calls (`authorization` metadata) | `players` and everything below it |
//! | [`lichess`] | the Lichess Bot and Board API: HTTP and NDJSON translated into calls of the gRPC services | `api` and everything below it |
//! | [`server`] | the process that serves the API: the composition root, the accept loop, limits per connection and address, TLS, request layers, web app, metrics, memory and logs | `lichess` and everything below |
//! | [`cli`] | the `arbiter` commands: `serve`, `uci`, `perft` | `server` and everything below |
//!
//! `docs/architecture.md` draws the layers and follows a MakeMove and a
//! WatchGame event through them.

pub mod analysis;
pub mod api;
pub mod cli;
pub mod engine;
pub mod games;
pub mod lichess;
pub mod peers;
pub mod players;
pub mod reason;
pub mod rules;
pub mod server;
pub mod store;
