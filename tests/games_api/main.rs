//! The Rules, Games, Positions and Engine services end to end through a real
//! server in-process: games, seats, takebacks, rematches, clocks and flag
//! timers, history, views, credentials, engine seats.

#[path = "../common/mod.rs"]
mod common;

mod challenges;
mod chat;
mod chess960;
mod clocks;
mod collections;
mod credentials;
mod engine;
mod flag_timers;
mod game_analysis;
mod games;
mod history;
mod identity;
mod leaving;
mod lichess;
mod live_budget;
mod players;
mod ratings;
mod rematch;
mod rules;
mod screening;
mod seats;
mod seeks;
mod service;
mod takeback_clocks;
mod takebacks;
mod variants;
mod views;
mod xiangqi_chase;
