//! The rules against outside truth: perft counts, FEN and move text,
//! python-chess and Fairy-Stockfish fixtures (chess, Chess960 and the
//! Lichess variants), xiangqi's repetition and chase rulings, PGN read back,
//! and random input that must never panic.

#[path = "../common/mod.rs"]
mod common;

mod chess960_perft;
mod chess_fen;
mod chess_fixture;
mod chess_moves;
mod chess_openings;
mod chess_perft;
mod pgn_roundtrip;
mod random_input;
mod variants_fixture;
mod variants_perft;
mod xiangqi_chase;
mod xiangqi_fen;
mod xiangqi_fixture;
mod xiangqi_notation;
mod xiangqi_outcome;
mod xiangqi_perft;
