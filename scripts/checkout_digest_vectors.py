#!/usr/bin/env python3
"""Writes vectors/checkout_digest/10-rfc8785.json: checkouts as raw text, the RFC 8785 canonical text of each written
out by hand here (the RFC's own examples copied from RFC 8785 §3.2.2 and §3.2.3), and its digest, which this script
takes with hashlib over that hand-written text: unpadded base64url of SHA-256. Nothing here runs Curbi, and Python's
json module is used only to write the file (never to canonicalize), so the expectations are independent of the code
under test. Every runner also recomputes SHA-256 over `canonical` with its own language's library."""
import base64, hashlib, json, pathlib

OUT = pathlib.Path(__file__).resolve().parents[1] / "vectors" / "checkout_digest" / "10-rfc8785.json"


def digest(canonical):
    return base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).rstrip(b"=").decode()


def case(description, checkout, canonical):
    return {"description": description, "checkout": checkout,
            "expected": {"canonical": canonical, "digest": digest(canonical)}}


def refused(description, checkout, code, path):
    return {"description": description, "checkout": checkout, "expected": {"error": {"code": code, "path": path}}}


RFC_3_2_2 = r'''{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}'''
# RFC 8785 §3.2.4, the canonical form of the above, as the RFC prints it.
RFC_3_2_2_CANONICAL = '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' \
                      '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'

RFC_3_2_3 = r'''{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}'''
# §3.2.3: sorted by UTF-16 code units, so U+1F600 (D83D DE00) comes before U+FB33; nothing above U+001F is escaped.
RFC_3_2_3_CANONICAL = '{"\\r":"Carriage Return","1":"One","\u0080":"Control",' \
                      '"\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign",' \
                      '"\U0001F600":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}'

SIGNED = r'''{
  "totals": [{"type": "subtotal", "amount": 2.5e3}, {"type": "total", "amount": 2500.0}],
  "status": "ready_for_payment",
  "ap2": {"merchant_authorization": "eyJhbGciOiJFUzI1NiIsImtpZCI6Im0xIn0..c2lnbmF0dXJl"},
  "metadata": {"ap2": "kept: only the checkout's own ap2 member is left out"},
  "id": "cs_1",
  "currency": "usd",
  "line_items": [{"id": "li_1", "item": {"id": "sku_1"}, "quantity": 1, "unit_amount": 2500}]
}'''
SIGNED_CANONICAL = '{"currency":"usd","id":"cs_1","line_items":[{"id":"li_1","item":{"id":"sku_1"},"quantity":1,' \
                   '"unit_amount":2500}],"metadata":{"ap2":"kept: only the checkout\'s own ap2 member is left out"},' \
                   '"status":"ready_for_payment","totals":[{"amount":2500,"type":"subtotal"},' \
                   '{"amount":2500,"type":"total"}]}'
# The same checkout with other escapes, order and whitespace, another signature and no metadata.ap2 difference.
RESPELLED = '{"\\u0069d":"cs\\u005f1","currency":"\\u0075sd","line_items":[{"unit_amount":25E2,"quantity":1e0,' \
            '"item":{"id":"sku_1"},"id":"li_1"}],"status":"ready_for_payment","metadata":{"ap2":"kept: only the ' \
            'checkout\'s own ap2 member is left out"},"totals":[{"amount":2500,"type":"subtotal"},{"type":"total",' \
            '"amount":250000e-2}],"ap2":{"merchant_authorization":"another..signature"}}'

STRINGS = r'''{"id": "cs_2", "merchant": {"id": "m_caf\u00e9", "name": "Caf\u00e9 \"Noir\"\t\u001f\u007f\u2028"}}'''
STRINGS_CANONICAL = '{"id":"cs_2","merchant":{"id":"m_caf\u00e9","name":"Caf\u00e9 \\"Noir\\"\\t\\u001f\u007f\u2028"}}'

cases = [
    case("RFC 8785 §3.2.2's example: numbers as ECMAScript writes doubles, strings as JSON.stringify escapes them",
         RFC_3_2_2, RFC_3_2_2_CANONICAL),
    case("RFC 8785 §3.2.3's sorting example: member names ordered by UTF-16 code units, not by code points or UTF-8",
         RFC_3_2_3, RFC_3_2_3_CANONICAL),
    case("A checkout signed as UCP's AP2 extension signs it: its ap2 member is left out of the digest (a nested ap2 "
         "is not), amounts written 2.5e3 and 2500.0 are the double 2500", SIGNED, SIGNED_CANONICAL),
    case("The same checkout spelled otherwise (escaped names and values, 25E2, 1e0, 250000e-2, other order, no "
         "whitespace) with another ap2: the same canonical bytes, the same digest", RESPELLED, SIGNED_CANONICAL),
    case("Strings: only \", \\ and controls below U+0020 are escaped (\\t short, U+001F as \\u001f); DEL, U+2028 and "
         "non-ASCII letters are written as themselves", STRINGS, STRINGS_CANONICAL),
    refused("A number beyond the IEEE 754 doubles has no RFC 8785 form: refused at its pointer, never hashed",
            '{"id":"cs_3","exchange_rate":1e400}', "out_of_range", "/exchange_rate"),
    refused("Not JSON at all", '{"id":"cs_4",', "invalid_json", ""),
]
doc = {"description": "checkout_digest: unpadded base64url of SHA-256 over the RFC 8785 canonical checkout without "
       "its top-level ap2 member, the digest a mandate's checkout_digest pins. Canonical texts written by hand, digests "
       "by hashlib (scripts/checkout_digest_vectors.py).", "cases": cases}
OUT.parent.mkdir(exist_ok=True)
OUT.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
