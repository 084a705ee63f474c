//! The fixtures of the vectors and the demo log: the fixed clock's start, the log's origin, the tenant, and seed
//! 003's four operations (a refund, a booking, a dispatch, a door unlock) with their grants and provider evidence.

use curbi::proof::envelope::Limits;
use curbi::proof::gate::{Grant, Mutation};
use serde_json::{Map, Value};

use crate::canonical::canonical;

/// 2026-11-03T14:00:00Z: the fixed clock's start.
pub const T0: i64 = 1_793_714_400;
/// The log of the vectors.
pub const ORIGIN: &str = "curbi-checkpoint-v1.example.com/test-log";
/// The tenant of every fixture.
pub const TENANT: &str = "tenant:demo";

/// One of seed 003's four operation fixtures (also the demo log of the MCP server's `fetch_signed_receipt`).
#[derive(Debug)]
pub struct Fixture {
    pub agent: &'static str,
    pub operation: &'static str,
    pub resource: &'static str,
    /// Minor units and currency, for the refund.
    pub amount: Option<(i64, &'static str)>,
    pub idempotency_key: &'static str,
    /// The resource pattern the grant allows.
    pub resources: &'static str,
    pub provider: &'static str,
}

pub(crate) const REFUND: usize = 0;
pub(crate) const BOOKING: usize = 1;
pub(crate) const DISPATCH: usize = 2;
pub(crate) const DOOR: usize = 3;

/// Seed 003's fixtures: a refund, a booking, a dispatch and a door unlock, in that order.
pub const FIXTURES: [Fixture; 4] = [
    Fixture {
        agent: "agent:support",
        operation: "billing.refund",
        resource: "charge:ch_1001",
        amount: Some((5000, "USD")),
        idempotency_key: "refund-ch_1001",
        resources: "charge:*",
        provider: "payments-sandbox",
    },
    Fixture {
        agent: "agent:reception",
        operation: "calendar.book",
        resource: "slot:2026-11-03T15:00Z/dr-lee",
        amount: None,
        idempotency_key: "book-dr-lee-2026-11-03T15:00Z",
        resources: "slot:*",
        provider: "calendar-sandbox",
    },
    Fixture {
        agent: "agent:ops",
        operation: "dispatch.create",
        resource: "job:hvac-4411",
        amount: None,
        idempotency_key: "dispatch-hvac-4411",
        resources: "job:*",
        provider: "dispatch-sandbox",
    },
    Fixture {
        agent: "agent:concierge",
        operation: "access.unlock",
        resource: "space:hq/floor-3/door-2",
        amount: None,
        idempotency_key: "unlock-hq-floor-3-door-2",
        resources: "space:hq/*",
        provider: "access-sandbox",
    },
];

impl Fixture {
    /// The exact mutation the fixture attests.
    pub fn mutation(&self) -> Mutation {
        Mutation {
            tenant: TENANT.into(),
            idempotency_key: self.idempotency_key.into(),
            agent: self.agent.into(),
            operation: self.operation.into(),
            resource: self.resource.into(),
            amount: self.amount.map(|a| a.0),
            currency: self.amount.map(|a| a.1.to_string()),
        }
    }

    /// A grant for exactly this agent, operation and resource pattern, valid for 60 days from `T0`.
    pub fn grant(&self) -> Grant {
        Grant {
            id: Some(format!("grant:{}", self.agent.trim_start_matches("agent:"))),
            agent: self.agent.into(),
            operations: vec![self.operation.into()],
            resources: vec![self.resources.into()],
            limits: match self.amount {
                Some((_, c)) => Limits { max_amount: Some(10_000), currency: Some(c.into()), ..Limits::default() },
                None => Limits::default(),
            },
            not_before: None,
            expires_at: T0 + 60 * 86_400,
        }
    }

    /// Synthetic provider evidence naming exactly the mutation (no provider is contacted).
    pub fn evidence(&self, status: &str) -> Vec<u8> {
        let mut e = Map::new();
        e.insert("provider".into(), self.provider.into());
        e.insert("operation".into(), self.operation.into());
        e.insert("resource".into(), self.resource.into());
        if let Some((a, c)) = self.amount {
            e.insert("amount".into(), a.into());
            e.insert("currency".into(), c.to_lowercase().into());
        }
        e.insert("status".into(), status.into());
        canonical(&Value::Object(e)).into_bytes()
    }
}
