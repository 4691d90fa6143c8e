use super::named::named;

named! {
    /// Where a game stands: in play, or ended with a winner, drawn, or
    /// called off before it counted.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub enum Status, refused as ParseStatusError ("game status") {
        #[default]
        Ongoing = "ongoing",
        Decisive = "decisive",
        Drawn = "drawn",
        Aborted = "aborted",
    }
}

impl Status {
    /// A game that ended, with or without a winner.
    pub const fn ended(decisive: bool) -> Status {
        if decisive {
            Status::Decisive
        } else {
            Status::Drawn
        }
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
