/* The C half of the differential test (scripts/differential.sh, docs/DOCUMENTS.md): every call the core wrote to
 * DIR/calls.jsonl, made through the C ABI, its document written to DIR/c.txt, one line a call, for
 * scripts/differential.py to hold byte for byte to the core's. Usage: differential DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curbi.h"
#include "entries.h"
#include "json.h"

static const uint8_t *u8(const char *s) { return (const uint8_t *)s; }

static const jvalue *str(const jvalue *call, const char *key) {
  const jvalue *v = json_get(call, key);
  return v && v->kind == J_STR ? v : NULL;
}

/* Runs one call; writes its document (or the error document) to `out`. Returns 0 for an unknown entry. */
static int run(const jvalue *call, FILE *out) {
  const char *entry = str(call, "entry")->str;
  curbi_bytes *doc = NULL, *err = NULL;
  curbi_status s = CURBI_STATUS_OK;
  const jvalue *receipts = str(call, "receipts");
  json_fn fn = json_entry(entry);
  if (!strcmp(entry, "check") && receipts) {
    const jvalue *in = str(call, "input");
    s = curbi_check_with_receipts(u8(in->str), in->str_len, u8(receipts->str), receipts->str_len, &doc, &err);
  } else if (fn) {
    const jvalue *in = str(call, "input");
    s = fn(u8(in->str), in->str_len, &doc, &err);
  } else if (!strcmp(entry, "policy_check")) {
    const jvalue *policy = str(call, "policy"), *reply = str(call, "reply"), *options = str(call, "options");
    curbi_policy *p = NULL;
    s = curbi_policy_compile_with_receipts(u8(policy->str), policy->str_len, receipts ? u8(receipts->str) : NULL,
                                           receipts ? receipts->str_len : 0, &p, &err);
    if (s == CURBI_STATUS_OK)
      s = curbi_policy_check(p, u8(reply->str), reply->str_len, options ? u8(options->str) : NULL,
                             options ? options->str_len : 0, &doc, &err);
    curbi_policy_free(p);
  } else if (!strcmp(entry, "verifier")) {
    const jvalue *options = str(call, "options"), *bundle = str(call, "bundle");
    curbi_verifier *v = NULL;
    s = curbi_verifier_new(u8(options->str), options->str_len, &v, &err);
    if (s == CURBI_STATUS_OK) s = curbi_verifier_verify(v, u8(bundle->str), bundle->str_len, &doc, &err);
    curbi_verifier_free(v);
  } else {
    fprintf(stderr, "unknown entry %s\n", entry);
    return 0;
  }
  const curbi_bytes *b = s == CURBI_STATUS_OK ? doc : err;
  fwrite(curbi_bytes_data(b), 1, curbi_bytes_len(b), out);
  fputc('\n', out);
  curbi_bytes_free(doc);
  curbi_bytes_free(err);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  char path[4096];
  snprintf(path, sizeof path, "%s/calls.jsonl", argv[1]);
  FILE *in = fopen(path, "rb");
  snprintf(path, sizeof path, "%s/c.txt", argv[1]);
  FILE *out = fopen(path, "wb");
  if (!in || !out) return 2;
  size_t cap = 1 << 20, n = 0;
  char *line = malloc(cap);
  int calls = 0, ok = 1, c;
  while ((c = fgetc(in)) != EOF) {
    if (n + 1 >= cap) line = realloc(line, cap *= 2);
    if (c != '\n') {
      line[n++] = (char)c;
      continue;
    }
    jvalue *call = json_parse(line, n);
    ok = ok && call && run(call, out);
    json_free(call);
    calls++;
    n = 0;
  }
  free(line);
  fclose(in);
  fclose(out);
  printf("C differential: %d calls\n", calls);
  return ok && calls > 0 ? 0 : 1;
}
