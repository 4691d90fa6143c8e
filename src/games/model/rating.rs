//! Ratings as Lichess keeps them: Glicko-2 per perf (a variant at a
//! speed), each rated game its own rating period, with Lichess's constants
//! (start 1500, deviation 500, volatility 0.09, τ 0.75, deviation within
//! 45-500, provisional from 110, deviation growing with inactivity, at most
//! 700 points a game). The update is `skillratings`'; what Lichess adds
//! around it is here.

use skillratings::{
    Outcomes,
    glicko2::{Glicko2Config, Glicko2Rating, glicko2},
};

use super::clock::TimeControl;
use crate::{
    rules::Variant,
    store::{RatedEnd, StoredGame, StoredRating},
};

/// A rating before any game.
pub const INITIAL: StoredRating = StoredRating {
    rating: 1500.0,
    deviation: 500.0,
    volatility: 0.09,
    games: 0,
    updated_at: 0,
};
/// A rating is provisional while its deviation is at least this.
pub const PROVISIONAL_DEVIATION: f64 = 110.0;
const MIN_DEVIATION: f64 = 45.0;
const MAX_DEVIATION: f64 = 500.0;
const TAU: f64 = 0.75;
/// Rating periods a day of inactivity counts for, as Lichess counts them.
const PERIODS_PER_DAY: f64 = 0.21436;
/// The Glicko-2 scale's unit in rating points.
const SCALE: f64 = 173.7178;
/// The most a rating moves in one game.
const MAX_CHANGE: f64 = 700.0;
const DAY_MS: f64 = 86_400_000.0;

/// How fast a game is played, from its time control, as Lichess names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Speed {
    UltraBullet,
    Bullet,
    Blitz,
    Rapid,
    Classical,
    Correspondence,
}

impl Speed {
    /// The speed of `control`: a clock's by its estimated duration,
    /// initial time plus 40 moves' increment (or delay).
    pub fn of(control: TimeControl) -> Speed {
        match control {
            TimeControl::Correspondence { .. } => Speed::Correspondence,
            TimeControl::Clock {
                initial,
                increment,
                delay,
                ..
            } => {
                let seconds = initial.as_secs() + 40 * increment.max(delay).as_secs();
                match seconds {
                    0..30 => Speed::UltraBullet,
                    30..180 => Speed::Bullet,
                    180..480 => Speed::Blitz,
                    480..1500 => Speed::Rapid,
                    _ => Speed::Classical,
                }
            }
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Speed::UltraBullet => "ultrabullet",
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
        }
    }
}

/// The perf a game of `variant` at `speed` is rated in: `chess_blitz`.
pub fn perf(variant: Variant, speed: Speed) -> String {
    format!("{}_{}", variant.name(), speed.name())
}

/// The rating `game`'s end applies, if it counts: a rated game between two
/// players that ended decisive or drawn after both sides moved.
pub(in crate::games) fn rated_end(game: &StoredGame) -> Option<RatedEnd> {
    if !game.rated || game.moves.len() < 2 {
        return None;
    }
    let white_score = match (game.status, game.winner) {
        (crate::rules::Status::Decisive, Some(winner)) => {
            if winner == crate::rules::Side::White {
                1.0
            } else {
                0.0
            }
        }
        (crate::rules::Status::Drawn, _) => 0.5,
        _ => return None,
    };
    let control = game.clock.as_ref().map(TimeControl::from_stored)?;
    Some(RatedEnd {
        perf: perf(game.variant, Speed::of(control)),
        white: game.white_player.clone()?,
        black: game.black_player.clone()?,
        white_score,
        initial: INITIAL,
        rate,
    })
}

/// Both players' ratings after a game White scored `white_score` in, at
/// `now` (unix milliseconds).
pub fn rate(
    white: StoredRating,
    black: StoredRating,
    white_score: f64,
    now: i64,
) -> (StoredRating, StoredRating) {
    let outcome = if white_score > 0.5 {
        Outcomes::WIN
    } else if white_score < 0.5 {
        Outcomes::LOSS
    } else {
        Outcomes::DRAW
    };
    let config = Glicko2Config {
        tau: TAU,
        ..Glicko2Config::new()
    };
    let (w, b) = (glicko(white, now), glicko(black, now));
    let (w_after, b_after) = glicko2(&w, &b, &outcome, &config);
    (after(white, w, w_after, now), after(black, b, b_after, now))
}

/// `stored` as Glicko-2 takes it, its deviation grown by the rating periods
/// it sat out.
fn glicko(stored: StoredRating, now: i64) -> Glicko2Rating {
    let idle_days = if stored.games == 0 {
        0.0
    } else {
        ((now - stored.updated_at) as f64 / DAY_MS).max(0.0)
    };
    let phi = stored.deviation / SCALE;
    let grown = (phi * phi + stored.volatility * stored.volatility * idle_days * PERIODS_PER_DAY)
        .sqrt()
        * SCALE;
    Glicko2Rating {
        rating: stored.rating,
        deviation: grown.clamp(MIN_DEVIATION, MAX_DEVIATION),
        volatility: stored.volatility,
    }
}

/// The stored rating after a game that took `before` to `after`.
fn after(
    stored: StoredRating,
    before: Glicko2Rating,
    after: Glicko2Rating,
    now: i64,
) -> StoredRating {
    let change = (after.rating - before.rating).clamp(-MAX_CHANGE, MAX_CHANGE);
    StoredRating {
        rating: before.rating + change,
        deviation: after.deviation.clamp(MIN_DEVIATION, MAX_DEVIATION),
        volatility: after.volatility,
        games: stored.games + 1,
        updated_at: now,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn rating(rating: f64, deviation: f64, volatility: f64) -> StoredRating {
        StoredRating {
            rating,
            deviation,
            volatility,
            games: 1,
            updated_at: 0,
        }
    }

    /// The worked example of Glickman's paper ("Example of the Glicko-2
    /// system", τ 0.5): 1500/200/0.06 beating 1400/30, losing to 1550/100
    /// and 1700/300 ends at 1464.06, deviation 151.52, volatility 0.05999.
    #[test]
    fn the_glicko2_update_is_the_papers() {
        let g = |rating, deviation| Glicko2Rating {
            rating,
            deviation,
            volatility: 0.06,
        };
        let results = [
            (g(1400.0, 30.0), Outcomes::WIN),
            (g(1550.0, 100.0), Outcomes::LOSS),
            (g(1700.0, 300.0), Outcomes::LOSS),
        ];
        let config = Glicko2Config {
            tau: 0.5,
            ..Glicko2Config::new()
        };
        let after =
            skillratings::glicko2::glicko2_rating_period(&g(1500.0, 200.0), &results, &config);
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
    }

    /// One game between equals, 1500/350/0.06, by the paper's formulas
    /// worked by hand: the winner ends at 1662.31, deviation 290.32.
    #[test]
    fn a_win_between_equals_moves_both_ratings_alike() {
        let player = rating(1500.0, 350.0, 0.06);
        let (winner, loser) = rate(player, player, 1.0, 0);
        assert!((winner.rating - 1662.31).abs() < 0.01, "{winner:?}");
        assert!((winner.deviation - 290.32).abs() < 0.01, "{winner:?}");
        assert!((loser.rating - 1337.69).abs() < 0.01, "{loser:?}");
        assert_eq!((winner.games, loser.games), (2, 2));
        let (drawn, _) = rate(player, player, 0.5, 0);
        assert!((drawn.rating - 1500.0).abs() < 1e-6);
    }

    #[test]
    fn deviation_grows_with_inactivity_and_stays_in_bounds() {
        let settled = rating(1800.0, 60.0, 0.06);
        let year = 365 * 86_400_000;
        let after_a_year = glicko(settled, year);
        assert!(after_a_year.deviation > 60.0 && after_a_year.deviation <= MAX_DEVIATION);
        let floor = rating(1800.0, 10.0, 0.0001);
        assert_eq!(glicko(floor, 0).deviation, MIN_DEVIATION);
        let (new, _) = rate(INITIAL, INITIAL, 1.0, year);
        assert!(new.deviation <= MAX_DEVIATION && new.deviation >= MIN_DEVIATION);
    }

    #[test]
    fn speeds_follow_the_estimated_duration() {
        let clock = |initial: u64, increment: u64| TimeControl::Clock {
            initial: Duration::from_secs(initial),
            increment: Duration::from_secs(increment),
            delay: Duration::ZERO,
            grace: Duration::from_secs(60),
        };
        assert_eq!(Speed::of(clock(15, 0)), Speed::UltraBullet);
        assert_eq!(Speed::of(clock(60, 1)), Speed::Bullet);
        assert_eq!(Speed::of(clock(180, 2)), Speed::Blitz);
        assert_eq!(Speed::of(clock(600, 5)), Speed::Rapid);
        assert_eq!(Speed::of(clock(1800, 20)), Speed::Classical);
        let days = TimeControl::Correspondence {
            days_per_move: Some(3),
        };
        assert_eq!(Speed::of(days), Speed::Correspondence);
        assert_eq!(perf(Variant::Xiangqi, Speed::Blitz), "xiangqi_blitz");
    }
}
