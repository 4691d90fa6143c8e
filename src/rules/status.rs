use std::{fmt, str::FromStr};

/// Where a game stands: in play, or ended with a winner, drawn, or called
/// off before it counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Status {
    #[default]
    Ongoing,
    Decisive,
    Drawn,
    Aborted,
}

impl Status {
    /// Every status, in a stable order.
    pub const ALL: [Status; 4] = [
        Status::Ongoing,
        Status::Decisive,
        Status::Drawn,
        Status::Aborted,
    ];

    /// The lower-case name, as stored and shown.
    pub const fn name(self) -> &'static str {
        match self {
            Status::Ongoing => "ongoing",
            Status::Decisive => "decisive",
            Status::Drawn => "drawn",
            Status::Aborted => "aborted",
        }
    }

    /// A game that ended, with or without a winner.
    pub const fn ended(decisive: bool) -> Status {
        if decisive {
            Status::Decisive
        } else {
            Status::Drawn
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not one of [`Status::ALL`]'s.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game status {0:?}")]
pub struct ParseStatusError(pub String);

impl FromStr for Status {
    type Err = ParseStatusError;

    fn from_str(s: &str) -> Result<Status, ParseStatusError> {
        Status::ALL
            .into_iter()
            .find(|status| status.name() == s)
            .ok_or_else(|| ParseStatusError(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_reads_back_from_its_name() {
        for status in Status::ALL {
            assert_eq!(status.name().parse(), Ok(status));
        }
        assert!("Ongoing".parse::<Status>().is_err());
    }
}
