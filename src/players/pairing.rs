//! Which open seeks the pool pairs: within a pool (the same variant, rules,
//! time control and rated or casual), closest ratings first, each seeker's
//! reach widening with the time they have waited, never a player with
//! themselves, each player once a pass.

use std::collections::{HashMap, HashSet};

use crate::store::StoredSeek;

/// The rating gap a seeker accepts at once, and how much it widens each
/// second they wait (within their own rating range, always).
pub const FIRST_REACH: i64 = 100;
pub const REACH_PER_SECOND: i64 = 20;
/// Seeks on either side of one, in rating order, that it may be paired
/// with: the closest ratings are among them, unless the nearer ones are
/// the same player's or want the same colour.
const NEIGHBOURS: usize = 8;

/// The pool a seek waits in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct PoolKey<'a> {
    variant: &'static str,
    rules: Option<&'a str>,
    clock: (i64, i64, i64, Option<i64>, Option<i64>),
    rated: bool,
}

impl<'a> PoolKey<'a> {
    fn of(seek: &'a StoredSeek) -> PoolKey<'a> {
        let c = &seek.clock;
        PoolKey {
            variant: seek.variant.name(),
            rules: seek.xiangqi_rules.as_deref(),
            clock: (
                c.initial_ms,
                c.increment_ms,
                c.delay_ms,
                c.grace_ms,
                c.days_per_move,
            ),
            rated: seek.rated,
        }
    }
}

/// The rating gap `seek` accepts at `now`.
fn reach(seek: &StoredSeek, now: i64) -> i64 {
    let waited_s = (now - seek.created_at).max(0) / 1000;
    FIRST_REACH.saturating_add(REACH_PER_SECOND.saturating_mul(waited_s))
}

/// Whether `seek` accepts an opponent rated `rating`.
fn accepts(seek: &StoredSeek, rating: i64) -> bool {
    seek.rating_min.is_none_or(|min| rating >= min)
        && seek.rating_max.is_none_or(|max| rating <= max)
}

/// Whether `a` and `b` may be paired at `now`.
pub fn compatible(a: &StoredSeek, b: &StoredSeek, now: i64) -> bool {
    a.player != b.player
        && !(a.color.is_some() && a.color == b.color)
        && accepts(a, b.rating)
        && accepts(b, a.rating)
        && (a.rating - b.rating).abs() <= reach(a, now).max(reach(b, now))
}

/// The pairs (indices into `seeks`) the pool makes at `now`: the closest
/// ratings first, the longer wait first between equal gaps.
pub fn pairs(seeks: &[StoredSeek], now: i64) -> Vec<(usize, usize)> {
    let mut pools: HashMap<PoolKey<'_>, Vec<usize>> = HashMap::new();
    for (i, seek) in seeks.iter().enumerate() {
        pools.entry(PoolKey::of(seek)).or_default().push(i);
    }
    let mut candidates = Vec::new();
    for members in pools.values_mut() {
        members.sort_by_key(|&i| seeks[i].rating);
        for (k, &a) in members.iter().enumerate() {
            for &b in members.iter().skip(k + 1).take(NEIGHBOURS) {
                if compatible(&seeks[a], &seeks[b], now) {
                    let gap = (seeks[a].rating - seeks[b].rating).abs();
                    let since = seeks[a].created_at.min(seeks[b].created_at);
                    candidates.push((gap, since, a, b));
                }
            }
        }
    }
    candidates.sort_unstable();
    let mut busy: HashSet<&str> = HashSet::new();
    let mut paired = Vec::new();
    for (_, _, a, b) in candidates {
        let (pa, pb) = (seeks[a].player.as_str(), seeks[b].player.as_str());
        if !busy.contains(pa) && !busy.contains(pb) {
            busy.insert(pa);
            busy.insert(pb);
            paired.push((a, b));
        }
    }
    paired
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        games::TimeControl,
        rules::{Side, Variant},
    };
    use std::time::Duration;

    fn seek(player: &str, rating: i64) -> StoredSeek {
        StoredSeek {
            id: format!("{player}-{rating}"),
            player: player.to_owned(),
            rating,
            variant: Variant::Chess,
            xiangqi_rules: None,
            clock: TimeControl::Clock {
                initial: Duration::from_secs(180),
                increment: Duration::from_secs(2),
                delay: Duration::ZERO,
                grace: crate::games::FIRST_MOVE_GRACE,
            }
            .stored(),
            rated: true,
            rating_min: None,
            rating_max: None,
            color: None,
            holder: None,
            game_id: None,
            created_at: 0,
        }
    }

    fn players(seeks: &[StoredSeek], pairs: &[(usize, usize)]) -> Vec<(String, String)> {
        let mut named: Vec<_> = pairs
            .iter()
            .map(|&(a, b)| {
                let mut two = [seeks[a].player.clone(), seeks[b].player.clone()];
                two.sort();
                (two[0].clone(), two[1].clone())
            })
            .collect();
        named.sort();
        named
    }

    #[test]
    fn the_closest_ratings_are_paired_first() {
        let seeks = [
            seek("a", 1500),
            seek("b", 1590),
            seek("c", 1600),
            seek("d", 1510),
        ];
        let paired = pairs(&seeks, 0);
        assert_eq!(
            players(&seeks, &paired),
            [("a".into(), "d".into()), ("b".into(), "c".into())]
        );
    }

    #[test]
    fn the_reach_widens_with_the_wait() {
        let seeks = [seek("a", 1500), seek("b", 1800)];
        assert!(pairs(&seeks, 0).is_empty(), "300 apart is too far at once");
        assert!(pairs(&seeks, 9_000).is_empty(), "100 + 9 × 20 = 280");
        assert_eq!(pairs(&seeks, 10_000).len(), 1, "100 + 10 × 20 = 300");
    }

    #[test]
    fn a_rating_range_is_kept_whatever_the_wait() {
        let mut a = seek("a", 1500);
        a.rating_max = Some(1550);
        let seeks = [a, seek("b", 1560)];
        assert!(pairs(&seeks, 3_600_000).is_empty());
    }

    #[test]
    fn a_player_is_never_paired_with_themselves_nor_twice_a_pass() {
        let seeks = [
            seek("a", 1500),
            seek("a", 1501),
            seek("b", 1502),
            seek("c", 1503),
        ];
        let paired = players(&seeks, &pairs(&seeks, 0));
        assert_eq!(
            paired,
            [("a".into(), "b".into())],
            "c waits for the next pass"
        );
    }

    #[test]
    fn pools_and_colours_keep_seeks_apart() {
        let mut casual = seek("b", 1500);
        casual.rated = false;
        let mut white = seek("c", 1500);
        white.color = Some(Side::White);
        let mut also_white = seek("d", 1500);
        also_white.color = Some(Side::White);
        let seeks = [seek("a", 1500), casual, white, also_white];
        let paired = players(&seeks, &pairs(&seeks, 0));
        assert_eq!(paired, [("a".into(), "c".into())]);
    }
}
