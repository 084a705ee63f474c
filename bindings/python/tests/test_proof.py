"""The shared Proof of Action vectors through curbi.verify_bundle and curbi.Verifier (vectors/README.md, `proof/`)."""

import concurrent.futures
import json
import pathlib

import curbi
import pytest

from conftest import RAN

DIR = pathlib.Path(__file__).resolve().parents[3] / "vectors" / "proof"
CASES = json.loads((DIR / "cases.json").read_text())["cases"]


def vector(case):
    """A case's document: `{"input", "expected"}`, the input being the whole verify_bundle request."""
    return json.loads((DIR / case["file"]).read_text(encoding="utf-8"))


def split(request):
    """A request `{bundle, ...options}` as (bundle, options)."""
    options = dict(request)
    return options.pop("bundle"), options


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_proof_vector(case):
    RAN["vectors"] += 1
    doc = vector(case)
    got, want = curbi.verify_bundle(doc["input"]), doc["expected"]
    assert (got["ok"], got["reason"]) == (want["ok"], want["reason"])
    if "items" in want:
        assert [i["reason"] for i in got["items"]] == want["items"]


def test_a_rejected_bundle_is_a_result_and_bad_json_raises():
    assert curbi.verify_bundle({"bundle": {}, "keys": {}})["ok"] is False
    with pytest.raises(curbi.CurbiError) as e:
        curbi.verify_bundle("{not json")
    assert e.value.code == "invalid_json"


def has_bundle(case):
    request = vector(case)["input"]
    return isinstance(request, dict) and "bundle" in request


HANDLE_CASES = [c for c in CASES if has_bundle(c)]


@pytest.mark.parametrize("case", HANDLE_CASES, ids=[c["name"] for c in HANDLE_CASES])
def test_a_verifier_gives_the_whole_requests_result(case):
    # As core/tests/proof_vectors.rs: options the verifier refuses are the whole request's `malformed` error.
    RAN["vectors"] += 1
    request = vector(case)["input"]
    bundle, options = split(request)
    whole = curbi.verify_bundle(request)
    try:
        verifier = curbi.Verifier.compile(options)
    except curbi.CurbiError as e:
        assert whole["reason"] == "malformed"
        assert (whole["error"]["code"], whole["error"]["path"]) == (e.code, e.path)
        return
    # The bundle as JSON text, which also carries a bundle that is not an object, and as a dict.
    assert verifier.verify(json.dumps(bundle)) == whole
    if isinstance(bundle, dict):
        assert verifier.verify(bundle) == whole


def test_the_vectors_build_verifiers_and_refuse_bad_options():
    built = refused = 0
    for case in HANDLE_CASES:
        try:
            curbi.Verifier.compile(split(vector(case)["input"])[1])
            built += 1
        except curbi.CurbiError:
            refused += 1
    assert built >= 55 and refused >= 10, (built, refused)


def valid_request():
    return vector(next(c for c in CASES if c["name"] == "valid-four-domains"))["input"]


def test_a_verifier_reads_dicts_and_json_strings_and_refuses_bytes():
    bundle, options = split(valid_request())
    want = curbi.verify_bundle(valid_request())
    assert want["reason"] == "verifies"
    for verifier in (curbi.Verifier.compile(options), curbi.Verifier.compile(json.dumps(options))):
        assert verifier.verify(bundle) == verifier.verify(json.dumps(bundle)) == want
    assert repr(curbi.Verifier.compile(options)).startswith("Verifier(keys=")
    # Like every document of the package (curbi.verify_bundle included), bytes are not read: decode them first.
    for call in (
        lambda: curbi.Verifier.compile(json.dumps(options).encode()),
        lambda: curbi.Verifier.compile(options).verify(json.dumps(bundle).encode()),
        lambda: curbi.verify_bundle(json.dumps(valid_request()).encode()),
    ):
        with pytest.raises(curbi.ValidationError) as e:
            call()
        assert (e.value.code, e.value.path) == ("invalid_type", "")


def test_only_text_that_is_not_json_raises_from_verify():
    verifier = curbi.Verifier.compile(split(valid_request())[1])
    for text in ("{", "{not json", ""):
        with pytest.raises(curbi.ValidationError) as e:
            verifier.verify(text)
        assert e.value.code == "invalid_json"
    got = verifier.verify({"object": "curbi.proof/0.1", "x": 1})
    assert (got["ok"], got["reason"], got["error"]["path"]) == (False, "malformed", "/bundle/x")
    # Repeated members in bundle text are refused at the repeated member's pointer, by the handle and by
    # verify_bundle alike.
    got = verifier.verify('{"object": "curbi.proof/0.1", "head": "a", "head": "b"}')
    assert (got["reason"], got["error"]["code"], got["error"]["path"]) == ("malformed", "duplicate_member", "/bundle/head")
    whole = '{"keys": {"keys": []}, "bundle": {"head": "a", "head": "b"}}'
    got = curbi.verify_bundle(whole)
    assert (got["reason"], got["error"]["code"], got["error"]["path"]) == ("malformed", "duplicate_member", "/bundle/head")


@pytest.mark.parametrize(
    "options, code, path",
    [
        ("[]", "invalid_type", ""),
        ("{not json", "invalid_json", ""),
        # A str reaches the core as written, so a repeated member is refused, not silently collapsed.
        ('{"keys": {"keys": []}, "keys": {"keys": []}}', "duplicate_member", "/keys"),
        ({"keys": {"keys": []}, "bundle": {}}, "unknown_field", "/bundle"),
        ({}, "missing_field", "/keys"),
    ],
)
def test_unusable_options_raise_with_their_code_and_path(options, code, path):
    with pytest.raises(curbi.ValidationError) as e:
        curbi.Verifier.compile(options)
    assert (e.value.code, e.value.path) == (code, path)


def test_one_verifier_shared_by_threads_gives_the_same_results():
    options = split(valid_request())[1]
    bundles = [b for b, o in (split(vector(c)["input"]) for c in HANDLE_CASES) if o == options and isinstance(b, dict)]
    verifier = curbi.Verifier.compile(options)
    want = [verifier.verify(b) for b in bundles]
    assert len({w["reason"] for w in want}) >= 5
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(verifier.verify, bundles * 4)) == want * 4
