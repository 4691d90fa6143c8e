use super::named::named;

named! {
    /// One of the two players.
    ///
    /// In xiangqi, `White` is Red (who moves first) and `Black` is Black.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Side, refused as ParseSideError ("side") {
        White = "white",
        Black = "black",
    }
}

impl Side {
    /// The other side.
    #[must_use]
    pub const fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
}

impl std::ops::Not for Side {
    type Output = Side;
    fn not(self) -> Side {
        self.other()
    }
}
