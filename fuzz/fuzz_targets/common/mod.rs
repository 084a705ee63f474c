//! What the fuzz targets of the purchase and action checks hold of every decision they answer.

/// A decision document: JSON, ALLOW, DENY or STEP_UP, and never granting authority.
pub fn assert_decision(text: &str) {
    let v: serde_json::Value = serde_json::from_str(text).expect("the decision is JSON");
    assert!(matches!(v["decision"].as_str(), Some("ALLOW" | "DENY" | "STEP_UP")), "{text}");
    assert_eq!(v["authorizationGranted"], false, "{text}");
}
