//! The engine: known mates, legal moves only, xiangqi's repetition rules in
//! its search, and the UCI session.

mod repetition;
mod search;
mod uci;
