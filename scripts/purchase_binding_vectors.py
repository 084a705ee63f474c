#!/usr/bin/env python3
"""Writes vectors/purchase/80-binding.json: cart digests, AP2 closed checkout mandates and UCP/AP2
merchant_authorization signatures, made with Python's `cryptography` from fixed test keys, independently of Curbi;
and vectors/purchase/81-binding-es384-es512.json: the same signatures with ES384 (P-384, SHA-384) and ES512 (P-521,
SHA-512).

Canonical JSON here is json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False), which is RFC 8785 for
these documents (ASCII member names, integers, strings without control characters). Expectations are written by
hand below. ECDSA signatures are deterministic (RFC 6979), so a re-run writes the same bytes.
"""
import base64, copy, hashlib, json, pathlib
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

VECTORS = pathlib.Path(__file__).resolve().parents[1] / "vectors" / "purchase"
OUT = VECTORS / "80-binding.json"
OUT_EC = VECTORS / "81-binding-es384-es512.json"
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
jcs = lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
seed = lambda label: hashlib.sha256(label.encode()).digest()

P256 = ec.derive_private_key(int.from_bytes(seed("curbi test merchant p256"), "big"), ec.SECP256R1())
ED = ed25519.Ed25519PrivateKey.from_private_bytes(seed("curbi test merchant ed25519"))
OTHER = ec.derive_private_key(int.from_bytes(seed("curbi test someone else p256"), "big"), ec.SECP256R1())
P384 = ec.derive_private_key(int.from_bytes(seed("curbi test merchant p384"), "big"), ec.SECP384R1())
OTHER384 = ec.derive_private_key(int.from_bytes(seed("curbi test someone else p384"), "big"), ec.SECP384R1())
P521 = ec.derive_private_key(int.from_bytes(seed("curbi test merchant p521"), "big"), ec.SECP521R1())
OTHER521 = ec.derive_private_key(int.from_bytes(seed("curbi test someone else p521"), "big"), ec.SECP521R1())

# RFC 7518 §3.4 and §6.2.1: each JWS ECDSA algorithm, its curve, its hash and the size of r, s, x and y in bytes.
ECDSA = {"ES256": ("P-256", hashes.SHA256, 32), "ES384": ("P-384", hashes.SHA384, 48),
         "ES512": ("P-521", hashes.SHA512, 66)}
CURVE_ALG = {"secp256r1": "ES256", "secp384r1": "ES384", "secp521r1": "ES512"}
# The group order of each curve (SEC 2), to write a signature's s as n - s.
ORDER = {"ES256": 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551,
         "ES384": int("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF581A0DB248B0A77AECEC196ACCC52973", 16),
         "ES512": int("01FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFA51868783BF2F966B7FCC0148F709A5D"
                      "03BB5C9B8899C47AEBB6FB71E91386409", 16)}

def ec_jwk(k, kid):
    alg = CURVE_ALG[k.curve.name]
    crv, _, size = ECDSA[alg]
    n = k.public_key().public_numbers()
    return {"kty": "EC", "crv": crv, "x": b64(n.x.to_bytes(size, "big")), "y": b64(n.y.to_bytes(size, "big")),
            "kid": kid, "alg": alg, "use": "sig"}

def ed_jwk(k, kid):
    from cryptography.hazmat.primitives import serialization as s
    raw = k.public_key().public_bytes(s.Encoding.Raw, s.PublicFormat.Raw)
    return {"kty": "OKP", "crv": "Ed25519", "x": b64(raw), "kid": kid}

def sign(key, alg, kid, payload_b64, header_text=None, high_s=False, cut=0):
    """The JWS signature: Ed25519 for EdDSA, else deterministic ECDSA (RFC 6979) with the hash and the r || s size
    of the key's own curve (so a header may name another alg than the key's). high_s writes s as n - s (the same
    signature, RFC 7518 does not ask for low s); cut drops that many bytes from the end of the signature."""
    header = b64((header_text or json.dumps({"alg": alg, "kid": kid}, separators=(",", ":"))).encode())
    msg = f"{header}.{payload_b64}".encode()
    if isinstance(key, ed25519.Ed25519PrivateKey):
        sig = key.sign(msg)
    else:
        key_alg = CURVE_ALG[key.curve.name]
        _, hash_, size = ECDSA[key_alg]
        r, s = decode_dss_signature(key.sign(msg, ec.ECDSA(hash_(), deterministic_signing=True)))
        if high_s:
            s = ORDER[key_alg] - s
            # The order is right: (r, n - s) verifies as (r, s) does (raises InvalidSignature otherwise).
            key.public_key().verify(encode_dss_signature(r, s), msg, ec.ECDSA(hash_()))
        sig = r.to_bytes(size, "big") + s.to_bytes(size, "big")
    return header, b64(sig[:len(sig) - cut])

def merchant_authorization(checkout, key=P256, alg="ES256", kid="merchant_2026", header_text=None, **kw):
    payload = b64(jcs({k: v for k, v in checkout.items() if k != "ap2"}).encode())
    header, sig = sign(key, alg, kid, payload, header_text, **kw)
    return f"{header}..{sig}"

def checkout_jwt(checkout, key=P256, kid="merchant_2026", payload_text=None, alg="ES256", **kw):
    payload = b64((payload_text or jcs({k: v for k, v in checkout.items() if k != "ap2"})).encode())
    header, sig = sign(key, alg, kid, payload, **kw)
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
    case("An RSA key cannot verify ES256, ES384, ES512 or EdDSA: refused rather than skipped",
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
       "verified against pinned merchant keys (ES256, EdDSA; ES384 and ES512 in 81-binding-es384-es512.json). Signatures made by scripts/purchase_binding_vectors.py "
       "with Python's cryptography, independently of Curbi.", "check": "purchase", "cases": cases}
OUT.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")

# ES384 and ES512: the merchant pins P-384 and P-521 keys beside its P-256 and Ed25519 ones.
KEYS_EC = {"keys": KEYS["keys"] + [ec_jwk(P384, "merchant_p384_2026"), ec_jwk(P521, "merchant_p521_2026")]}
K384 = dict(key=P384, alg="ES384", kid="merchant_p384_2026")
K521 = dict(key=P521, alg="ES512", kid="merchant_p521_2026")
MA = "/checkout/ap2/merchant_authorization"
INVALID = [("merchant_authorization_invalid", MA)]
JWT_INVALID = [("merchant_authorization_invalid", "/checkout_mandate/checkout_jwt")]
S384, S521 = signed(CHECKOUT, **K384), signed(CHECKOUT, **K521)
ec_cases = [
    case("merchant_authorization: an ES384 detached JWS (ECDSA P-384, SHA-384, r || s of 96 bytes) over the JCS "
         "checkout without ap2, verified with the pinned P-384 key", req(S384, merchant_keys=KEYS_EC)),
    case("merchant_authorization: an ES512 detached JWS (ECDSA P-521, SHA-512, r || s of 132 bytes) verified with the "
         "pinned P-521 key", req(S521, merchant_keys=KEYS_EC)),
    case("A UCP checkout as the business returned it, signed ES512: the signature covers ucp and links too",
         req(signed(UCP, **K521), merchant_keys=KEYS_EC, merchant=MERCHANT)),
    case("ES384 with s written as n - s: the same signature, and RFC 7518 does not ask for a low s (nor is one asked "
         "of ES256)", req(signed(CHECKOUT, high_s=True, **K384), merchant_keys=KEYS_EC)),
    case("ES512 with s written as n - s: accepted, as for ES256 and ES384",
         req(signed(CHECKOUT, high_s=True, **K521), merchant_keys=KEYS_EC)),
    case("ES256 with s written as n - s: accepted, as it always was",
         req(signed(CHECKOUT, high_s=True), merchant_keys=KEYS_EC)),
    case("The checkout was changed after the merchant signed it ES384: the signature no longer verifies",
         req(dict(renamed(CHECKOUT), ap2=S384["ap2"]), merchant_keys=KEYS_EC), INVALID),
    case("The checkout was changed after the merchant signed it ES512: the signature no longer verifies",
         req(dict(renamed(CHECKOUT), ap2=S521["ap2"]), merchant_keys=KEYS_EC), INVALID),
    case("ES384 signed by another P-384 key under the pinned kid",
         req(signed(CHECKOUT, **dict(K384, key=OTHER384)), merchant_keys=KEYS_EC), INVALID),
    case("ES512 signed by another P-521 key under the pinned kid",
         req(signed(CHECKOUT, **dict(K521, key=OTHER521)), merchant_keys=KEYS_EC), INVALID),
    case("ES384 by a P-384 key that is not pinned (kid unknown)",
         req(signed(CHECKOUT, key=OTHER384, alg="ES384", kid="attacker_384"), merchant_keys=KEYS_EC), INVALID),
    case("The header names ES512 for the P-384 key's kid, signed by that key: ES512 needs P-521, so the alg is not "
         "the pinned key's", req(signed(CHECKOUT, **dict(K384, alg="ES512")), merchant_keys=KEYS_EC), INVALID),
    case("The header names ES384 for the P-521 key's kid, signed by that key: ES384 needs P-384",
         req(signed(CHECKOUT, **dict(K521, alg="ES384")), merchant_keys=KEYS_EC), INVALID),
    case("The header names ES384 for the P-256 key's kid, signed by the P-256 key: the alg is not the key's",
         req(signed(CHECKOUT, alg="ES384"), merchant_keys=KEYS_EC), INVALID),
    case("The header names ES256 for the P-384 key's kid: the alg is not the key's",
         req(signed(CHECKOUT, **dict(K384, alg="ES256")), merchant_keys=KEYS_EC), INVALID),
    case("ES384 with its signature cut to 95 bytes: r || s must be 96 bytes",
         req(signed(CHECKOUT, cut=1, **K384), merchant_keys=KEYS_EC), INVALID),
    case("ES512 with its signature cut to 131 bytes: r || s must be 132 bytes",
         req(signed(CHECKOUT, cut=1, **K521), merchant_keys=KEYS_EC), INVALID),
    case("ES512 with a 64-byte P-256 signature under the P-521 key's kid (the P-256 key's ES256 signature): neither "
         "the length nor the key is ES512's",
         req(signed(CHECKOUT, key=P256, alg="ES512", kid="merchant_p521_2026"), merchant_keys=KEYS_EC), INVALID),
    case("AP2 closed checkout mandate whose checkout_jwt is signed ES384 by the pinned P-384 key, and that checkout "
         "signed ES512",
         req(S521, merchant_keys=KEYS_EC, checkout_mandate=closed(CHECKOUT, jwt=checkout_jwt(CHECKOUT, **K384)))),
    case("checkout_jwt signed ES512 by the pinned P-521 key", req(S384, merchant_keys=KEYS_EC,
         checkout_mandate=closed(CHECKOUT, jwt=checkout_jwt(CHECKOUT, **K521)))),
    case("checkout_jwt signed ES512 by another P-521 key under the pinned kid", req(S384, merchant_keys=KEYS_EC,
         checkout_mandate=closed(CHECKOUT, jwt=checkout_jwt(CHECKOUT, **dict(K521, key=OTHER521)))),
         JWT_INVALID),
    case("checkout_jwt whose header names ES512 for the P-384 key's kid", req(S384, merchant_keys=KEYS_EC,
         checkout_mandate=closed(CHECKOUT, jwt=checkout_jwt(CHECKOUT, **dict(K384, alg="ES512")))),
         JWT_INVALID),
    case("checkout_jwt signed ES384 with its signature cut to 95 bytes (checkout_hash is of that text)",
         req(S384, merchant_keys=KEYS_EC, checkout_mandate=closed(CHECKOUT, jwt=checkout_jwt(CHECKOUT, cut=1, **K384))),
         JWT_INVALID),
    case("The checkout mandate's ES512 checkout_jwt carries the cart approved, and the agent completes a renamed one, "
         "signed ES512 by the merchant: the mandate does not bind it",
         req(signed(renamed(CHECKOUT), **K521), merchant_keys=KEYS_EC,
             checkout_mandate=closed(CHECKOUT, jwt=checkout_jwt(CHECKOUT, **K521))),
         [("mandate_scope_mismatch", "/checkout_mandate/checkout_jwt")]),
    case("A pinned P-384 key whose x is 47 bytes is refused, and the key set with it",
         req(S384, merchant_keys={"keys": [dict(ec_jwk(P384, "merchant_p384_2026"), x=b64(b"\x01" * 47))]}),
         [("malformed", "/merchant_keys/keys/0/x")]),
    case("A pinned P-384 key with P-256's 32-byte coordinates is refused",
         req(S384, merchant_keys={"keys": [dict(ec_jwk(P256, "merchant_p384_2026"), crv="P-384", alg="ES384")]}),
         [("malformed", "/merchant_keys/keys/0/x"), ("malformed", "/merchant_keys/keys/0/y")]),
    case("A pinned P-521 key whose y is 65 bytes (its leading zero byte left out) is refused",
         req(S521, merchant_keys={"keys": [dict(ec_jwk(P521, "merchant_p521_2026"),
                                                y=b64(P521.public_key().public_numbers().y.to_bytes(66, "big")[1:]))]}),
         [("malformed", "/merchant_keys/keys/0/y")]),
    case("A pinned P-521 key whose y is another number of 66 bytes: x and y are not a point on P-521",
         req(S521, merchant_keys={"keys": [dict(ec_jwk(P521, "merchant_p521_2026"), y=b64((1).to_bytes(66, "big")))]}),
         [("malformed", "/merchant_keys/keys/0/x")]),
    case("A P-384 JWK whose alg says ES512: the key is for ES384, so the key set is refused",
         req(S384, merchant_keys={"keys": [dict(ec_jwk(P384, "merchant_p384_2026"), alg="ES512")]}),
         [("malformed", "/merchant_keys/keys/0/alg")]),
    case("A P-521 JWK whose alg says ES256: the key is for ES512",
         req(S521, merchant_keys={"keys": [dict(ec_jwk(P521, "merchant_p521_2026"), alg="ES256")]}),
         [("malformed", "/merchant_keys/keys/0/alg")]),
    case("A P-256 JWK whose alg says ES384: the key is for ES256",
         req(S, merchant_keys={"keys": [dict(ec_jwk(P256, "merchant_2026"), alg="ES384")]}),
         [("malformed", "/merchant_keys/keys/0/alg")]),
    case("An EC key on secp256k1 (ES256K) is not one of the curves: refused rather than skipped",
         req(S384, merchant_keys={"keys": [dict(ec_jwk(P256, "k1"), crv="secp256k1", alg="ES256K")]}),
         [("malformed", "/merchant_keys/keys/0/kty")]),
]
OUT_EC.write_text(json.dumps({
    "description": "UCP/AP2 merchant_authorization and AP2 checkout_jwt signed ES384 (ECDSA P-384, SHA-384) and ES512 "
    "(ECDSA P-521, SHA-512), as AP2 v0.2 asks, against pinned P-384 and P-521 JWKs (RFC 7518 §3.4, §6.2.1). "
    "Signatures made by scripts/purchase_binding_vectors.py with Python's cryptography (RFC 6979 deterministic "
    "ECDSA), independently of Curbi.", "check": "purchase", "cases": ec_cases}, indent=2, ensure_ascii=False) + "\n")
