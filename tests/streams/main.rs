//! Watch streams: WatchGame resumed from a version, WatchPlayer, and watchers
//! that stall, flood or leave.

#[path = "../common/mod.rs"]
mod common;

mod player_events;
mod player_stream;
mod watch_resume;
mod watchers;
