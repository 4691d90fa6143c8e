//! Precomputed move and attack tables, built at compile time.
//!
//! Chariots and cannons look up their reach along a rank and along a file
//! from the 9-bit rank occupancy and the 10-bit file occupancy; for the file
//! lookup the board occupancy is also kept transposed ([`Occupied`]), so that
//! a file's points are contiguous bits. Horses and elephants ("lame
//! leapers") have one [`Leg`] per direction: the point that blocks them and
//! the points they land on.

use super::{bitboard::Bitboard, square::Square};
use crate::rules::Side;

/// One direction of a lame leaper: if `block` is empty, it reaches `targets`.
#[derive(Clone, Copy)]
pub(super) struct Leg {
    pub(super) block: Square,
    pub(super) targets: Bitboard,
}

/// The occupied points, kept both rank-major (bit `rank * 9 + file`) and
/// file-major (bit `file * 10 + rank`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(super) struct Occupied {
    by_rank: u128,
    by_file: u128,
}

const fn file_major_bit(sq: Square) -> u128 {
    1 << (sq.file() as u32 * 10 + sq.rank() as u32)
}

impl Occupied {
    /// The occupancy of the points in `bits`, turned file-major rank by
    /// rank rather than point by point.
    pub(super) fn of(bits: Bitboard) -> Occupied {
        let mut by_file = 0;
        for rank in 0..u32::from(Square::RANKS) {
            by_file |= RANK_SPREAD[(bits.0 >> (9 * rank)) as usize & 0x1ff] << rank;
        }
        Occupied {
            by_rank: bits.0,
            by_file,
        }
    }

    /// Adds `sq` if empty, removes it if occupied.
    pub(super) fn toggle(&mut self, sq: Square) {
        self.by_rank ^= Bitboard::from_square(sq).0;
        self.by_file ^= file_major_bit(sq);
    }

    /// The occupancy after a piece moves from `from` to `to`.
    #[inline]
    pub(super) fn moved(self, from: Square, to: Square) -> Occupied {
        Occupied {
            by_rank: (self.by_rank & !Bitboard::from_square(from).0) | Bitboard::from_square(to).0,
            by_file: (self.by_file & !file_major_bit(from)) | file_major_bit(to),
        }
    }

    pub(super) const fn bits(self) -> Bitboard {
        Bitboard(self.by_rank)
    }
}

/// What a chariot reaches from a point (the first piece in each direction
/// included), and what a cannon captures (the piece beyond the first one).
pub(super) struct Lines {
    pub(super) chariot: Bitboard,
    pub(super) cannon_captures: Bitboard,
}

/// Chariot reach and cannon capture targets from `sq`.
///
/// Both relations are symmetric, so the same lookup finds the chariots and
/// cannons that attack `sq`.
#[inline]
pub(super) fn lines(sq: Square, occupied: Occupied) -> Lines {
    let (file, rank) = (sq.file() as usize, sq.rank() as usize);
    let along_rank = RANK_SLIDES[file][(occupied.by_rank >> (9 * rank)) as usize & 0x1ff];
    let along_file = FILE_SLIDES[rank][(occupied.by_file >> (10 * file)) as usize & 0x3ff];
    let on_rank = |bits: u32| u128::from(bits & 0x1ff) << (9 * rank);
    let on_file = |bits: u32| FILE_SPREAD[(bits & 0x3ff) as usize] << file;
    Lines {
        chariot: Bitboard(on_rank(along_rank) | on_file(along_file)),
        cannon_captures: Bitboard(on_rank(along_rank >> 16) | on_file(along_file >> 16)),
    }
}

/// The points a lame leaper reaches through its unblocked legs.
#[inline]
pub(super) fn leap(legs: &[Leg; 4], occupied: Bitboard) -> Bitboard {
    let mut reach = Bitboard::EMPTY;
    for leg in legs {
        if !occupied.contains(leg.block) {
            reach |= leg.targets;
        }
    }
    reach
}

/// Every point of rank `rank`.
pub(super) const fn rank_mask(rank: u8) -> Bitboard {
    Bitboard(0x1ff << (9 * rank as u32))
}

/// Every point of file `file`.
pub(super) const fn file_mask(file: u8) -> Bitboard {
    const FILE_A: u128 = {
        let mut mask = 0;
        let mut rank = 0;
        while rank < Square::RANKS {
            mask |= 1 << (9 * rank as u32);
            rank += 1;
        }
        mask
    };
    Bitboard(FILE_A << file)
}

pub(super) const fn side_index(side: Side) -> usize {
    match side {
        Side::White => 0,
        Side::Black => 1,
    }
}

/// Is `sq` in one of the two palaces (files d-f, ranks 0-2 or 7-9)?
pub(super) const fn in_palace(sq: Square) -> bool {
    let rank = sq.rank();
    3 <= sq.file() && sq.file() <= 5 && (rank <= 2 || rank >= 7)
}

/// Is `sq` on Red's half of the board (ranks 0-4)?
pub(super) const fn on_red_half(sq: Square) -> bool {
    sq.rank() <= 4
}

/// Has a soldier of `side` on `sq` crossed the river?
pub(super) const fn across_river(side: Side, sq: Square) -> bool {
    match side {
        Side::White => !on_red_half(sq),
        Side::Black => on_red_half(sq),
    }
}

/// The rank direction `side` moves forward in.
pub(super) const fn forward(side: Side) -> i8 {
    match side {
        Side::White => 1,
        Side::Black => -1,
    }
}

const ORTHOGONAL: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const DIAGONAL: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

const fn bit_at(sq: Square, df: i8, dr: i8) -> u128 {
    match sq.offset(df, dr) {
        Some(to) => Bitboard::from_square(to).0,
        None => 0,
    }
}

/// The three lame-leaper tables.
#[derive(Clone, Copy)]
enum Leaper {
    Horse,
    HorseAttackers,
    Elephant,
}

/// A table of 90 lame-leaper entries of one kind.
const fn legs_table(leaper: Leaper) -> [[Leg; 4]; 90] {
    let mut table = [[Leg {
        block: Square::from_index(0),
        targets: Bitboard::EMPTY,
    }; 4]; 90];
    let mut i = 0;
    while i < Square::COUNT {
        let sq = Square::from_index(i);
        let mut d = 0;
        while d < 4 {
            let step = match leaper {
                Leaper::Horse => horse_step(sq, d),
                Leaper::HorseAttackers => horse_attacker_step(sq, d),
                Leaper::Elephant => elephant_step(sq, d),
            };
            if let (Some(block), targets) = step {
                table[i][d] = Leg {
                    block,
                    targets: Bitboard(targets),
                };
            }
            d += 1;
        }
        i += 1;
    }
    table
}

const fn horse_step(sq: Square, d: usize) -> (Option<Square>, u128) {
    let (df, dr) = ORTHOGONAL[d];
    // The two landing points beyond the leg, one on each side.
    let targets = bit_at(sq, 2 * df + dr, 2 * dr + df) | bit_at(sq, 2 * df - dr, 2 * dr - df);
    (sq.offset(df, dr), targets)
}

const fn horse_attacker_step(sq: Square, d: usize) -> (Option<Square>, u128) {
    let (df, dr) = DIAGONAL[d];
    // Horses attacking `sq` through the diagonal neighbour (their leg).
    (
        sq.offset(df, dr),
        bit_at(sq, 2 * df, dr) | bit_at(sq, df, 2 * dr),
    )
}

const fn elephant_step(sq: Square, d: usize) -> (Option<Square>, u128) {
    let (df, dr) = DIAGONAL[d];
    let target = match sq.offset(2 * df, 2 * dr) {
        Some(to) if on_red_half(to) == on_red_half(sq) => Bitboard::from_square(to).0,
        _ => 0,
    };
    (sq.offset(df, dr), target)
}

/// Horse moves from each point.
pub(super) static HORSE: [[Leg; 4]; 90] = legs_table(Leaper::Horse);
/// Where horses attacking each point stand, by leg.
pub(super) static HORSE_ATTACKERS: [[Leg; 4]; 90] = legs_table(Leaper::HorseAttackers);
/// Elephant moves from each point (never across the river).
pub(super) static ELEPHANT: [[Leg; 4]; 90] = legs_table(Leaper::Elephant);

/// For a general on each point, the points through which a piece can attack
/// it: its rank and file (chariots, cannons and their screens, soldiers, the
/// other general), and the horses' points and legs. Only a move from or to
/// one of them can change whether the general is attacked.
pub(super) static CHECK_LINES: [Bitboard; 90] = {
    let horses = &HORSE_ATTACKERS;
    let mut table = [Bitboard::EMPTY; 90];
    let mut i = 0;
    while i < Square::COUNT {
        let sq = Square::from_index(i);
        let mut points = rank_mask(sq.rank()).0 | file_mask(sq.file()).0;
        let mut d = 0;
        while d < 4 {
            let leg = &horses[i][d];
            if leg.targets.any() {
                points |= leg.targets.0 | Bitboard::from_square(leg.block).0;
            }
            d += 1;
        }
        table[i] = Bitboard(points);
        i += 1;
    }
    table
};

/// One step in `dirs` from each point, staying inside a palace.
const fn palace_steps(dirs: [(i8, i8); 4]) -> [Bitboard; 90] {
    let mut table = [Bitboard::EMPTY; 90];
    let mut i = 0;
    while i < Square::COUNT {
        let sq = Square::from_index(i);
        let mut d = 0;
        while d < 4 {
            if let Some(to) = sq.offset(dirs[d].0, dirs[d].1)
                && in_palace(sq)
                && in_palace(to)
            {
                table[i].0 |= Bitboard::from_square(to).0;
            }
            d += 1;
        }
        i += 1;
    }
    table
}

/// General moves from each point.
pub(super) static GENERAL: [Bitboard; 90] = palace_steps(ORTHOGONAL);
/// Advisor moves from each point.
pub(super) static ADVISOR: [Bitboard; 90] = palace_steps(DIAGONAL);

const fn soldier_moves(side: Side, sq: Square) -> u128 {
    let ahead = bit_at(sq, 0, forward(side));
    if across_river(side, sq) {
        ahead | bit_at(sq, 1, 0) | bit_at(sq, -1, 0)
    } else {
        ahead
    }
}

const fn soldier_tables() -> [[[Bitboard; 90]; 2]; 2] {
    let mut moves = [[Bitboard::EMPTY; 90]; 2];
    let mut attackers = [[Bitboard::EMPTY; 90]; 2];
    let sides = [Side::White, Side::Black];
    let mut s = 0;
    while s < 2 {
        let mut i = 0;
        while i < Square::COUNT {
            let reach = soldier_moves(sides[s], Square::from_index(i));
            moves[s][i] = Bitboard(reach);
            let mut to = 0;
            while to < Square::COUNT {
                if reach >> to & 1 != 0 {
                    attackers[s][to].0 |= 1 << i;
                }
                to += 1;
            }
            i += 1;
        }
        s += 1;
    }
    [moves, attackers]
}

const SOLDIER_TABLES: [[[Bitboard; 90]; 2]; 2] = soldier_tables();
/// Soldier moves from each point, by side.
pub(super) static SOLDIER: [[Bitboard; 90]; 2] = SOLDIER_TABLES[0];
/// Where soldiers of a side attacking each point stand.
pub(super) static SOLDIER_ATTACKERS: [[Bitboard; 90]; 2] = SOLDIER_TABLES[1];

/// Reach along a line of `len` points from `pos` with occupancy `occ`: the
/// chariot's reach in the low 16 bits, the cannon's captures in the high ones.
const fn slide(len: i32, pos: i32, occ: u32) -> u32 {
    let mut chariot = 0;
    let mut cannon = 0;
    let mut step = -1;
    while step <= 1 {
        let mut x = pos + step;
        let mut screened = false;
        while 0 <= x && x < len {
            let bit = 1 << x;
            if !screened {
                chariot |= bit;
                screened = occ & bit != 0;
            } else if occ & bit != 0 {
                cannon |= bit;
                break;
            }
            x += step;
        }
        step += 2;
    }
    chariot | cannon << 16
}

const fn slide_table<const LEN: usize, const OCC: usize>() -> [[u32; OCC]; LEN] {
    let mut table = [[0; OCC]; LEN];
    let mut pos = 0;
    while pos < LEN {
        let mut occ = 0;
        while occ < OCC {
            table[pos][occ] = slide(LEN as i32, pos as i32, occ as u32);
            occ += 1;
        }
        pos += 1;
    }
    table
}

static RANK_SLIDES: [[u32; 512]; 9] = slide_table::<9, 512>();
static FILE_SLIDES: [[u32; 1024]; 10] = slide_table::<10, 1024>();

/// Bit `i` of the index spread to bit `stride * i`, for every index below
/// `N` (a power of two).
const fn spread<const N: usize>(stride: u32) -> [u128; N] {
    let mut table = [0; N];
    let mut bits = 0;
    while bits < N {
        let mut i = 0;
        while 1 << i < N {
            if bits >> i & 1 != 0 {
                table[bits] |= 1 << (stride * i);
            }
            i += 1;
        }
        bits += 1;
    }
    table
}

/// The points of rank 0 in the file-major order (bit `i` to bit `10 * i`).
static RANK_SPREAD: [u128; 512] = spread(10);

/// A file-major file mask back to the board's rank-major bits, for file a
/// (bit `i` to bit `9 * i`).
static FILE_SPREAD: [u128; 1024] = spread(9);

#[cfg(test)]
mod tests {
    use super::*;

    /// The occupancy made rank by rank is the one made point by point.
    #[test]
    fn occupancy_of_a_set_matches_point_by_point() {
        let mut state = 1u64;
        let mut sets = vec![Bitboard::EMPTY, Bitboard::ALL];
        for _ in 0..200 {
            let mut bits = 0u128;
            for _ in 0..32 {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                bits |= 1 << ((state >> 33) % Square::COUNT as u64);
            }
            sets.push(Bitboard(bits));
        }
        for set in sets {
            let mut expected = Occupied::default();
            for sq in set {
                expected.toggle(sq);
            }
            assert_eq!(Occupied::of(set), expected, "{:#x}", set.0);
        }
    }
}
