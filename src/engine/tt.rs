//! The transposition table: positions already searched, by repetition key.

/// How a stored score bounds the true score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Entry<M> {
    pub key: u64,
    pub best: Option<M>,
    pub depth: i32,
    pub score: i32,
    pub bound: Bound,
}

/// A fixed-size, always-replace table.
pub(super) struct Table<M> {
    entries: Vec<Option<Entry<M>>>,
    mask: usize,
}

impl<M: Copy> Table<M> {
    /// A table of about `megabytes` MiB.
    pub fn new(megabytes: usize) -> Table<M> {
        let per_entry = std::mem::size_of::<Option<Entry<M>>>().max(1);
        let wanted = (megabytes.max(1) * 1024 * 1024 / per_entry).max(1024);
        let size = wanted.next_power_of_two() / 2;
        Table {
            entries: vec![None; size],
            mask: size - 1,
        }
    }

    pub fn probe(&self, key: u64) -> Option<Entry<M>> {
        self.entries[key as usize & self.mask].filter(|e| e.key == key)
    }

    pub fn store(&mut self, entry: Entry<M>) {
        let slot = &mut self.entries[entry.key as usize & self.mask];
        // Keep a deeper result for the same position.
        if slot.is_none_or(|old| old.key != entry.key || old.depth <= entry.depth) {
            *slot = Some(entry);
        }
    }
}
