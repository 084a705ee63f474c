//! Library side of the `curbi` command: the HTTP server lives here so tests can run it in-process and a later
//! `curbi-mcp` crate can mount its endpoint beside the Check API (see [`serve::routes`]).
#![forbid(unsafe_code)]

pub mod serve;
