/// The rule choices a game or a request may make, whatever its game: each
/// game takes the ones about it ([`Game::options`](super::Game::options))
/// and the others do not apply to it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RuleChoices {
    /// How xiangqi judges repetitions.
    pub xiangqi: super::xiangqi::XiangqiRules,
}

impl RuleChoices {
    /// The choices stored by name (`XiangqiRules::name`; `None`, or a name
    /// no rule set has: the defaults).
    pub fn named(xiangqi: Option<&str>) -> RuleChoices {
        RuleChoices {
            xiangqi: xiangqi
                .and_then(super::xiangqi::XiangqiRules::from_name)
                .unwrap_or_default(),
        }
    }
}
