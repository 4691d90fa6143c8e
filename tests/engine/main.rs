//! The engine: known mates, legal moves only, xiangqi's repetition rules in
//! its search, the UCI session, and external UCI engines behind the
//! analyst.

mod external;
mod repetition;
mod search;
mod uci;
