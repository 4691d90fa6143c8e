//! Game events as the gRPC frames of their `WatchGameResponse` messages,
//! encoded once per view by the games' hub and shared by every watcher.

use bytes::{BufMut, Bytes};
use prost::Message;
use tonic::Status;

use super::{convert, error::ErrorStatus, proto as pb};
use crate::{
    games::{EventKind, GameEvent, GameView, Status as GameStatus, View},
    reason::Reason,
};

/// Bytes before a message in its gRPC frame: a compression flag (0: not
/// compressed) and the message's length (4 bytes, big-endian).
const FRAME_HEADER: usize = 5;

/// `message` in its gRPC frame, as it goes on the wire.
fn framed(message: &pb::WatchGameResponse) -> Bytes {
    let len = message.encoded_len();
    let mut frame = Vec::with_capacity(FRAME_HEADER + len);
    frame.put_u8(0);
    frame.put_u32(u32::try_from(len).unwrap_or(u32::MAX));
    // Encoding into a `Vec` cannot fail: it grows.
    let _ = message.encode(&mut frame);
    Bytes::from(frame)
}

/// The message in a frame made by [`framed`].
pub(super) fn unframed(frame: &Bytes) -> Result<pb::WatchGameResponse, Status> {
    pb::WatchGameResponse::decode(frame.slice(FRAME_HEADER.min(frame.len())..)).map_err(|e| {
        ErrorStatus::new(
            Reason::InternalError,
            format!("an encoded event does not decode: {e}"),
        )
        .into()
    })
}

/// The messages a watcher of `view` receives for `event`, each in its gRPC
/// frame: the event, and `GAME_ENDED` after a move that ended the game.
pub fn encode_event(event: GameEvent<'_>, view: View) -> Vec<Bytes> {
    let kind = match event.kind {
        EventKind::Move => pb::GameEventKind::Move,
        EventKind::DrawOffered => pb::GameEventKind::DrawOffered,
        EventKind::DrawDeclined => pb::GameEventKind::DrawDeclined,
        EventKind::TakebackProposed => pb::GameEventKind::TakebackProposed,
        EventKind::TakebackAccepted => pb::GameEventKind::TakebackAccepted,
        EventKind::TakebackDeclined => pb::GameEventKind::TakebackDeclined,
        EventKind::SeatJoined => pb::GameEventKind::SeatJoined,
        EventKind::RematchOffered => pb::GameEventKind::RematchOffered,
        EventKind::RematchDeclined => pb::GameEventKind::RematchDeclined,
        EventKind::RematchStarted => pb::GameEventKind::RematchStarted,
        EventKind::DrawAccepted
        | EventKind::DrawClaimed
        | EventKind::Resigned
        | EventKind::VictoryClaimed
        | EventKind::Aborted
        | EventKind::Flagged => pb::GameEventKind::GameEnded,
    };
    let mut message = pb::WatchGameResponse {
        kind: kind as i32,
        game: Some(convert::game_in(event.game, view)),
        r#move: event.played.map(convert::played_move),
    };
    let mut messages = vec![framed(&message)];
    if event.game.outcome.status != GameStatus::Ongoing
        && kind != pb::GameEventKind::GameEnded
        && !event.kind.after_end()
    {
        message.kind = pb::GameEventKind::GameEnded as i32;
        message.r#move = None;
        messages.push(framed(&message));
    }
    messages
}

/// The `SNAPSHOT` message of `game`, framed.
pub(super) fn snapshot(game: &GameView) -> Bytes {
    framed(&pb::WatchGameResponse {
        kind: pb::GameEventKind::Snapshot as i32,
        game: Some(convert::game(game)),
        r#move: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame is the gRPC header (not compressed, the length) and prost's
    /// bytes, and gives the message back.
    #[test]
    fn frames_hold_prosts_bytes() {
        let message = pb::WatchGameResponse {
            kind: pb::GameEventKind::DrawOffered as i32,
            game: Some(pb::Game {
                id: "x".repeat(300),
                version: 7,
                ..Default::default()
            }),
            r#move: None,
        };
        let encoded = message.encode_to_vec();
        let frame = framed(&message);
        assert_eq!(frame[0], 0, "not compressed");
        assert_eq!(
            frame[1..5],
            u32::try_from(encoded.len()).unwrap().to_be_bytes()
        );
        assert_eq!(frame[5..], encoded[..]);
        assert_eq!(unframed(&frame).unwrap(), message);
    }
}
