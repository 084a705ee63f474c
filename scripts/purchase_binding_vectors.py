#!/usr/bin/env python3
"""Writes vectors/purchase/80-binding.json: cart digests, AP2 closed checkout mandates and UCP/AP2
merchant_authorization signatures, made with Python's `cryptography` from fixed test keys, independently of Curbi.

Canonical JSON here is json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False), which is RFC 8785 for
these documents (ASCII member names, integers, strings without control characters). Expectations are written by
hand below. ECDSA signatures are deterministic (RFC 6979), so a re-run writes the same bytes.
"""
import base64, copy, hashlib, json, pathlib
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

OUT = pathlib.Path(__file__).resolve().parents[1] / "vectors" / "purchase" / "80-binding.json"
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
jcs = lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
seed = lambda label: hashlib.sha256(label.encode()).digest()

P256 = ec.derive_private_key(int.from_bytes(seed("curbi test merchant p256"), "big"), ec.SECP256R1())
ED = ed25519.Ed25519PrivateKey.from_private_bytes(seed("curbi test merchant ed25519"))
OTHER = ec.derive_private_key(int.from_bytes(seed("curbi test someone else p256"), "big"), ec.SECP256R1())

def ec_jwk(k, kid):
    n = k.public_key().public_numbers()
    return {"kty": "EC", "crv": "P-256", "x": b64(n.x.to_bytes(32, "big")), "y": b64(n.y.to_bytes(32, "big")),
            "kid": kid, "alg": "ES256", "use": "sig"}

def ed_jwk(k, kid):
    from cryptography.hazmat.primitives import serialization as s
    raw = k.public_key().public_bytes(s.Encoding.Raw, s.PublicFormat.Raw)
    return {"kty": "OKP", "crv": "Ed25519", "x": b64(raw), "kid": kid}

def sign(key, alg, kid, payload_b64, header_text=None):
    header = b64((header_text or json.dumps({"alg": alg, "kid": kid}, separators=(",", ":"))).encode())
    msg = f"{header}.{payload_b64}".encode()
    if alg == "EdDSA":
        sig = key.sign(msg)
    else:
        r, s = decode_dss_signature(key.sign(msg, ec.ECDSA(hashes.SHA256(), deterministic_signing=True)))
        sig = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    return header, b64(sig)

def merchant_authorization(checkout, key=P256, alg="ES256", kid="merchant_2026", header_text=None):
    payload = b64(jcs({k: v for k, v in checkout.items() if k != "ap2"}).encode())
    header, sig = sign(key, alg, kid, payload, header_text)
    return f"{header}..{sig}"

def checkout_jwt(checkout, key=P256, kid="merchant_2026", payload_text=None):
    payload = b64((payload_text or jcs({k: v for k, v in checkout.items() if k != "ap2"})).encode())
    header, sig = sign(key, "ES256", kid, payload)
    return f"{header}.{payload}.{sig}"

digest = lambda checkout: b64(hashlib.sha256(jcs({k: v for k, v in checkout.items() if k != "ap2"}).encode()).digest())

CHECKOUT = {
    "id": "cs_tea_1", "status": "ready_for_payment", "currency": "usd",
    "merchant": {"id": "merch_tea", "name": "Tea House"},
    "line_items": [{"id": "li_1", "item": {"id": "sku_sencha", "name": "Sencha 100 g"}, "quantity": 2,
                    "unit_amount": 1250, "totals": [{"type": "subtotal", "amount": 2500}, {"type": "total", "amount": 2500}]}],
    "totals": [{"type": "subtotal", "amount": 2500}, {"type": "fulfillment", "amount": 400}, {"type": "total", "amount": 2900}],
}
MANDATE = {"currency": "USD", "amount_range": {"max": 20000}, "merchants": [{"id": "merch_tea", "name": "Tea House"}],
           "user_cart_confirmation_required": False, "expires_at": "2026-12-31T00:00:00Z"}
KEYS = {"keys": [ec_jwk(P256, "merchant_2026"), ed_jwk(ED, "merchant_ed_2026")]}
NOW = "2026-11-20T12:00:00Z"

def renamed(c):
    c = copy.deepcopy(c)
    c["line_items"][0]["item"]["name"] = "Sencha 100 g (last year's harvest)"
    return c

def signed(c, **kw):
    c = copy.deepcopy(c)
    c["ap2"] = {"merchant_authorization": merchant_authorization(c, **kw)}
    return c

def req(checkout, mandate=None, **extra):
    r = {"mandate": mandate or MANDATE, "checkout": checkout, "now": NOW}
    r.update(extra)
    return r

def case(desc, request, reasons=()):
    reasons = [{"code": c, "effect": "DENY", "path": p} for c, p in reasons]
    return {"description": desc, "input": request,
            "expected": {"decision": "DENY" if reasons else "ALLOW", "reasons": reasons}}

def closed(c, jwt=None, **kw):
    jwt = jwt or checkout_jwt(c)
    m = {"vct": "mandate.checkout.1", "checkout_jwt": jwt, "checkout_hash": b64(hashlib.sha256(jwt.encode()).digest()),
         "iat": 1795003200, "exp": 1795262400, "_sd_alg": "sha-256"}
    m.update(kw)
    return m

# The checkout as UCP writes it (no merchant member: the business is the endpoint), signed as UCP's AP2 extension
# says, with ucp and links inside the signature and only ap2 left out.
UCP = {
    "ucp": {"version": "2026-04-08", "capabilities": {"dev.ucp.shopping.ap2_mandate": [{"version": "2026-04-08"}]}},
    "id": "chk_tea_1", "status": "ready_for_complete", "currency": "USD",
    "line_items": [{"id": "li_1", "item": {"id": "sku_sencha", "title": "Sencha 100 g", "price": 1250}, "quantity": 2,
                    "totals": [{"type": "subtotal", "amount": 2500}, {"type": "total", "amount": 2500}]}],
    "totals": [{"type": "subtotal", "display_text": "Subtotal", "amount": 2500},
               {"type": "tax", "display_text": "Tax", "amount": 200}, {"type": "total", "display_text": "Total", "amount": 2700}],
    "links": [{"type": "terms_of_service", "url": "https://tea.example/terms"}],
}
MERCHANT = {"id": "merch_tea", "name": "Tea House"}

pinned = dict(MANDATE, checkout_digest=digest(CHECKOUT))
S = signed(CHECKOUT)
cases = [
    case("The mandate pins the approved cart by its RFC 8785 SHA-256 digest and the checkout is that cart",
         req(CHECKOUT, pinned)),
    case("The same digest with the checkout's members in another order and other whitespace: canonical JSON is "
         "the same", req(json.loads(json.dumps(CHECKOUT, sort_keys=True)), pinned)),
    case("One line renamed after the user approved the cart: the digest differs, whatever else still holds",
         req(renamed(CHECKOUT), pinned), [("mandate_scope_mismatch", "/mandate/checkout_digest")]),
    case("The merchant's ap2 signature added after approval is not part of the digest (UCP signs and hashes the "
         "checkout without ap2); no keys are pinned, so it is not verified", req(S, pinned)),
    case("merchant_authorization: an ES256 detached JWS over the JCS checkout without ap2, verified with the "
         "pinned P-256 key", req(S, merchant_keys=KEYS)),
    case("merchant_authorization: EdDSA (Ed25519) with the pinned OKP key",
         req(signed(CHECKOUT, key=ED, alg="EdDSA", kid="merchant_ed_2026"), merchant_keys=KEYS)),
    case("The checkout was changed after the merchant signed it: the signature no longer verifies",
         req(dict(renamed(CHECKOUT), ap2=S["ap2"]), merchant_keys=KEYS),
         [("merchant_authorization_invalid", "/checkout/ap2/merchant_authorization")]),
    case("Merchant keys are pinned and the checkout carries no merchant_authorization",
         req(CHECKOUT, merchant_keys=KEYS), [("merchant_authorization_missing", "/checkout/ap2/merchant_authorization")]),
    case("A UCP checkout exactly as the business returned it, ap2.merchant_authorization included, the merchant "
         "beside it: the signature covers ucp and links too", req(signed(UCP), merchant_keys=KEYS, merchant=MERCHANT)),
    case("The same UCP checkout with its tax entry's display text changed: every member is signed",
         req(dict(signed(UCP), totals=[UCP["totals"][0], dict(UCP["totals"][1], display_text="VAT"), UCP["totals"][2]]),
             merchant_keys=KEYS, merchant=MERCHANT),
         [("merchant_authorization_invalid", "/checkout/ap2/merchant_authorization")]),
    case("An AP2 closed checkout mandate whose checkout_jwt carries the UCP checkout, and the UCP checkout",
         req(signed(UCP), merchant_keys=KEYS, merchant=MERCHANT, checkout_mandate=closed(UCP))),
    case("Signed by a key that is not pinned (kid unknown)",
         req(signed(CHECKOUT, key=OTHER, kid="attacker_1"), merchant_keys=KEYS),
         [("merchant_authorization_invalid", "/checkout/ap2/merchant_authorization")]),
    case("The protected header names kid twice, an unpinned kid and then the pinned one, and the signature is good: "
         "RFC 7515 header names are unique, so the header is refused, never read with the last (or first) copy",
         req(signed(CHECKOUT, key=ED, alg="EdDSA", kid="merchant_ed_2026",
                    header_text='{"alg":"EdDSA","kid":"attacker_1","kid":"merchant_ed_2026"}'), merchant_keys=KEYS),
         [("merchant_authorization_invalid", "/checkout/ap2/merchant_authorization")]),
    case("Signed by another key under the pinned kid",
         req(signed(CHECKOUT, key=OTHER), merchant_keys=KEYS),
         [("merchant_authorization_invalid", "/checkout/ap2/merchant_authorization")]),
    case("The header names EdDSA for the P-256 key's kid: the algorithm must be the pinned key's",
         req(signed(CHECKOUT, key=ED, alg="EdDSA", kid="merchant_2026"), merchant_keys=KEYS),
         [("merchant_authorization_invalid", "/checkout/ap2/merchant_authorization")]),
    case("A JWS with its payload attached is not the detached form UCP specifies",
         req(dict(CHECKOUT, ap2={"merchant_authorization": checkout_jwt(CHECKOUT)}), merchant_keys=KEYS),
         [("merchant_authorization_invalid", "/checkout/ap2/merchant_authorization")]),
    case("A pinned EC key whose x is 31 bytes is refused, and the key set with it: no signature is checked "
         "against fewer keys than meant",
         req(S, merchant_keys={"keys": [dict(ec_jwk(P256, "merchant_2026"), x=b64(b"\x01" * 31))]}),
         [("malformed", "/merchant_keys/keys/0/x")]),
    case("An RSA key cannot verify ES256 or EdDSA: refused rather than skipped",
         req(S, merchant_keys={"keys": [{"kty": "RSA", "crv": "none", "x": "AQAB", "kid": "rsa_1"}]}),
         [("malformed", "/merchant_keys/keys/0/kty")]),
    case("AP2 closed checkout mandate: checkout_hash is the SHA-256 of checkout_jwt, whose payload is this checkout, "
         "signed by a pinned merchant key", req(S, merchant_keys=KEYS, checkout_mandate=closed(CHECKOUT))),
    case("AP2 closed checkout mandate without pinned keys: the hash and the carried checkout are still checked",
         req(CHECKOUT, checkout_mandate=closed(CHECKOUT))),
    case("checkout_hash of another checkout_jwt: the mandate does not bind this one",
         req(CHECKOUT, checkout_mandate=closed(CHECKOUT, checkout_hash=b64(hashlib.sha256(b"another").digest()))),
         [("mandate_scope_mismatch", "/checkout_mandate/checkout_hash")]),
    case("The checkout mandate binds the cart the user approved, and the agent completes a renamed one",
         req(renamed(CHECKOUT), checkout_mandate=closed(CHECKOUT)),
         [("mandate_scope_mismatch", "/checkout_mandate/checkout_jwt")]),
    case("checkout_jwt's payload writes currency twice (eur, then this checkout's usd), signed by the merchant: a "
         "last-wins reader would see this checkout, the strict reader refuses the payload",
         req(S, merchant_keys=KEYS, checkout_mandate=closed(CHECKOUT, jwt=checkout_jwt(
             CHECKOUT, payload_text=jcs(CHECKOUT).replace('{"currency":"usd",', '{"currency":"eur","currency":"usd",', 1)))),
         [("malformed", "/checkout_mandate/checkout_jwt")]),
    case("checkout_jwt signed by a key that is not the merchant's", req(S, merchant_keys=KEYS,
         checkout_mandate=closed(CHECKOUT, jwt=checkout_jwt(CHECKOUT, key=OTHER))),
         [("merchant_authorization_invalid", "/checkout_mandate/checkout_jwt")]),
    case("The checkout mandate's exp 1795176000 is 2026-11-20T12:00:00Z, exactly now: expired (now >= exp)",
         req(CHECKOUT, checkout_mandate=closed(CHECKOUT, exp=1795176000)),
         [("mandate_expired", "/checkout_mandate/exp")]),
    case("An open checkout mandate (constraints, no checkout) cannot bind a checkout",
         req(CHECKOUT, checkout_mandate=closed(CHECKOUT, vct="mandate.checkout.open.1")),
         [("malformed", "/checkout_mandate/vct")]),
    case("A checkout_hash made with another _sd_alg is not implemented",
         req(CHECKOUT, checkout_mandate=closed(CHECKOUT, _sd_alg="sha-384")), [("malformed", "/checkout_mandate/_sd_alg")]),
]
doc = {"description": "What ties the checkout to what the user approved: the mandate's cart digest (RFC 8785, "
       "SHA-256), an AP2 closed checkout mandate's checkout_hash and checkout_jwt, and UCP/AP2 merchant_authorization "
       "verified against pinned merchant keys (ES256, EdDSA). Signatures made by scripts/purchase_binding_vectors.py "
       "with Python's cryptography, independently of Curbi.", "check": "purchase", "cases": cases}
OUT.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
