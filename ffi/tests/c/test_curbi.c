/* C tests of libcurbi: every exported function, the shared vectors through the C API, the recorder's scenarios,
 * misuse, and threads.
 * Built with -std=c11 -Wall -Wextra -Werror and sanitizers, then run again under valgrind (ffi/tests/c/run.sh). */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "curbi.h"
#include "entries.h"
#include "json.h"

static int failures = 0;
static int checks = 0;

#define CHECK(cond, ...)                                            \
  do {                                                              \
    checks++;                                                       \
    if (!(cond)) {                                                  \
      failures++;                                                   \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                 \
      fprintf(stderr, "\n");                                        \
    }                                                               \
  } while (0)

static const uint8_t *u8(const char *s) { return (const uint8_t *)s; }

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
  fclose(f);
  if (buf) { buf[n] = 0; *len = (size_t)n; }
  return buf;
}

static jvalue *parse_bytes(const curbi_bytes *b) {
  return json_parse((const char *)curbi_bytes_data(b), curbi_bytes_len(b));
}

/* Two documents with the same bytes. */
static int same_bytes(const curbi_bytes *a, const curbi_bytes *b) {
  return a && b && curbi_bytes_len(a) == curbi_bytes_len(b) && !memcmp(curbi_bytes_data(a), curbi_bytes_data(b), curbi_bytes_len(a));
}

/* The error document's code and path, compared with what a vector expects. */
static int error_matches(const curbi_bytes *err, const jvalue *expected_error) {
  jvalue *doc = parse_bytes(err);
  const jvalue *e = json_get(doc, "error");
  int ok = e && json_equal(json_get(e, "code"), json_get(expected_error, "code")) &&
           json_equal(json_get(e, "path"), json_get(expected_error, "path"));
  json_free(doc);
  return ok;
}

/* A call that a vector expects to fail failed as it says: invalid input, no document, the error's code and path. */
static int refused_as(curbi_status s, const curbi_bytes *out, const curbi_bytes *err, const jvalue *expected_error) {
  return s == CURBI_STATUS_INVALID_INPUT && out == NULL && err && error_matches(err, expected_error);
}

/* Byte spans from curbi_policy_check must slice the reply to the finding's text. */
static void check_byte_spans(const char *reply, size_t reply_len, const jvalue *doc, const char *where) {
  const jvalue *findings = json_get(doc, "findings");
  CHECK(findings && findings->kind == J_ARR, "%s: no findings array", where);
  if (!findings) return;
  for (size_t i = 0; i < findings->len; i++) {
    const jvalue *f = findings->items[i];
    const jvalue *span = json_get(f, "span");
    const jvalue *text = json_get(f, "text");
    size_t a = (size_t)span->items[0]->num, b = (size_t)span->items[1]->num;
    CHECK(a < b && b <= reply_len && b - a == text->str_len && !memcmp(reply + a, text->str, text->str_len),
          "%s: byte span [%zu,%zu) does not slice '%s'", where, a, b, text->str);
  }
}

/* Rules in order: the byte-span response must name the same findings as the wire response. */
static int same_rules(const jvalue *a, const jvalue *b) {
  const jvalue *fa = json_get(a, "findings"), *fb = json_get(b, "findings");
  if (!fa || !fb || fa->len != fb->len) return 0;
  for (size_t i = 0; i < fa->len; i++) {
    if (!json_equal(json_get(fa->items[i], "rule"), json_get(fb->items[i], "rule"))) return 0;
    if (!json_equal(json_get(fa->items[i], "text"), json_get(fb->items[i], "text"))) return 0;
    if (!json_equal(json_get(fa->items[i], "why"), json_get(fb->items[i], "why"))) return 0;
  }
  return json_equal(json_get(a, "pass"), json_get(b, "pass")) && json_equal(json_get(a, "version"), json_get(b, "version"));
}

/* Appends `"name":<src>` to the options object being written in `buf` (at `*n`), when the member is there. */
static void option(char *buf, size_t size, int *n, const char *name, const jvalue *v) {
  if (!v || *n < 0 || (size_t)*n >= size) return;
  *n += snprintf(buf + *n, size - (size_t)*n, "%s\"%s\":%.*s", *n > 1 ? "," : "", name, (int)v->src_len, v->src);
}

/* A single-reply vector again through a compiled policy (with the case's receipt keys) and options, spans in
 * bytes. */
static void run_compiled(const jvalue *request, const jvalue *receipts, const jvalue *expected, const char *where) {
  const jvalue *policy = json_get(request, "policy"), *reply = json_get(request, "reply");
  if (!policy || !reply) return;
  curbi_policy *p = NULL;
  curbi_bytes *err = NULL;
  curbi_status s = curbi_policy_compile_with_receipts(u8(policy->src), policy->src_len, receipts ? u8(receipts->src) : NULL,
                                                      receipts ? receipts->src_len : 0, &p, &err);
  CHECK(s == CURBI_STATUS_OK, "%s: compile failed with status %u", where, (unsigned)s);
  curbi_bytes_free(err);
  if (s != CURBI_STATUS_OK) return;
  char options[65536] = "{";
  int n = 1;
  option(options, sizeof options - 1, &n, "record", json_get(request, "record"));
  option(options, sizeof options - 1, &n, "version", json_get(request, "version"));
  option(options, sizeof options - 1, &n, "verify", json_get(request, "verify"));
  CHECK(n > 0 && (size_t)n < sizeof options - 1, "%s: options too long", where);
  options[n++] = '}';
  curbi_bytes *out = NULL;
  s = curbi_policy_check(p, u8(reply->str), reply->str_len, u8(options), (size_t)n, &out, NULL);
  CHECK(s == CURBI_STATUS_OK, "%s: policy_check status %u", where, (unsigned)s);
  if (s == CURBI_STATUS_OK) {
    jvalue *doc = parse_bytes(out);
    CHECK(same_rules(doc, expected), "%s: compiled check differs from the vector", where);
    check_byte_spans(reply->str, reply->str_len, doc, where);
    json_free(doc);
  }
  curbi_bytes_free(out);
  curbi_policy_free(p);
}

/* A check vector: the whole response through curbi_check (curbi_check_with_receipts when the case has receipt
 * keys), and single replies again through a compiled policy. */
static int check_case(const jvalue *group, const jvalue *c, const char *where) {
  (void)group;
  int before = failures;
  const jvalue *request = json_get(c, "request");
  const jvalue *expected = json_get(c, "expected");
  const jvalue *receipts = json_get(c, "receipts");
  curbi_bytes *out = NULL, *err = NULL;
  curbi_status s = receipts ? curbi_check_with_receipts(u8(request->src), request->src_len, u8(receipts->src),
                                                        receipts->src_len, &out, &err)
                            : curbi_check(u8(request->src), request->src_len, &out, &err);
  const jvalue *expected_error = json_get(expected, "error");
  if (expected_error) {
    CHECK(refused_as(s, out, err, expected_error), "%s: expected error, got status %u", where, (unsigned)s);
  } else {
    jvalue *got = s == CURBI_STATUS_OK ? parse_bytes(out) : NULL;
    CHECK(got && json_equal(got, expected), "%s: response differs: %.*s", where, out ? (int)curbi_bytes_len(out) : 0,
          out ? (const char *)curbi_bytes_data(out) : "");
    json_free(got);
    run_compiled(request, receipts, expected, where);
  }
  curbi_bytes_free(out);
  curbi_bytes_free(err);
  return failures == before;
}

/* Lint vectors: `valid`, then code and path of every error and warning, in order. */
static int issues_match(const jvalue *got, const jvalue *want) {
  if (!got || !want || got->kind != J_ARR || want->kind != J_ARR || got->len != want->len) return 0;
  for (size_t i = 0; i < got->len; i++)
    if (!json_equal(json_get(got->items[i], "code"), json_get(want->items[i], "code")) ||
        !json_equal(json_get(got->items[i], "path"), json_get(want->items[i], "path")))
      return 0;
  return 1;
}

/* Runs every case of every file in `dir` through `run`, which returns 1 when the case holds. Files without
 * `cases` (vectors/purchase/reasons.json) add none. */
static int run_group(const char *dir, const char *label,
                     int (*run)(const jvalue *group, const jvalue *c, const char *where)) {
  DIR *d = opendir(dir);
  CHECK(d != NULL, "cannot open %s", dir);
  if (!d) return 0;
  int ran = 0, failed = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t nl = strlen(e->d_name);
    if (nl < 5 || strcmp(e->d_name + nl - 5, ".json")) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    size_t len;
    char *text = read_file(path, &len);
    jvalue *doc = text ? json_parse(text, len) : NULL;
    CHECK(doc != NULL, "cannot parse %s", path);
    const jvalue *cases = json_get(doc, "cases");
    for (size_t i = 0; cases && i < cases->len; i++) {
      char where[4200];
      snprintf(where, sizeof where, "%s#%zu", e->d_name, i);
      int ok = run(doc, cases->items[i], where);
      CHECK(ok, "%s: %s vector failed", where, label);
      failed += !ok;
      ran++;
    }
    json_free(doc);
    free(text);
  }
  closedir(d);
  printf("C %s vectors: %d ran, %d failed\n", label, ran, failed);
  CHECK(ran > 0, "no %s vectors ran", label);
  return ran;
}

static int lint_case(const jvalue *group, const jvalue *c, const char *where) {
  (void)group;
  const jvalue *policy = json_get(c, "policy"), *expected = json_get(c, "expected");
  curbi_bytes *out = NULL;
  curbi_status s = curbi_validate_policy(u8(policy->src), policy->src_len, &out, NULL);
  jvalue *got = s == CURBI_STATUS_OK ? parse_bytes(out) : NULL;
  int ok = got && json_equal(json_get(got, "valid"), json_get(expected, "valid")) &&
           issues_match(json_get(got, "errors"), json_get(expected, "errors")) &&
           issues_match(json_get(got, "warnings"), json_get(expected, "warnings"));
  if (!ok) fprintf(stderr, "%s: got %.*s\n", where, out ? (int)curbi_bytes_len(out) : 0, out ? (const char *)curbi_bytes_data(out) : "");
  json_free(got);
  curbi_bytes_free(out);
  return ok;
}

/* Export cases compare the `regression` member; replay cases the whole report; errors on code and path. */
static int regression_case(const jvalue *group, const jvalue *c, const char *where) {
  (void)group;
  const jvalue *expected = json_get(c, "expected"), *input = json_get(c, "export");
  json_fn fn = curbi_export_regression;
  if (!input) {
    input = json_get(c, "replay");
    fn = curbi_replay_regression;
  }
  curbi_bytes *out = NULL, *err = NULL;
  curbi_status s = fn(u8(input->src), input->src_len, &out, &err);
  int ok;
  const jvalue *expected_error = json_get(expected, "error");
  if (expected_error) {
    ok = refused_as(s, out, err, expected_error);
  } else {
    jvalue *got = s == CURBI_STATUS_OK ? parse_bytes(out) : NULL;
    const jvalue *doc = fn == curbi_export_regression ? json_get(got, "regression") : got;
    ok = doc && json_equal(doc, expected);
    if (ok && fn == curbi_export_regression) {
      const jvalue *node = json_get(got, "nodeTest"), *py = json_get(got, "pytest");
      ok = node && node->kind == J_STR && strstr(node->str, "node:test") && py && py->kind == J_STR && strstr(py->str, "pytest");
    }
    json_free(got);
  }
  if (!ok) fprintf(stderr, "%s: status %u, got %.*s\n", where, (unsigned)s, out ? (int)curbi_bytes_len(out) : 0, out ? (const char *)curbi_bytes_data(out) : "");
  curbi_bytes_free(out);
  curbi_bytes_free(err);
  return ok;
}

/* Purchase and action vectors: decision, reasons as a set of (code, effect, path), summary, invariants. */
static int reason_in(const jvalue *r, const jvalue *list) {
  for (size_t i = 0; list && i < list->len; i++)
    if (json_equal(json_get(r, "code"), json_get(list->items[i], "code")) &&
        json_equal(json_get(r, "effect"), json_get(list->items[i], "effect")) &&
        json_equal(json_get(r, "path"), json_get(list->items[i], "path")))
      return 1;
  return 0;
}

static int purchase_case(const jvalue *group, const jvalue *c, const char *where) {
  const jvalue *kind = json_get(group, "check");
  int action = kind && kind->kind == J_STR && !strcmp(kind->str, "action");
  const jvalue *input = json_get(c, "input"), *want = json_get(c, "expected");
  curbi_bytes *out = NULL;
  curbi_status s = (action ? curbi_verify_action : curbi_verify_checkout)(u8(input->src), input->src_len, &out, NULL);
  jvalue *got = s == CURBI_STATUS_OK ? parse_bytes(out) : NULL;
  const jvalue *reasons = json_get(got, "reasons"), *want_reasons = json_get(want, "reasons");
  const jvalue *decision = json_get(got, "decision"), *step = json_get(got, "stepUp");
  const jvalue *object = json_get(got, "object"), *granted = json_get(got, "authorizationGranted");
  int ok = got && json_equal(decision, json_get(want, "decision")) && reasons && want_reasons &&
           reasons->len == want_reasons->len && object && !strcmp(object->str, action ? "action_check" : "purchase_check") &&
           granted && granted->kind == J_BOOL && !granted->boolean;
  for (size_t k = 0; ok && k < reasons->len; k++) ok = reason_in(reasons->items[k], want_reasons);
  for (size_t k = 0; ok && k < want_reasons->len; k++) ok = reason_in(want_reasons->items[k], reasons);
  if (ok) {
    int is_step = !strcmp(decision->str, "STEP_UP");
    ok = (reasons->len == 0) == !strcmp(decision->str, "ALLOW") && (step != NULL) == is_step;
    const jvalue *summary = json_get(want, "summary");
    if (ok && summary) ok = step && json_equal(json_get(step, "summary"), summary);
  }
  if (!ok) fprintf(stderr, "%s: got %.*s\n", where, out ? (int)curbi_bytes_len(out) : 0, out ? (const char *)curbi_bytes_data(out) : "");
  json_free(got);
  curbi_bytes_free(out);
  return ok;
}

/* Proof vectors: cases.json lists each case's file. Runs every case's document through `run`, which returns 1 when
 * the case holds (`where` is the file's name). */
/* `got` holds `want`: every member `want` names, recursively; arrays element by element and of equal length. */
static int contains(const jvalue *got, const jvalue *want) {
  if (!got || !want) return 0;
  if (want->kind == J_OBJ) {
    if (got->kind != J_OBJ) return 0;
    for (size_t i = 0; i < want->len; i++)
      if (!contains(json_get(got, want->keys[i]), want->items[i])) return 0;
    return 1;
  }
  if (want->kind == J_ARR) {
    if (got->kind != J_ARR || got->len != want->len) return 0;
    for (size_t i = 0; i < want->len; i++)
      if (!contains(got->items[i], want->items[i])) return 0;
    return 1;
  }
  return json_equal(got, want);
}

/* Ends a vector case: on failure prints the status and both documents; frees them; returns `ok`. */
static int finish(int ok, const char *where, curbi_status s, curbi_bytes *out, curbi_bytes *err) {
  if (!ok) fprintf(stderr, "%s: status %u, got %.*s %.*s\n", where, (unsigned)s, out ? (int)curbi_bytes_len(out) : 0,
                   out ? (const char *)curbi_bytes_data(out) : "", err ? (int)curbi_bytes_len(err) : 0,
                   err ? (const char *)curbi_bytes_data(err) : "");
  curbi_bytes_free(out);
  curbi_bytes_free(err);
  return ok;
}

/* vectors/documents/: raw texts through the one strict reader. `record` goes in as check options. */
static int documents_case(const jvalue *group, const jvalue *c, const char *where) {
  (void)group;
  const char *entry = json_get(c, "entry")->str;
  const jvalue *text = json_get(c, "text"), *expected = json_get(c, "expected");
  curbi_bytes *out = NULL, *err = NULL;
  curbi_status s;
  json_fn fn = json_entry(entry);
  if (fn) {
    s = fn(u8(text->str), text->str_len, &out, &err);
  } else if (!strcmp(entry, "compile_policy")) {
    curbi_policy *p = NULL;
    s = curbi_policy_compile(u8(text->str), text->str_len, &p, &err);
    curbi_policy_free(p);
  } else if (!strcmp(entry, "verifier_options")) {
    curbi_verifier *v = NULL;
    s = curbi_verifier_new(u8(text->str), text->str_len, &v, &err);
    curbi_verifier_free(v);
  } else if (!strcmp(entry, "record")) {
    curbi_policy *p = NULL;
    CHECK(curbi_policy_compile(u8("{}"), 2, &p, NULL) == CURBI_STATUS_OK, "%s: empty policy", where);
    size_t n = text->str_len + 16;
    char *options = malloc(n);
    int len = snprintf(options, n, "{\"record\":%s}", text->str);
    s = curbi_policy_check(p, u8("Hi"), 2, u8(options), (size_t)len, &out, &err);
    free(options);
    curbi_policy_free(p);
  } else {
    fprintf(stderr, "%s: unknown entry %s\n", where, entry);
    return 0;
  }
  int ok;
  const jvalue *expected_error = json_get(expected, "error");
  if (expected_error && s != CURBI_STATUS_OK) {
    ok = refused_as(s, out, err, expected_error);
  } else {
    jvalue *got = s == CURBI_STATUS_OK && out ? parse_bytes(out) : NULL;
    ok = got && contains(got, expected);
    json_free(got);
  }
  return finish(ok, where, s, out, err);
}

/* A call succeeded with the JSON string `want` as its document. */
static int is_string(curbi_status s, const curbi_bytes *out, const jvalue *want) {
  jvalue *got = s == CURBI_STATUS_OK && out ? parse_bytes(out) : NULL;
  int ok = got && got->kind == J_STR && json_equal(got, want);
  json_free(got);
  return ok;
}

/* A call succeeded with exactly the text of the string `want` as its document. */
static int is_text(curbi_status s, const curbi_bytes *out, const jvalue *want) {
  return s == CURBI_STATUS_OK && out && want && curbi_bytes_len(out) == want->str_len &&
         !memcmp(curbi_bytes_data(out), want->str, want->str_len);
}

/* vectors/checkout_digest/: the digest as a JSON string, or the error's code and path. The vectors' digests are
 * SHA-256 over hand-written canonical texts, checked against those texts by the runners whose languages have SHA-256. */
static int digest_case(const jvalue *group, const jvalue *c, const char *where) {
  (void)group;
  const jvalue *checkout = json_get(c, "checkout"), *expected = json_get(c, "expected");
  const jvalue *expected_error = json_get(expected, "error");
  curbi_bytes *out = NULL, *err = NULL;
  curbi_status s = curbi_checkout_digest(u8(checkout->str), checkout->str_len, &out, &err);
  int ok = expected_error ? refused_as(s, out, err, expected_error) : is_string(s, out, json_get(expected, "digest"));
  return finish(ok, where, s, out, err);
}

/* vectors/yaml/: the exact JSON text, or the error's code and path. */
static int yaml_case(const jvalue *group, const jvalue *c, const char *where) {
  (void)group;
  const jvalue *yaml = json_get(c, "yaml"), *want = json_get(c, "json"), *want_error = json_get(c, "error");
  curbi_bytes *out = NULL, *err = NULL;
  curbi_status s = curbi_yaml_to_json(u8(yaml->str), yaml->str_len, &out, &err);
  int ok = want_error ? refused_as(s, out, err, want_error) : is_text(s, out, want);
  return finish(ok, where, s, out, err);
}

static void run_proof_cases(const char *dir, const char *label, int (*run)(const jvalue *doc, const char *where)) {
  char path[1200];
  snprintf(path, sizeof path, "%s/cases.json", dir);
  size_t len;
  char *text = read_file(path, &len);
  jvalue *index = text ? json_parse(text, len) : NULL;
  CHECK(index != NULL, "cannot read %s", path);
  const jvalue *cases = json_get(index, "cases");
  int ran = 0, failed = 0;
  for (size_t i = 0; cases && i < cases->len; i++) {
    const jvalue *file = json_get(cases->items[i], "file");
    snprintf(path, sizeof path, "%s/%s", dir, file->str);
    size_t n;
    char *body = read_file(path, &n);
    jvalue *doc = body ? json_parse(body, n) : NULL;
    CHECK(doc != NULL, "cannot parse %s", path);
    int ok = doc && run(doc, file->str);
    CHECK(ok, "%s: %s vector failed", file->str, label);
    failed += !ok;
    ran++;
    json_free(doc);
    free(body);
  }
  json_free(index);
  free(text);
  printf("C %s vectors: %d ran, %d failed\n", label, ran, failed);
  CHECK(ran > 0, "no %s vectors ran", label);
}

/* A whole request through curbi_verify_bundle: ok, reason and each item's reason must match. */
static int proof_case(const jvalue *doc, const char *where) {
  const jvalue *input = json_get(doc, "input"), *want = json_get(doc, "expected");
  curbi_bytes *out = NULL;
  curbi_status s = input ? curbi_verify_bundle(u8(input->src), input->src_len, &out, NULL) : CURBI_STATUS_INVALID_INPUT;
  jvalue *got = s == CURBI_STATUS_OK ? parse_bytes(out) : NULL;
  int ok = got && json_equal(json_get(got, "ok"), json_get(want, "ok")) &&
           json_equal(json_get(got, "reason"), json_get(want, "reason"));
  const jvalue *want_items = json_get(want, "items"), *items = json_get(got, "items");
  if (ok && want_items) {
    ok = items && items->len == want_items->len;
    for (size_t k = 0; ok && k < items->len; k++) ok = json_equal(json_get(items->items[k], "reason"), want_items->items[k]);
  }
  if (!ok) fprintf(stderr, "%s: got %.*s\n", where, out ? (int)curbi_bytes_len(out) : 0, out ? (const char *)curbi_bytes_data(out) : "");
  json_free(got);
  curbi_bytes_free(out);
  return ok;
}

/* How many proof vectors a verifier was built for, and how many options it refused. */
static int verifiers_built = 0, verifiers_refused = 0;

/* The same request through a handle: a verifier from the input without `bundle`, then the bundle. A verifier must
 * give the whole request's result byte for byte; options it refuses must be what the whole request reports as
 * `malformed`, with the same code and path. Inputs without a bundle have nothing to split. */
static int verifier_case(const jvalue *doc, const char *where) {
  const jvalue *input = json_get(doc, "input"), *bundle = json_get(input, "bundle");
  if (!bundle) return 1;
  size_t options_len = 0;
  char *options = json_object_without(input, "bundle", &options_len);
  if (!options) return 0;
  curbi_bytes *whole = NULL, *err = NULL, *out = NULL;
  curbi_verifier *v = NULL;
  int ok = curbi_verify_bundle(u8(input->src), input->src_len, &whole, NULL) == CURBI_STATUS_OK;
  curbi_status s = curbi_verifier_new(u8(options), options_len, &v, &err);
  if (s == CURBI_STATUS_OK) {
    ok = ok && v && !err && curbi_verifier_verify(v, u8(bundle->src), bundle->src_len, &out, NULL) == CURBI_STATUS_OK &&
         same_bytes(out, whole);
    verifiers_built++;
  } else {
    jvalue *want = ok ? parse_bytes(whole) : NULL;
    const jvalue *reason = json_get(want, "reason");
    ok = s == CURBI_STATUS_INVALID_INPUT && !v && err && reason && reason->kind == J_STR && !strcmp(reason->str, "malformed") &&
         error_matches(err, json_get(want, "error"));
    json_free(want);
    verifiers_refused++;
  }
  if (!ok)
    fprintf(stderr, "%s: status %u; whole request %.*s; verifier %.*s%.*s\n", where, (unsigned)s,
            whole ? (int)curbi_bytes_len(whole) : 0, whole ? (const char *)curbi_bytes_data(whole) : "",
            out ? (int)curbi_bytes_len(out) : 0, out ? (const char *)curbi_bytes_data(out) : "",
            err ? (int)curbi_bytes_len(err) : 0, err ? (const char *)curbi_bytes_data(err) : "");
  curbi_verifier_free(v);
  curbi_bytes_free(out);
  curbi_bytes_free(err);
  curbi_bytes_free(whole);
  free(options);
  return ok;
}

static void test_misuse(void) {
  curbi_policy *p = NULL;
  curbi_bytes *out = NULL, *err = NULL;
  const char *policy = "{\"prices\":[{\"item\":\"Pro\",\"amount\":49}]}";
  size_t plen = strlen(policy);

  /* NULL everywhere. */
  CHECK(curbi_policy_compile(NULL, 5, &p, &err) == CURBI_STATUS_NULL_ARGUMENT && p == NULL && err == NULL, "null input");
  CHECK(curbi_policy_compile(u8(policy), plen, NULL, &err) == CURBI_STATUS_NULL_ARGUMENT && err == NULL, "null out");
  CHECK(curbi_policy_check(NULL, u8("x"), 1, NULL, 0, &out, &err) == CURBI_STATUS_NULL_ARGUMENT && out == NULL, "null policy");
  CHECK(curbi_check_with_receipts(NULL, 3, NULL, 0, &out, &err) == CURBI_STATUS_NULL_ARGUMENT, "null request (receipts)");
  CHECK(curbi_check_with_receipts(u8("{}"), 2, NULL, 4, &out, &err) == CURBI_STATUS_NULL_ARGUMENT, "null receipts");
  CHECK(curbi_policy_compile_with_receipts(u8("{}"), 2, NULL, 4, &p, &err) == CURBI_STATUS_NULL_ARGUMENT && p == NULL,
        "null receipt keys");
  CHECK(curbi_policy_compile_with_receipts(u8("{}"), 2, u8("{}"), 2, &p, &err) == CURBI_STATUS_INVALID_INPUT && p == NULL &&
            err != NULL,
        "receipt keys without keys");
  curbi_bytes_free(err);
  err = NULL;
  CHECK(curbi_check(NULL, 3, &out, &err) == CURBI_STATUS_NULL_ARGUMENT, "null request");
  CHECK(curbi_check(u8("{}"), 2, NULL, NULL) == CURBI_STATUS_NULL_ARGUMENT, "null result out");
  CHECK(curbi_bytes_data(NULL) == NULL && curbi_bytes_len(NULL) == 0, "null bytes");
  curbi_bytes_free(NULL);
  curbi_policy_free(NULL);
  curbi_policy_free(NULL); /* double free of NULL is still a no-op */

  /* Zero lengths: an empty document is invalid JSON, reported with an error document. */
  CHECK(curbi_policy_compile(NULL, 0, &p, &err) == CURBI_STATUS_INVALID_INPUT && p == NULL && err != NULL, "empty policy");
  jvalue *doc = err ? parse_bytes(err) : NULL;
  CHECK(doc && json_get(json_get(doc, "error"), "code") && !strcmp(json_get(json_get(doc, "error"), "code")->str, "invalid_json"),
        "empty policy code");
  json_free(doc);
  curbi_bytes_free(err);
  err = NULL;

  /* Huge lengths never reach a slice. */
  CHECK(curbi_check(u8("{}"), SIZE_MAX, &out, &err) == CURBI_STATUS_INVALID_LENGTH && out == NULL && err == NULL, "huge length");

  /* A valid policy, an empty reply, and an invalid UTF-8 reply. */
  CHECK(curbi_policy_compile(u8(policy), plen, &p, NULL) == CURBI_STATUS_OK && p != NULL, "compile");
  CHECK(curbi_policy_check(p, NULL, 0, NULL, 0, &out, NULL) == CURBI_STATUS_OK && out != NULL, "empty reply passes");
  curbi_bytes_free(out);
  out = NULL;
  const char bad[] = {'P', 'r', 'o', ' ', (char)0xC3, (char)0x28, 0};
  CHECK(curbi_policy_check(p, u8(bad), 6, NULL, 0, &out, &err) == CURBI_STATUS_INVALID_UTF8 && out == NULL && err, "bad utf8");
  const char *want = "{\"code\":\"invalid_value\",\"path\":\"/reply\"}";
  jvalue *want_v = json_parse(want, strlen(want));
  CHECK(err && want_v && error_matches(err, want_v), "bad utf8 doc");
  json_free(want_v);
  char msg[256];
  size_t needed = 0;
  CHECK(curbi_error_message(CURBI_STATUS_INVALID_UTF8, err, msg, sizeof msg, &needed) == CURBI_STATUS_OK &&
            !strcmp(msg, "reply is not valid UTF-8") && needed == strlen(msg), "error message from document: %s", msg);
  char tiny[5];
  CHECK(curbi_error_message(CURBI_STATUS_INVALID_UTF8, err, tiny, sizeof tiny, &needed) == CURBI_STATUS_BUFFER_TOO_SMALL &&
            !strcmp(tiny, "repl") && needed == strlen("reply is not valid UTF-8"), "truncated message: %s", tiny);
  CHECK(curbi_error_message(CURBI_STATUS_NULL_ARGUMENT, NULL, msg, sizeof msg, NULL) == CURBI_STATUS_OK &&
            strstr(msg, "NULL") != NULL, "status message: %s", msg);
  CHECK(curbi_error_message(999, NULL, msg, sizeof msg, NULL) == CURBI_STATUS_OK && !strcmp(msg, "unknown status"), "unknown status");
  CHECK(curbi_error_message(CURBI_STATUS_OK, NULL, NULL, 0, &needed) == CURBI_STATUS_BUFFER_TOO_SMALL && needed == 2, "null buf");
  curbi_bytes_free(err);
  err = NULL;

  /* Bad options: an unknown member and a schema error inside the record, with their paths. */
  const char *opts = "{\"nope\":1}";
  CHECK(curbi_policy_check(p, u8("x"), 1, u8(opts), strlen(opts), &out, &err) == CURBI_STATUS_INVALID_INPUT && out == NULL, "bad opts");
  doc = err ? parse_bytes(err) : NULL;
  CHECK(doc && !strcmp(json_get(json_get(doc, "error"), "path")->str, "/nope"), "bad opts path");
  json_free(doc);
  curbi_bytes_free(err);
  err = NULL;
  opts = "{\"record\":{\"facts\":[{\"near\":\"x\",\"kind\":\"when\",\"value\":\"1\"}]}}";
  CHECK(curbi_policy_check(p, u8("x"), 1, u8(opts), strlen(opts), &out, &err) == CURBI_STATUS_INVALID_INPUT, "bad record");
  doc = err ? parse_bytes(err) : NULL;
  CHECK(doc && !strcmp(json_get(json_get(doc, "error"), "path")->str, "/record/facts/0/kind") &&
            !strcmp(json_get(json_get(doc, "error"), "code")->str, "invalid_enum"), "bad record path");
  json_free(doc);
  curbi_bytes_free(err);
  err = NULL;

  /* Invalid UTF-8 and garbage as JSON documents. */
  curbi_policy_free(p);
  p = NULL;
  CHECK(curbi_policy_compile(u8(bad), 6, &p, &err) == CURBI_STATUS_INVALID_INPUT && p == NULL, "garbage policy");
  curbi_bytes_free(err);
  err = NULL;
  curbi_policy_free(p);
  p = NULL;

  /* The version string matches the header macro. */
  CHECK(!strcmp(curbi_version(), CURBI_VERSION), "version %s vs %s", curbi_version(), CURBI_VERSION);
}

/* One call on a shared handle: a policy checking a reply, or a verifier verifying a bundle. */
typedef curbi_status (*handle_call)(const void *handle, const char *input, size_t len, curbi_bytes **out);

static curbi_status policy_call(const void *policy, const char *reply, size_t len, curbi_bytes **out) {
  return curbi_policy_check(policy, u8(reply), len, NULL, 0, out, NULL);
}

static curbi_status verifier_call(const void *verifier, const char *bundle, size_t len, curbi_bytes **out) {
  return curbi_verifier_verify(verifier, u8(bundle), len, out, NULL);
}

typedef struct {
  handle_call call;
  const void *handle;
  const char *input;
  size_t input_len;
  int rounds;
  curbi_bytes *expected; /* the single-threaded result */
  int mismatches;
} thread_arg;

static void *worker(void *a) {
  thread_arg *t = a;
  for (int i = 0; i < t->rounds; i++) {
    curbi_bytes *out = NULL;
    if (t->call(t->handle, t->input, t->input_len, &out) != CURBI_STATUS_OK || !same_bytes(out, t->expected)) t->mismatches++;
    curbi_bytes_free(out);
  }
  return NULL;
}

/* 8 threads on one handle, thread i calling `rounds` times with inputs[i % n]: every result must equal the
 * single-threaded one, byte for byte. */
static void run_threads(const char *what, handle_call call, const void *handle, const char *const *inputs, size_t n,
                        int rounds) {
  enum { N = 8 };
  pthread_t th[N];
  thread_arg args[N];
  for (int i = 0; i < N; i++) {
    const char *in = inputs[(size_t)i % n];
    args[i] = (thread_arg){call, handle, in, strlen(in), rounds, NULL, 0};
    CHECK(call(handle, in, args[i].input_len, &args[i].expected) == CURBI_STATUS_OK, "%s: single-threaded", what);
  }
  for (int i = 0; i < N; i++) pthread_create(&th[i], NULL, worker, &args[i]);
  for (int i = 0; i < N; i++) {
    pthread_join(th[i], NULL);
    CHECK(args[i].mismatches == 0, "%s: thread %d disagreed %d times", what, i, args[i].mismatches);
    curbi_bytes_free(args[i].expected);
  }
}

static void test_threads(void) {
  const char *policy = "{\"prices\":[{\"item\":\"Pro\",\"amount\":49}],\"forbid\":[{\"id\":\"g\",\"phrases\":[\"guarantee\"]}],"
                       "\"actions\":{\"refunded\":\"billing.refund\"}}";
  const char *const replies[] = {"Done! I've refunded you, Pro is just $29, and we guarantee it.", "Pro is $49. 😀 Ça va, İyi!",
                                 "We don't guarantee anything.", "Pro 是 $29。"};
  curbi_policy *p = NULL;
  CHECK(curbi_policy_compile(u8(policy), strlen(policy), &p, NULL) == CURBI_STATUS_OK, "compile for threads");
  if (!p) return;
  run_threads("policy", policy_call, p, replies, 4, 500);
  curbi_policy_free(p);
}

/* The error document names this code at this path. */
static int error_is(const curbi_bytes *err, const char *code, const char *path) {
  jvalue *doc = err ? parse_bytes(err) : NULL;
  const jvalue *e = json_get(doc, "error"), *c = json_get(e, "code"), *p = json_get(e, "path");
  int ok = c && p && c->kind == J_STR && p->kind == J_STR && !strcmp(c->str, code) && !strcmp(p->str, path);
  json_free(doc);
  return ok;
}

/* curbi_verifier_*: NULL handles and arguments, huge lengths, refused options, unreadable bundles. */
static void test_verifier_misuse(const char *options, const char *bundle) {
  curbi_verifier *v = NULL;
  curbi_bytes *out = NULL, *err = NULL;
  size_t olen = strlen(options), blen = strlen(bundle);

  CHECK(curbi_verifier_new(NULL, 5, &v, &err) == CURBI_STATUS_NULL_ARGUMENT && v == NULL && err == NULL, "null options");
  CHECK(curbi_verifier_new(u8(options), olen, NULL, &err) == CURBI_STATUS_NULL_ARGUMENT && err == NULL, "null verifier out");
  CHECK(curbi_verifier_new(u8(options), SIZE_MAX, &v, &err) == CURBI_STATUS_INVALID_LENGTH && v == NULL && err == NULL,
        "huge options length");
  CHECK(curbi_verifier_verify(NULL, u8(bundle), blen, &out, &err) == CURBI_STATUS_NULL_ARGUMENT && out == NULL && err == NULL,
        "null verifier");
  curbi_verifier_free(NULL);
  curbi_verifier_free(NULL); /* double free of NULL is still a no-op */

  /* Options that cannot be used: the code and path a whole request reports under reason `malformed`. */
  const struct {
    const char *options, *code, *path;
  } refused[] = {
      {"", "invalid_json", ""},
      {"\xff", "invalid_json", ""},
      {"[]", "invalid_type", ""},
      {"{}", "missing_field", "/keys"},
      {"{\"keys\":{\"keys\":[]},\"bundle\":{}}", "unknown_field", "/bundle"},
      {"{\"keys\":{\"keys\":[]},\"keys\":{\"keys\":[]}}", "duplicate_member", "/keys"},
  };
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    const char *o = refused[i].options;
    curbi_status s = curbi_verifier_new(o[0] ? u8(o) : NULL, strlen(o), &v, &err);
    CHECK(s == CURBI_STATUS_INVALID_INPUT && v == NULL && error_is(err, refused[i].code, refused[i].path),
          "options %s: status %u, want %s at '%s'", o, (unsigned)s, refused[i].code, refused[i].path);
    curbi_bytes_free(err);
    err = NULL;
  }

  CHECK(curbi_verifier_new(u8(options), olen, &v, NULL) == CURBI_STATUS_OK && v != NULL, "verifier from valid options");
  if (!v) return;
  CHECK(curbi_verifier_verify(v, NULL, 3, &out, &err) == CURBI_STATUS_NULL_ARGUMENT && out == NULL && err == NULL, "null bundle");
  CHECK(curbi_verifier_verify(v, u8(bundle), blen, NULL, &err) == CURBI_STATUS_NULL_ARGUMENT && err == NULL, "null result out");
  CHECK(curbi_verifier_verify(v, u8(bundle), SIZE_MAX, &out, &err) == CURBI_STATUS_INVALID_LENGTH && out == NULL && err == NULL,
        "huge bundle length");
  /* Only text that is not JSON is an error; an unreadable bundle is a result under /bundle. */
  const char *not_json[] = {"", "{", "\xff"};
  for (size_t i = 0; i < 3; i++) {
    const char *b = not_json[i];
    CHECK(curbi_verifier_verify(v, b[0] ? u8(b) : NULL, strlen(b), &out, &err) == CURBI_STATUS_INVALID_INPUT && out == NULL &&
              error_is(err, "invalid_json", ""),
          "bundle %s is not JSON", b);
    curbi_bytes_free(err);
    err = NULL;
  }
  const char *unknown = "{\"object\":\"curbi.proof/0.1\",\"x\":1}";
  CHECK(curbi_verifier_verify(v, u8(unknown), strlen(unknown), &out, &err) == CURBI_STATUS_OK && out && err == NULL,
        "unknown bundle member");
  jvalue *doc = out ? parse_bytes(out) : NULL;
  const jvalue *ok = json_get(doc, "ok"), *reason = json_get(doc, "reason");
  CHECK(ok && ok->kind == J_BOOL && !ok->boolean && reason && reason->kind == J_STR && !strcmp(reason->str, "malformed") &&
            error_is(out, "unknown_field", "/bundle/x"),
        "unknown bundle member: %.*s", out ? (int)curbi_bytes_len(out) : 0, out ? (const char *)curbi_bytes_data(out) : "");
  json_free(doc);
  curbi_bytes_free(out);
  curbi_verifier_free(v);
}

/* A verifier from valid-four-domains' options: misuse, then 8 threads verifying bundles with it at once. */
static void test_verifier(const char *dir) {
  char path[1200];
  snprintf(path, sizeof path, "%s/valid-four-domains.json", dir);
  size_t len = 0, olen = 0;
  char *text = read_file(path, &len);
  jvalue *doc = text ? json_parse(text, len) : NULL;
  const jvalue *input = json_get(doc, "input"), *bundle = json_get(input, "bundle");
  char *options = json_object_without(input, "bundle", &olen);
  char *bundle_text = bundle ? strndup(bundle->src, bundle->src_len) : NULL;
  CHECK(options && bundle_text, "cannot split %s", path);
  curbi_verifier *v = NULL;
  if (options && bundle_text) {
    test_verifier_misuse(options, bundle_text);
    CHECK(curbi_verifier_new(u8(options), olen, &v, NULL) == CURBI_STATUS_OK, "verifier for threads");
  }
  if (v) {
    const char *const bundles[] = {bundle_text, "{\"object\":\"curbi.proof/0.1\",\"x\":1}"};
    run_threads("verifier", verifier_call, v, bundles, 2, 20);
  }
  curbi_verifier_free(v);
  free(bundle_text);
  free(options);
  json_free(doc);
  free(text);
}

/* vectors/recorder/scenarios.json through the recorder's handle (the description member says the step format;
 * recorder/tests/vectors.rs is the Rust runner). Every bundle a step verifies is written to `out` as
 * sN-I.bundle.json, with the recorder's keys beside it as sN-I.keys.json, for `curbi verify` (scripts/test.sh). */
enum { MAX_HEADS = 64 };

/* One recorder call with a NUL-terminated request. */
static curbi_status recorder_call(const curbi_recorder *r, const char *method, const char *body, curbi_bytes **out) {
  return curbi_recorder_call(r, method, u8(body), strlen(body), out, NULL);
}

static int write_file(const char *path, const char *data, size_t len, mode_t mode) {
  unlink(path);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, mode);
  if (fd < 0) return 0;
  ssize_t n = write(fd, data, len);
  close(fd);
  return n == (ssize_t)len;
}

/* Opens the scenario's database `db` with `spec`'s key {key, now, rotate?}, the key written to a file of mode 0600. */
static curbi_status recorder_open(const jvalue *doc, const char *db, const jvalue *spec, curbi_recorder **r, curbi_bytes **err) {
  const char *kid = json_get(spec, "key")->str;
  const jvalue *jwk = json_get(json_get(json_get(doc, "keys"), kid), "jwk"), *rotate = json_get(spec, "rotate");
  const jvalue *now = json_get(spec, "now"), *origin = json_get(doc, "origin");
  char key_file[1200], config[4096];
  snprintf(key_file, sizeof key_file, "%s.%s.jwk", db, kid);
  CHECK(write_file(key_file, jwk->str, jwk->str_len, 0600), "cannot write %s", key_file);
  int n = snprintf(config, sizeof config, "{\"path\":\"%s\",\"origin\":%.*s,\"key_file\":\"%s\",\"now\":%.*s%s%.*s}", db,
                   (int)origin->src_len, origin->src, key_file, (int)now->src_len, now->src, rotate ? ",\"rotate\":" : "",
                   rotate ? (int)rotate->src_len : 0, rotate ? rotate->src : "");
  return curbi_recorder_open(u8(config), (size_t)n, r, err);
}

/* `[h0,h1,...]`: the heads' JSON texts as an array, malloc'd. */
static char *heads_array(char *const *heads, size_t n) {
  size_t len = 3;
  for (size_t i = 0; i < n; i++) len += strlen(heads[i]) + 1;
  char *out = malloc(len);
  if (!out) return NULL;
  size_t o = 0;
  out[o++] = '[';
  for (size_t i = 0; i < n; i++) {
    if (i) out[o++] = ',';
    memcpy(out + o, heads[i], strlen(heads[i]));
    o += strlen(heads[i]);
  }
  out[o++] = ']';
  out[o] = 0;
  return out;
}

/* The bundle of step `where` verifies under the recorder's keys with every head so far as known; it is written out. */
static void verify_recorded(const curbi_recorder *r, const curbi_bytes *bundle, const char *heads, const char *out_dir,
                            size_t n, size_t i, const char *where) {
  curbi_bytes *keys = NULL, *verdict = NULL;
  CHECK(recorder_call(r, "keys", "{}", &keys) == CURBI_STATUS_OK, "%s: keys", where);
  if (!keys) return;
  size_t klen = curbi_bytes_len(keys), blen = curbi_bytes_len(bundle), len = blen + klen + strlen(heads) + 64;
  char *request = malloc(len);
  int m = snprintf(request, len, "{\"bundle\":%.*s,\"keys\":%.*s,\"known\":%s}", (int)blen,
                   (const char *)curbi_bytes_data(bundle), (int)klen, (const char *)curbi_bytes_data(keys), heads);
  CHECK(curbi_verify_bundle(u8(request), (size_t)m, &verdict, NULL) == CURBI_STATUS_OK, "%s: verify_bundle", where);
  jvalue *v = verdict ? parse_bytes(verdict) : NULL;
  const jvalue *ok = json_get(v, "ok");
  int verified = ok && ok->kind == J_BOOL && ok->boolean;
  CHECK(verified, "%s: the bundle does not verify: %.*s", where, verdict ? (int)curbi_bytes_len(verdict) : 0,
        verdict ? (const char *)curbi_bytes_data(verdict) : "");
  char path[1200];
  for (int f = 0; verified && f < 2; f++) {
    const curbi_bytes *b = f ? keys : bundle;
    snprintf(path, sizeof path, "%s/s%zu-%zu.%s.json", out_dir, n, i, f ? "keys" : "bundle");
    CHECK(write_file(path, (const char *)curbi_bytes_data(b), curbi_bytes_len(b), 0644), "cannot write %s", path);
  }
  json_free(v);
  free(request);
  curbi_bytes_free(verdict);
  curbi_bytes_free(keys);
}

/* Whether every top-level member `names` lists is (want == 1) or is not (want == 0) in `got`. */
static int members(const jvalue *got, const jvalue *names, int want) {
  for (size_t k = 0; names && k < names->len; k++)
    if ((json_get(got, names->items[k]->str) != NULL) != want) return 0;
  return 1;
}

/* One call step: its answer (kept in `answers[i]` for same_as) checked against the step. */
static int recorder_step(const curbi_recorder *r, const jvalue *step, char **heads, size_t *nheads, curbi_bytes **answers,
                         const char *out_dir, size_t n, size_t i, const char *where) {
  const char *method = json_get(step, "call")->str;
  const jvalue *text = json_get(step, "request_text"), *want_error = json_get(step, "error");
  char *all = heads_array(heads, *nheads), *body;
  size_t len;
  if (text) {
    body = strndup(text->str, text->str_len);
    len = text->str_len;
  } else {
    body = json_substitute(json_get(step, "request"), "$heads", all, &len);
  }
  curbi_bytes *out = NULL, *err = NULL;
  curbi_status s = curbi_recorder_call(r, method, u8(body), len, &out, &err);
  int ok;
  if (want_error) {
    ok = refused_as(s, out, err, want_error);
  } else {
    jvalue *got = s == CURBI_STATUS_OK ? parse_bytes(out) : NULL;
    const jvalue *expect = json_get(step, "expect"), *same = json_get(step, "same_as"), *verify = json_get(step, "verify");
    ok = got && (!expect || contains(got, expect)) && members(got, json_get(step, "present"), 1) &&
         members(got, json_get(step, "absent"), 0) && (!same || same_bytes(out, answers[(size_t)same->num]));
    const jvalue *note = json_get(got, "note");
    if (ok && !strcmp(method, "checkpoint") && note && *nheads < MAX_HEADS) {
      char *h = strndup(note->src, note->src_len);
      int seen = 0;
      for (size_t k = 0; k < *nheads; k++) seen |= !strcmp(heads[k], h);
      if (seen) free(h);
      else heads[(*nheads)++] = h;
    }
    if (ok && verify && verify->kind == J_BOOL && verify->boolean) {
      free(all);
      all = heads_array(heads, *nheads);
      verify_recorded(r, out, all, out_dir, n, i, where);
    }
    json_free(got);
    answers[i] = out;
    out = NULL;
  }
  if (!ok)
    fprintf(stderr, "%s: %s %s: status %u, %.*s%.*s\n", where, method, body, (unsigned)s, out ? (int)curbi_bytes_len(out) : 0,
            out ? (const char *)curbi_bytes_data(out) : "", err ? (int)curbi_bytes_len(err) : 0,
            err ? (const char *)curbi_bytes_data(err) : "");
  curbi_bytes_free(out);
  curbi_bytes_free(err);
  free(body);
  free(all);
  return ok;
}

/* A reopen step: on success the new recorder replaces `*r`; a reopen that fails leaves `*r` as it was. */
static int recorder_reopen(const jvalue *doc, const char *db, const jvalue *step, curbi_recorder **r, const char *where) {
  curbi_recorder *opened = NULL;
  curbi_bytes *err = NULL;
  curbi_status s = recorder_open(doc, db, json_get(step, "reopen"), &opened, &err);
  const jvalue *want = json_get(step, "error");
  int ok = want ? s == CURBI_STATUS_INVALID_INPUT && !opened && err && error_matches(err, want) : s == CURBI_STATUS_OK && opened;
  if (!ok) fprintf(stderr, "%s: reopen: status %u, %.*s\n", where, (unsigned)s, err ? (int)curbi_bytes_len(err) : 0,
                   err ? (const char *)curbi_bytes_data(err) : "");
  if (opened) {
    curbi_recorder_free(*r);
    *r = opened;
  }
  curbi_bytes_free(err);
  return ok;
}

/* Removes `dir` and the files in it (the scenarios' databases, their WAL files and keys). */
static void remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  char path[1200];
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
  if (d) closedir(d);
  rmdir(dir);
}

static void run_recorder_scenarios(const char *root, const char *out_dir) {
  char path[1200], dir[] = "/tmp/curbi-recorder-c-XXXXXX";
  snprintf(path, sizeof path, "%s/recorder/scenarios.json", root);
  size_t len;
  char *text = read_file(path, &len);
  jvalue *doc = text ? json_parse(text, len) : NULL;
  const jvalue *scenarios = json_get(doc, "scenarios");
  CHECK(scenarios && mkdtemp(dir), "cannot read %s or make a directory", path);
  int ran = 0, failed = 0;
  for (size_t n = 0; scenarios && n < scenarios->len; n++) {
    const jvalue *scenario = scenarios->items[n], *steps = json_get(scenario, "steps");
    char db[1100], where[1200];
    snprintf(db, sizeof db, "%s/s%zu.db", dir, n);
    curbi_recorder *r = NULL;
    curbi_bytes *err = NULL;
    CHECK(recorder_open(doc, db, json_get(scenario, "open"), &r, &err) == CURBI_STATUS_OK, "%s: opens", json_get(scenario, "name")->str);
    curbi_bytes_free(err);
    curbi_bytes **answers = calloc(steps->len, sizeof *answers);
    char *heads[MAX_HEADS];
    size_t nheads = 0;
    for (size_t i = 0; r && i < steps->len; i++) {
      const jvalue *step = steps->items[i];
      snprintf(where, sizeof where, "%s, step %zu", json_get(scenario, "name")->str, i);
      int ok = json_get(step, "reopen") ? recorder_reopen(doc, db, step, &r, where)
                                        : recorder_step(r, step, heads, &nheads, answers, out_dir, n, i, where);
      CHECK(ok, "%s: recorder scenario step failed", where);
      failed += !ok;
      ran++;
    }
    for (size_t i = 0; i < steps->len; i++) curbi_bytes_free(answers[i]);
    for (size_t k = 0; k < nheads; k++) free(heads[k]);
    free(answers);
    curbi_recorder_free(r);
  }
  remove_dir(dir);
  json_free(doc);
  free(text);
  printf("C recorder scenario steps: %d ran, %d failed\n", ran, failed);
  CHECK(ran >= 70, "only %d recorder steps ran", ran);
}

/* One thread's share of test_recorder_threads: `rounds` refunds under its own idempotency keys. */
typedef struct {
  const curbi_recorder *r;
  int id, rounds, failures;
} recorder_thread;

static void *recorder_worker(void *a) {
  recorder_thread *t = a;
  for (int k = 0; k < t->rounds; k++) {
    char body[1024];
    curbi_bytes *out = NULL;
    snprintf(body, sizeof body,
             "{\"tenant\":\"acme\",\"idempotency_key\":\"t%d-%d\",\"grant\":\"g-refunds\",\"action\":{\"agent\":\"agent:support\","
             "\"operation\":\"billing.refund\",\"resource\":\"charge:ch_1\",\"amount\":100,\"currency\":\"USD\"}}",
             t->id, k);
    curbi_status s = recorder_call(t->r, "attest", body, &out);
    jvalue *got = s == CURBI_STATUS_OK ? parse_bytes(out) : NULL;
    const jvalue *decision = json_get(got, "decision");
    t->failures += !(decision && decision->kind == J_STR && !strcmp(decision->str, "ALLOW"));
    json_free(got);
    curbi_bytes_free(out);
    out = NULL;
    snprintf(body, sizeof body,
             "{\"tenant\":\"acme\",\"idempotency_key\":\"t%d-%d\",\"outcome\":\"DONE\",\"evidence\":\"{\\\"id\\\":\\\"re_%d_%d\\\","
             "\\\"operation\\\":\\\"billing.refund\\\",\\\"resource\\\":\\\"charge:ch_1\\\",\\\"amount\\\":100,\\\"currency\\\":"
             "\\\"usd\\\",\\\"status\\\":\\\"succeeded\\\"}\"}",
             t->id, k, t->id, k);
    t->failures += recorder_call(t->r, "confirm", body, &out) != CURBI_STATUS_OK;
    curbi_bytes_free(out);
  }
  return NULL;
}

/* The named member of `out` (a document) is the number `want`. */
static int member_is(const curbi_bytes *out, const char *name, double want) {
  jvalue *doc = out ? parse_bytes(out) : NULL;
  const jvalue *v = json_get(doc, name);
  int ok = v && v->kind == J_NUM && v->num == want;
  json_free(doc);
  return ok;
}

/* Misuse of the recorder's handle, then 8 threads attesting and confirming on one recorder at once: every refund
 * is allowed and receipted once (the grant's uses and the log's size count them). */
static void test_recorder(const char *root) {
  curbi_recorder *r = NULL;
  curbi_bytes *out = NULL, *err = NULL;
  CHECK(curbi_recorder_open(NULL, 3, &r, &err) == CURBI_STATUS_NULL_ARGUMENT && !r && !err, "null config");
  CHECK(curbi_recorder_open(u8("{}"), 2, NULL, &err) == CURBI_STATUS_NULL_ARGUMENT && !err, "null recorder out");
  CHECK(curbi_recorder_open(u8("{}"), SIZE_MAX, &r, &err) == CURBI_STATUS_INVALID_LENGTH && !r && !err, "huge config length");
  CHECK(curbi_recorder_open(u8("{}"), 2, &r, &err) == CURBI_STATUS_INVALID_INPUT && !r && error_is(err, "missing_field", "/path"),
        "config without a path");
  curbi_bytes_free(err);
  err = NULL;
  CHECK(curbi_recorder_call(NULL, "status", u8("{}"), 2, &out, &err) == CURBI_STATUS_NULL_ARGUMENT && !out && !err, "null recorder");
  curbi_recorder_free(NULL);

  char path[1200], dir[] = "/tmp/curbi-recorder-c-XXXXXX", db[1100];
  snprintf(path, sizeof path, "%s/recorder/scenarios.json", root);
  size_t len;
  char *text = read_file(path, &len);
  jvalue *doc = text ? json_parse(text, len) : NULL;
  const jvalue *scenarios = json_get(doc, "scenarios");
  const jvalue *first = scenarios && scenarios->len ? scenarios->items[0] : NULL;
  CHECK(first && mkdtemp(dir), "cannot read %s or make a directory", path);
  if (!first) return;
  snprintf(db, sizeof db, "%s/threads.db", dir);
  CHECK(recorder_open(doc, db, json_get(first, "open"), &r, NULL) == CURBI_STATUS_OK && r, "opens");
  const jvalue *grant = json_get(json_get(first, "steps")->items[0], "request");
  CHECK(r && curbi_recorder_call(r, "grant", u8(grant->src), grant->src_len, &out, NULL) == CURBI_STATUS_OK, "grant");
  curbi_bytes_free(out);
  out = NULL;
  if (r) {
    CHECK(curbi_recorder_call(r, NULL, u8("{}"), 2, &out, &err) == CURBI_STATUS_NULL_ARGUMENT && !out && !err, "null method");
    CHECK(curbi_recorder_call(r, "status", u8("{}"), 2, NULL, &err) == CURBI_STATUS_NULL_ARGUMENT && !err, "null result out");
    CHECK(curbi_recorder_call(r, "status", u8("{}"), SIZE_MAX, &out, &err) == CURBI_STATUS_INVALID_LENGTH && !out && !err,
          "huge length");
    const char *unknown[] = {"nope", "\xff", "Status"};
    for (size_t i = 0; i < 3; i++) {
      CHECK(curbi_recorder_call(r, unknown[i], u8("{}"), 2, &out, &err) == CURBI_STATUS_INVALID_INPUT && !out &&
                error_is(err, "not_found", ""),
            "method %s", unknown[i]);
      curbi_bytes_free(err);
      err = NULL;
    }
    CHECK(curbi_recorder_call(r, "status", NULL, 0, &out, &err) == CURBI_STATUS_INVALID_INPUT && error_is(err, "invalid_json", ""),
          "empty request");
    curbi_bytes_free(err);
    err = NULL;

    enum { N = 8, ROUNDS = 3 };
    pthread_t th[N];
    recorder_thread args[N];
    for (int i = 0; i < N; i++) {
      args[i] = (recorder_thread){r, i, ROUNDS, 0};
      pthread_create(&th[i], NULL, recorder_worker, &args[i]);
    }
    for (int i = 0; i < N; i++) {
      pthread_join(th[i], NULL);
      CHECK(args[i].failures == 0, "recorder thread %d failed %d times", i, args[i].failures);
    }
    CHECK(curbi_recorder_call(r, "grant", u8(grant->src), grant->src_len, &out, NULL) == CURBI_STATUS_OK &&
              member_is(out, "used", N * ROUNDS),
          "the grant counts every use once");
    curbi_bytes_free(out);
    out = NULL;
    CHECK(recorder_call(r, "checkpoint", "{}", &out) == CURBI_STATUS_OK && member_is(out, "size", N * ROUNDS),
          "one receipt per refund");
    curbi_bytes_free(out);
  }
  curbi_recorder_free(r);
  remove_dir(dir);
  json_free(doc);
  free(text);
}

/* Usage: test_curbi [VECTORS [BUNDLES]]: the vectors folder (default vectors) and where the recorder's verified
 * bundles go (default target/recorder-bundles/c, which must exist). */
int main(int argc, char **argv) {
  const char *root = argc > 1 ? argv[1] : "vectors";
  const char *bundles = argc > 2 ? argv[2] : "target/recorder-bundles/c";
  char dir[1024];
  test_misuse();
  test_threads();
  static const struct {
    const char *group;
    int (*run)(const jvalue *group, const jvalue *c, const char *where);
  } groups[] = {
      {"check", check_case},           {"lint", lint_case},
      {"regression", regression_case}, {"purchase", purchase_case},
      {"documents", documents_case},   {"checkout_digest", digest_case},
      {"yaml", yaml_case},
  };
  for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
    snprintf(dir, sizeof dir, "%s/%s", root, groups[i].group);
    run_group(dir, groups[i].group, groups[i].run);
  }
  snprintf(dir, sizeof dir, "%s/proof", root);
  run_proof_cases(dir, "proof", proof_case);
  run_proof_cases(dir, "proof (verifier handle)", verifier_case);
  printf("C verifier handles: %d built, %d refused their options\n", verifiers_built, verifiers_refused);
  CHECK(verifiers_built > 0 && verifiers_refused > 0, "the verifier vectors should build and refuse");
  test_verifier(dir);
  run_recorder_scenarios(root, bundles);
  test_recorder(root);
  /* Misuse of the JSON functions: NULL out-parameters and unreadable documents. */
  CHECK(curbi_validate_policy(u8("{}"), 2, NULL, NULL) == CURBI_STATUS_NULL_ARGUMENT, "lint null out");
  curbi_bytes *err = NULL, *out = NULL;
  CHECK(curbi_export_regression(u8("{"), 1, &out, &err) == CURBI_STATUS_INVALID_INPUT && out == NULL && err, "export bad json");
  curbi_bytes_free(err);
  err = NULL;
  CHECK(curbi_replay_regression(NULL, 0, &out, &err) == CURBI_STATUS_INVALID_INPUT && out == NULL && err, "replay empty");
  curbi_bytes_free(err);
  printf("C tests: %d passed, %d failed\n", checks - failures, failures);
  return failures ? 1 : 0;
}
