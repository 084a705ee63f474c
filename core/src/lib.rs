//! Curbi core: checks what an AI agent tells a customer against explicit rules, deterministically and in
//! microseconds. Pure Rust with no I/O: every surface (CLI, server, C, Python, Node, Go) is a thin layer over this.
#![forbid(unsafe_code)]

pub mod api;
pub mod check;
pub mod decimal;
pub mod ed25519;
pub mod encoding;
pub mod error;
pub mod jcs;
pub mod json;
pub mod lint;
pub mod money;
pub(crate) mod pointer;
pub mod policy;
pub mod proof;
pub mod purchase;
pub mod regression;
pub mod suggest;
pub mod time;
pub mod wire;
#[cfg(feature = "yaml")]
pub mod yaml;

pub use check::{CompiledPolicy, CompiledRecord, Finding};
pub use error::{Error, ErrorCode, Result};
pub use policy::{CheckRequest, CheckerVersion, Policy, Record, Verify};
pub use purchase::{Decision, Verdict, verify_action, verify_checkout};
