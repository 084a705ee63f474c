"""Curbi: check what an AI agent tells a customer against explicit rules.

Compile a policy once, check many replies::

    import curbi
    policy = curbi.Policy.compile({"prices": [{"item": "Starter", "amount": 49}]})
    result = policy.check("Starter costs $99.")
    result.passed                  # False
    result.findings[0].rule        # "price:mismatch"
    result.findings[0].span        # (14, 17): indices into the Python str

A pass means no configured rule fired. Records are supplied by the caller and are not verified, and no result
grants authority to act.

Read the trust anchor and options once, then verify many Proof of Action bundles offline, from any thread::

    verifier = curbi.Verifier.compile({"keys": my_jwks})
    result = verifier.verify(bundle)   # curbi.verify_bundle's result: result["ok"], result["reason"], ...

Record what an agent does, durably (docs/RECORDER.md): attest before each mutation, confirm with the provider's
answer, hand out bundles that verify offline. Every call waits for the disk with the GIL released; under asyncio,
await the ``_async`` variants, which run on the loop's executor::

    recorder = curbi.Recorder("refunds.db", "curbi-checkpoint-v1.shop.example/refunds", key_file="recorder.jwk")
    recorder.grant(grant)
    answer = recorder.attest({"tenant": "acme", "idempotency_key": "rf-1", "grant": "g-refunds", "action": action})
    receipt = await recorder.confirm_async({..., "outcome": "DONE", "evidence": provider_response_text})
"""

from ._errors import CurbiError, CurbiViolation, UnsupportedError, ValidationError
from ._native import (
    CURRENT_CHECKER_VERSION,
    Batch,
    Check,
    Finding,
    Policy,
    Record,
    Recorder,
    Verifier,
    check,
    checkout_digest,
    error_codes,
    export_regression,
    replay_regression,
    validate_policy,
    verify_action,
    verify_bundle,
    verify_checkout,
    version,
    yaml_to_json,
)

__all__ = [
    "CURRENT_CHECKER_VERSION",
    "Batch",
    "Check",
    "CurbiError",
    "CurbiViolation",
    "Finding",
    "Policy",
    "Record",
    "Recorder",
    "UnsupportedError",
    "ValidationError",
    "Verifier",
    "check",
    "checkout_digest",
    "error_codes",
    "export_regression",
    "replay_regression",
    "validate_policy",
    "verify_action",
    "verify_bundle",
    "verify_checkout",
    "version",
    "yaml_to_json",
]
__version__ = version()
