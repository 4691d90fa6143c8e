//! The moves of a live game, kept compactly between its changes: per ply,
//! its texts in one string shared by every ply (coordinates, FEN after,
//! SAN or WXF, Chinese, squares) and a few bytes beside. A change gets the
//! stored moves back from them, a view its moves in every notation, with
//! neither a replay nor the rules.

use super::model::{GameError, MoveView};
use crate::{
    rules::{MoveDescription, MoveText, Side, referee::PlayedMove},
    store::StoredMove,
};

/// The moves of a game (see the module docs).
#[derive(Debug, Default)]
pub(super) struct Plies {
    /// The plies' texts, one after another, in the order of [`Texts`].
    text: String,
    plies: Vec<Ply>,
}

/// One ply's texts in [`Plies::text`], by their lengths, in this order.
#[derive(Clone, Copy)]
enum Texts {
    Uci,
    Fen,
    San,
    Chinese,
    From,
    To,
    /// The coordinates as described, where they differ from the stored.
    Described,
}

#[derive(Clone, Copy, Debug)]
struct Ply {
    played_at: i64,
    /// Where its texts start in [`Plies::text`].
    start: u32,
    /// Their lengths, by [`Texts`].
    lens: [u8; 7],
    /// The moving, captured and promoted-to pieces as FEN letters (0: none).
    pieces: [u8; 3],
    flags: u8,
}

const CHECK: u8 = 1;
const CASTLING: u8 = 2;
const EN_PASSANT: u8 = 4;
const CHINESE: u8 = 8;

/// A FEN letter as one byte (0: none); every piece letter is ASCII.
fn letter(c: Option<char>) -> u8 {
    c.and_then(|c| u8::try_from(c).ok()).unwrap_or(0)
}

fn char_of(b: u8) -> Option<char> {
    (b != 0).then_some(char::from(b))
}

impl Plies {
    /// Number of plies.
    pub(super) fn len(&self) -> usize {
        self.plies.len()
    }

    /// Drops the plies from `len` on.
    pub(super) fn truncate(&mut self, len: usize) {
        if let Some(ply) = self.plies.get(len) {
            self.text.truncate(ply.start as usize);
            self.plies.truncate(len);
        }
    }

    /// Appends the move `played`, stored as `stored`.
    pub(super) fn push(
        &mut self,
        played: &PlayedMove,
        stored: &StoredMove,
    ) -> Result<(), GameError> {
        let d = &played.description;
        let chinese = d.chinese.as_ref().map_or("", MoveText::as_str);
        let texts = [
            stored.uci.as_str(),
            stored.fen_after.as_str(),
            d.san.as_str(),
            chinese,
            d.from.as_str(),
            d.to.as_str(),
            if d.uci.as_str() == stored.uci {
                ""
            } else {
                d.uci.as_str()
            },
        ];
        let start = u32::try_from(self.text.len());
        let mut lens = [0; 7];
        for (len, text) in lens.iter_mut().zip(texts) {
            *len = u8::try_from(text.len())
                .map_err(|_| GameError::Corrupt(format!("a move text of {} bytes", text.len())))?;
        }
        let start = start.map_err(|_| GameError::Corrupt("a game's moves over 4 GiB".into()))?;
        texts.iter().for_each(|t| self.text.push_str(t));
        let flag = |on: bool, flag: u8| if on { flag } else { 0 };
        self.plies.push(Ply {
            played_at: stored.played_at,
            start,
            lens,
            pieces: [
                letter(Some(d.piece)),
                letter(d.captured),
                letter(d.promotion),
            ],
            flags: flag(d.is_check, CHECK)
                | flag(d.is_castling, CASTLING)
                | flag(d.is_en_passant, EN_PASSANT)
                | flag(d.chinese.is_some(), CHINESE),
        });
        Ok(())
    }

    /// Gives back the room past the plies (they are kept a while).
    pub(super) fn shrink(&mut self) {
        self.text.shrink_to_fit();
        self.plies.shrink_to_fit();
    }

    /// The texts of ply `i`, by [`Texts`].
    fn texts(&self, i: usize) -> [&str; 7] {
        let ply = &self.plies[i];
        let mut at = ply.start as usize;
        ply.lens.map(|len| {
            let text = &self.text[at..at + usize::from(len)];
            at += usize::from(len);
            text
        })
    }

    /// The moves as the store keeps them.
    pub(super) fn stored(&self) -> Vec<StoredMove> {
        (0..self.plies.len())
            .map(|i| {
                let texts = self.texts(i);
                StoredMove {
                    ply: i as i64,
                    uci: texts[Texts::Uci as usize].to_owned(),
                    fen_after: texts[Texts::Fen as usize].to_owned(),
                    played_at: self.plies[i].played_at,
                }
            })
            .collect()
    }

    /// The moves as clients see them.
    pub(super) fn views(&self) -> Vec<MoveView> {
        (0..self.plies.len()).map(|i| self.view(i)).collect()
    }

    fn view(&self, i: usize) -> MoveView {
        let ply = &self.plies[i];
        let texts = self.texts(i);
        let text = |t: Texts| MoveText::from(texts[t as usize]);
        let [piece, captured, promotion] = ply.pieces.map(char_of);
        let piece = piece.unwrap_or_default();
        MoveView {
            ply: u32::try_from(i).unwrap_or(u32::MAX),
            // Upper-case pieces are White's (Red's).
            side: if piece.is_uppercase() {
                Side::White
            } else {
                Side::Black
            },
            description: MoveDescription {
                uci: match texts[Texts::Described as usize] {
                    "" => text(Texts::Uci),
                    _ => text(Texts::Described),
                },
                san: text(Texts::San),
                chinese: (ply.flags & CHINESE != 0).then(|| text(Texts::Chinese)),
                from: text(Texts::From),
                to: text(Texts::To),
                piece,
                captured,
                promotion,
                is_check: ply.flags & CHECK != 0,
                is_castling: ply.flags & CASTLING != 0,
                is_en_passant: ply.flags & EN_PASSANT != 0,
            },
            fen_after: texts[Texts::Fen as usize].to_owned(),
            played_at: ply.played_at,
        }
    }

    /// The bytes the plies hold on the heap, by capacity.
    pub(super) fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.plies.capacity() * size_of::<Ply>()
    }
}
