//! The transposition table: positions already searched, by repetition key.
//!
//! Entries are packed into two `u64`s so that a table is allocated as zeroed
//! memory (the operating system hands out zero pages lazily): a fresh 64 MiB
//! table costs nothing until it is used, and one table can be kept across
//! the searches of a game.

/// How a stored score bounds the true score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bound {
    Exact,
    Lower,
    Upper,
}

impl Bound {
    const fn code(self) -> u64 {
        match self {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        }
    }

    const fn from_code(code: u64) -> Option<Bound> {
        match code {
            1 => Some(Bound::Exact),
            2 => Some(Bound::Lower),
            3 => Some(Bound::Upper),
            _ => None,
        }
    }
}

/// One searched position. `best` is the move's [`move_key`](super::Evaluate::move_key)
/// (0 for none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub key: u64,
    pub best: u32,
    pub depth: i32,
    pub score: i32,
    pub bound: Bound,
}

/// A fixed-size, always-replace table (a deeper result for the same position
/// is kept).
pub struct TranspositionTable {
    slots: Vec<[u64; 2]>,
}

impl TranspositionTable {
    /// A table of about `megabytes` MiB (at least 1).
    pub fn new(megabytes: usize) -> TranspositionTable {
        let wanted = megabytes.clamp(1, 1 << 16) * 1024 * 1024 / size_of::<[u64; 2]>();
        // The largest power of two that fits.
        let slots = 1 << (usize::BITS - 1 - wanted.leading_zeros());
        TranspositionTable {
            slots: vec![[0; 2]; slots],
        }
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        self.slots.fill([0; 2]);
    }

    /// The size in MiB.
    pub fn megabytes(&self) -> usize {
        self.slots.len() * size_of::<[u64; 2]>() / (1024 * 1024)
    }

    fn index(&self, key: u64) -> usize {
        // The length is a power of two.
        key as usize & (self.slots.len() - 1)
    }

    pub(super) fn probe(&self, key: u64) -> Option<Entry> {
        let [stored, data] = self.slots[self.index(key)];
        if stored != key {
            return None;
        }
        Some(Entry {
            key,
            best: data as u32,
            score: i32::from((data >> 32) as u16 as i16),
            depth: i32::from((data >> 48) as u8),
            bound: Bound::from_code(data >> 56)?,
        })
    }

    pub(super) fn store(&mut self, entry: Entry) {
        let index = self.index(entry.key);
        let slot = &mut self.slots[index];
        if slot[0] == entry.key && i32::from((slot[1] >> 48) as u8) > entry.depth {
            return;
        }
        let score = entry.score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
        let depth = entry.depth.clamp(0, 255) as u64;
        *slot = [
            entry.key,
            u64::from(entry.best)
                | u64::from(score as u16) << 32
                | depth << 48
                | entry.bound.code() << 56,
        ];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        let mut table = TranspositionTable::new(1);
        let entry = Entry {
            key: 0xdead_beef_1234,
            best: 4242,
            depth: 7,
            score: -29_990,
            bound: Bound::Upper,
        };
        table.store(entry);
        assert_eq!(table.probe(entry.key), Some(entry));
        assert_eq!(table.probe(entry.key + 1), None);
        // A shallower result for the same position does not replace it.
        table.store(Entry { depth: 3, ..entry });
        assert_eq!(table.probe(entry.key).map(|e| e.depth), Some(7));
        table.clear();
        assert_eq!(table.probe(entry.key), None);
        assert_eq!(table.megabytes(), 1);
    }
}
