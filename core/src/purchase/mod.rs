//! Purchase check and action check: ALLOW, DENY or STEP_UP for an agent's checkout against the user's mandate (with
//! the ledger of what was already spent), and for an agent's action against a grant. Pure: no I/O, no clock, no floats.
//!
//! Formats, rules and the AP2 / ACP / UCP field mapping are in `docs/PURCHASE.md`. Every rule is evaluated and every
//! reason returned; DENY beats STEP_UP beats ALLOW; anything malformed, unknown or unparseable never ALLOWs. A decision
//! grants no authority by itself: the host enforces it (`authorizationGranted` is always false).
//!
//! ```
//! use curbi::purchase::{self, Verdict};
//! use serde_json::json;
//!
//! let request = json!({
//!     "mandate": {"currency": "USD", "amount_range": {"max": 5000}, "user_cart_confirmation_required": false,
//!                 "expires_at": "2026-12-31T00:00:00Z"},
//!     "checkout": {"id": "cs_1", "status": "ready_for_payment", "currency": "usd", "merchant": {"id": "m_1"},
//!                  "line_items": [{"id": "li_1", "item": {"id": "sku_1"}, "quantity": 1, "unit_amount": 4000,
//!                                  "totals": [{"type": "subtotal", "amount": 4000}, {"type": "total", "amount": 4000}]}],
//!                  "totals": [{"type": "subtotal", "amount": 4000}, {"type": "total", "amount": 4000}]},
//!     "now": "2026-11-20T12:00:00Z"
//! });
//! let decision = purchase::verify_checkout_request(&request);
//! assert_eq!(decision.verdict(), Verdict::Allow);
//! assert!(!decision.authorization_granted());
//! ```

mod action;
mod checkout;
mod decision;
mod ledger;
mod mandate;
pub mod money;
mod read;
mod rules;
pub mod time;
mod totals;

pub use action::{ACTION_OBJECT, ACTION_STEP_UP, resource_matches, verify_action, verify_action_request};
pub use decision::{Decision, Effect, Reason, ReasonCode, StepUp, Verdict};
pub use mandate::Frequency;
pub use money::Currency;
pub use rules::{PURCHASE_OBJECT, PURCHASE_STEP_UP, verify_checkout, verify_checkout_request};
pub use time::Timestamp;
