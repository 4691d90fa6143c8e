//! Storage and replicas: PostgreSQL, several servers on one database, the
//! write path's durability and batching, a full disk, and the game search at
//! scale.

#[path = "../common/mod.rs"]
mod common;

mod full_disk;
mod import_kill;
mod list_scale;
mod player_replicas;
mod postgres;
mod replicas;
mod write_path;
