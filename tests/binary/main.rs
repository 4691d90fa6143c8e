//! The binary as its users meet it: the command line, the web app it serves,
//! and its metrics endpoint.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod metrics;
mod web_app;
