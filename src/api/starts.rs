//! Chess960 start numbers in and out.

use tonic::Status;

use super::error::invalid_argument;
use crate::{
    reason::Reason,
    rules::{Variant, chess::Chess960Start},
};

/// A Chess960 game's or challenge's start number, if it starts from one.
pub fn chess960_number(variant: Variant, fen: &str) -> Option<u32> {
    (variant == Variant::Chess960)
        .then(|| Chess960Start::of_fen(fen))
        .flatten()
        .map(|start| u32::from(start.number()))
}

/// A Chess960 start number; past 959 is INVALID_ARGUMENT `VALUE_OUT_OF_RANGE`.
pub fn chess960_start(number: u32) -> Result<Chess960Start, Status> {
    u16::try_from(number)
        .ok()
        .and_then(Chess960Start::new)
        .ok_or_else(|| {
            invalid_argument(
                "chess960_start",
                Reason::ValueOutOfRange,
                format!("Chess960 start {number} does not exist: starts are numbered 0-959"),
            )
        })
}
