/* C tests of libcurbi: every exported function, the shared vectors through the C API, misuse, and threads.
 * Built with -std=c11 -Wall -Wextra -Werror and sanitizers, then run again under valgrind (ffi/tests/c/run.sh). */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curbi.h"
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

/* The error document's code and path, compared with what a vector expects. */
static int error_matches(const curbi_bytes *err, const jvalue *expected_error) {
  jvalue *doc = parse_bytes(err);
  const jvalue *e = json_get(doc, "error");
  int ok = e && json_equal(json_get(e, "code"), json_get(expected_error, "code")) &&
           json_equal(json_get(e, "path"), json_get(expected_error, "path"));
  json_free(doc);
  return ok;
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

/* A single-reply vector again through a compiled policy with options, spans in bytes. */
static void run_compiled(const jvalue *request, const jvalue *expected, const char *where) {
  const jvalue *policy = json_get(request, "policy"), *reply = json_get(request, "reply");
  if (!policy || !reply) return;
  curbi_policy *p = NULL;
  curbi_bytes *err = NULL;
  curbi_status s = curbi_policy_compile(u8(policy->src), policy->src_len, &p, &err);
  CHECK(s == CURBI_STATUS_OK, "%s: compile failed with status %u", where, (unsigned)s);
  curbi_bytes_free(err);
  if (s != CURBI_STATUS_OK) return;
  char options[65536];
  const jvalue *record = json_get(request, "record"), *version = json_get(request, "version");
  int n = snprintf(options, sizeof options, "{%s%.*s%s%s%.*s}", record ? "\"record\":" : "", record ? (int)record->src_len : 0,
                   record ? record->src : "", record && version ? "," : "", version ? "\"version\":" : "",
                   version ? (int)version->src_len : 0, version ? version->src : "");
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

/* A check vector: the whole response through curbi_check, and single replies again through a compiled policy. */
static int check_case(const jvalue *group, const jvalue *c, const char *where) {
  (void)group;
  int before = failures;
  const jvalue *request = json_get(c, "request");
  const jvalue *expected = json_get(c, "expected");
  curbi_bytes *out = NULL, *err = NULL;
  curbi_status s = curbi_check(u8(request->src), request->src_len, &out, &err);
  const jvalue *expected_error = json_get(expected, "error");
  if (expected_error) {
    CHECK(s == CURBI_STATUS_INVALID_INPUT && out == NULL && err && error_matches(err, expected_error),
          "%s: expected error, got status %u", where, (unsigned)s);
  } else {
    jvalue *got = s == CURBI_STATUS_OK ? parse_bytes(out) : NULL;
    CHECK(got && json_equal(got, expected), "%s: response differs: %.*s", where, out ? (int)curbi_bytes_len(out) : 0,
          out ? (const char *)curbi_bytes_data(out) : "");
    json_free(got);
    run_compiled(request, expected, where);
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

typedef curbi_status (*json_fn)(const uint8_t *, size_t, curbi_bytes **, curbi_bytes **);

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
    ok = s == CURBI_STATUS_INVALID_INPUT && out == NULL && err && error_matches(err, expected_error);
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

/* Proof vectors: cases.json lists each case's file; ok, reason and each item's reason must match. */
static void run_proof_vectors(const char *dir) {
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
    CHECK(ok, "%s: proof vector failed: %.*s", file->str, out ? (int)curbi_bytes_len(out) : 0, out ? (const char *)curbi_bytes_data(out) : "");
    failed += !ok;
    ran++;
    json_free(got);
    curbi_bytes_free(out);
    json_free(doc);
    free(body);
  }
  json_free(index);
  free(text);
  printf("C proof vectors: %d ran, %d failed\n", ran, failed);
  CHECK(ran > 0, "no proof vectors ran");
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

typedef struct {
  const curbi_policy *policy;
  const char *reply;
  const char *expected;
  size_t expected_len;
  int mismatches;
} thread_arg;

static void *worker(void *a) {
  thread_arg *t = a;
  for (int i = 0; i < 500; i++) {
    curbi_bytes *out = NULL;
    if (curbi_policy_check(t->policy, u8(t->reply), strlen(t->reply), NULL, 0, &out, NULL) != CURBI_STATUS_OK ||
        curbi_bytes_len(out) != t->expected_len || memcmp(curbi_bytes_data(out), t->expected, t->expected_len))
      t->mismatches++;
    curbi_bytes_free(out);
  }
  return NULL;
}

static void test_threads(void) {
  const char *policy = "{\"prices\":[{\"item\":\"Pro\",\"amount\":49}],\"forbid\":[{\"id\":\"g\",\"phrases\":[\"guarantee\"]}],"
                       "\"actions\":{\"refunded\":\"billing.refund\"}}";
  const char *replies[] = {"Done! I've refunded you, Pro is just $29, and we guarantee it.", "Pro is $49. 😀 Ça va, İyi!",
                           "We don't guarantee anything.", "Pro 是 $29。"};
  curbi_policy *p = NULL;
  CHECK(curbi_policy_compile(u8(policy), strlen(policy), &p, NULL) == CURBI_STATUS_OK, "compile for threads");
  if (!p) return;
  enum { N = 8 };
  pthread_t th[N];
  thread_arg args[N];
  curbi_bytes *single[N];
  for (int i = 0; i < N; i++) {
    const char *r = replies[i % 4];
    single[i] = NULL;
    CHECK(curbi_policy_check(p, u8(r), strlen(r), NULL, 0, &single[i], NULL) == CURBI_STATUS_OK, "single-threaded");
    args[i] = (thread_arg){p, r, (const char *)curbi_bytes_data(single[i]), curbi_bytes_len(single[i]), 0};
  }
  for (int i = 0; i < N; i++) pthread_create(&th[i], NULL, worker, &args[i]);
  for (int i = 0; i < N; i++) {
    pthread_join(th[i], NULL);
    CHECK(args[i].mismatches == 0, "thread %d disagreed %d times", i, args[i].mismatches);
    curbi_bytes_free(single[i]);
  }
  curbi_policy_free(p);
}

int main(int argc, char **argv) {
  const char *root = argc > 1 ? argv[1] : "vectors";
  char dir[1024];
  test_misuse();
  test_threads();
  snprintf(dir, sizeof dir, "%s/check", root);
  run_group(dir, "check", check_case);
  snprintf(dir, sizeof dir, "%s/lint", root);
  run_group(dir, "lint", lint_case);
  snprintf(dir, sizeof dir, "%s/regression", root);
  run_group(dir, "regression", regression_case);
  snprintf(dir, sizeof dir, "%s/purchase", root);
  run_group(dir, "purchase", purchase_case);
  snprintf(dir, sizeof dir, "%s/proof", root);
  run_proof_vectors(dir);
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
