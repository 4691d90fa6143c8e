//! Ratings as Lichess keeps them: Glicko-2 per perf (a variant at a
//! speed), each rated game its own rating period, with Lichess's constants
//! (start 1500, deviation 500, volatility 0.09, τ 0.75, deviation within
//! 45-500, provisional from 110, deviation growing with inactivity, at most
//! 700 points a game). The update is `skillratings`'; what Lichess adds
//! around it is here.

use std::f64::consts::PI;

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
const MIN_RATING: f64 = 400.0;
const MAX_RATING: f64 = 4000.0;
const MAX_VOLATILITY: f64 = 0.1;
const MAX_DEVIATION: f64 = 500.0;
const TAU: f64 = 0.75;
/// Rating periods a day of inactivity counts for, as Lichess counts them.
const PERIODS_PER_DAY: f64 = 0.21436;
/// The Glicko-2 scale's unit in rating points.
const SCALE: f64 = 173.7178;
/// The most a rating moves in one game.
const MAX_CHANGE: f64 = 700.0;
const DAY_MS: f64 = 86_400_000.0;
/// What a millisecond of inactivity adds to a squared deviation (in rating
/// points), times the squared volatility.
pub const IDLE_GROWTH_PER_MS: f64 = SCALE * SCALE * PERIODS_PER_DAY / DAY_MS;

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
    /// initial time plus 40 moves' increment (or delay); six hours or more
    /// count as correspondence, as on Lichess.
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
                    1500..21_600 => Speed::Classical,
                    _ => Speed::Correspondence,
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

/// The perf a game of `variant` at `speed` is rated in: `chess_blitz`;
/// Chess960 and each Lichess variant is one perf at every speed, named as
/// the variant (`chess960`, `kingOfTheHill`), as on Lichess.
pub fn perf(variant: Variant, speed: Speed) -> String {
    match variant {
        Variant::Chess | Variant::Xiangqi => format!("{}_{}", variant.name(), speed.name()),
        _ => variant.name().to_owned(),
    }
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
///
/// As Lichess rates: each deviation first grown by the rating periods its
/// player sat out, then the game rated at once, with no further period
/// (Glicko-2's step 6 with none elapsed). `skillratings` finds the new
/// volatility (step 5, which the periods do not enter); steps 6-8 are
/// here, since the crate always lets one period pass.
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
    let (w_step5, b_step5) = glicko2(&w, &b, &outcome, &config);
    (
        after(white, w, b, white_score, w_step5.volatility, now),
        after(black, b, w, 1.0 - white_score, b_step5.volatility, now),
    )
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
        rating: stored.rating.clamp(MIN_RATING, MAX_RATING),
        deviation: grown.clamp(MIN_DEVIATION, MAX_DEVIATION),
        volatility: stored.volatility.min(MAX_VOLATILITY),
    }
}

/// The stored rating of the player rated `us` after scoring `score`
/// against `them`, with the new `volatility`: Glicko-2's steps 6-8 with no
/// rating period elapsed, the change and the result within Lichess's caps.
fn after(
    stored: StoredRating,
    us: Glicko2Rating,
    them: Glicko2Rating,
    score: f64,
    volatility: f64,
    now: i64,
) -> StoredRating {
    let phi = us.deviation / SCALE;
    let their_phi = them.deviation / SCALE;
    let g = 1.0 / (1.0 + 3.0 * their_phi * their_phi / (PI * PI)).sqrt();
    let expected = 1.0 / (1.0 + (-g * (us.rating - them.rating) / SCALE).exp());
    let v = 1.0 / (g * g * expected * (1.0 - expected));
    let new_phi = 1.0 / (1.0 / (phi * phi) + 1.0 / v).sqrt();
    let change =
        (new_phi * new_phi * g * (score - expected) * SCALE).clamp(-MAX_CHANGE, MAX_CHANGE);
    StoredRating {
        rating: (us.rating + change).clamp(MIN_RATING, MAX_RATING),
        deviation: (new_phi * SCALE).clamp(MIN_DEVIATION, MAX_DEVIATION),
        volatility: volatility.min(MAX_VOLATILITY),
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

    /// scalachess's own test of Lichess's calculator: two 1500/350/0.06
    /// players, White wins: 1662.21 (deviation 290.2305, volatility
    /// 0.0599993) and 1337.79; a draw leaves both at 1500, deviation 290.2305.
    #[test]
    fn a_game_is_rated_as_lichess_rates_it() {
        let player = rating(1500.0, 350.0, 0.06);
        let (winner, loser) = rate(player, player, 1.0, 0);
        assert!((winner.rating - 1662.21).abs() < 0.005, "{winner:?}");
        assert!((winner.deviation - 290.2305).abs() < 0.0001, "{winner:?}");
        assert!((winner.volatility - 0.0599993).abs() < 1e-7, "{winner:?}");
        assert!((loser.rating - 1337.79).abs() < 0.005, "{loser:?}");
        assert!((loser.deviation - 290.2305).abs() < 0.0001, "{loser:?}");
        assert_eq!((winner.games, loser.games), (2, 2));
        let (drawn, other) = rate(player, player, 0.5, 0);
        assert!((drawn.rating - 1500.0).abs() < 1e-6, "{drawn:?}");
        assert!((other.rating - 1500.0).abs() < 1e-6, "{other:?}");
        assert!((drawn.deviation - 290.2305).abs() < 0.0001, "{drawn:?}");
    }

    /// An upset, 1400/80 beating 1500/150: both move, the less certain
    /// rating the more.
    #[test]
    fn an_upset_moves_the_less_certain_rating_more() {
        let (underdog, favourite) = (rating(1400.0, 80.0, 0.06), rating(1500.0, 150.0, 0.06));
        let (up, down) = rate(underdog, favourite, 1.0, 0);
        assert!(up.rating > 1400.0 && down.rating < 1500.0);
        assert!(1500.0 - down.rating > up.rating - 1400.0, "{up:?} {down:?}");
        assert!(up.deviation < 80.0 && down.deviation < 150.0);
    }

    #[test]
    fn ratings_stay_within_lichess_caps() {
        let floor = rating(400.0, 300.0, 0.2);
        let top = rating(4000.0, 300.0, 0.06);
        let (lost, _) = rate(floor, top, 0.0, 0);
        assert!(lost.rating >= MIN_RATING, "{lost:?}");
        assert!(lost.volatility <= MAX_VOLATILITY, "{lost:?}");
        let (won, _) = rate(top, floor, 1.0, 0);
        assert!(won.rating <= MAX_RATING, "{won:?}");
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
        assert_eq!(Speed::of(clock(21_599, 0)), Speed::Classical);
        assert_eq!(Speed::of(clock(3 * 3600, 270)), Speed::Correspondence);
        let days = TimeControl::Correspondence {
            days_per_move: Some(3),
        };
        assert_eq!(Speed::of(days), Speed::Correspondence);
        assert_eq!(perf(Variant::Xiangqi, Speed::Blitz), "xiangqi_blitz");
    }
}
