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
"""

from ._errors import CurbiError, CurbiViolation, UnsupportedError, ValidationError
from ._native import (
    CURRENT_CHECKER_VERSION,
    Batch,
    Check,
    Finding,
    Policy,
    Record,
    Verifier,
    check,
    error_codes,
    export_regression,
    replay_regression,
    validate_policy,
    verify_action,
    verify_bundle,
    verify_checkout,
    version,
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
    "UnsupportedError",
    "ValidationError",
    "Verifier",
    "check",
    "error_codes",
    "export_regression",
    "replay_regression",
    "validate_policy",
    "verify_action",
    "verify_bundle",
    "verify_checkout",
    "version",
]
__version__ = version()
