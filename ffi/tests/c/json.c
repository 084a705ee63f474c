#include "json.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *s;
  size_t n, i;
  int err;
} reader;

static void ws(reader *r) {
  while (r->i < r->n && (r->s[r->i] == ' ' || r->s[r->i] == '\n' || r->s[r->i] == '\r' || r->s[r->i] == '\t')) r->i++;
}

static jvalue *value(reader *r, int depth);

static jvalue *mk(jkind k, reader *r, size_t start) {
  jvalue *v = calloc(1, sizeof *v);
  if (!v) { r->err = 1; return NULL; }
  v->kind = k;
  v->src = r->s + start;
  return v;
}

static void put_utf8(char *out, size_t *o, unsigned cp) {
  if (cp < 0x80) out[(*o)++] = (char)cp;
  else if (cp < 0x800) { out[(*o)++] = (char)(0xC0 | (cp >> 6)); out[(*o)++] = (char)(0x80 | (cp & 0x3F)); }
  else if (cp < 0x10000) {
    out[(*o)++] = (char)(0xE0 | (cp >> 12)); out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[(*o)++] = (char)(0x80 | (cp & 0x3F));
  } else {
    out[(*o)++] = (char)(0xF0 | (cp >> 18)); out[(*o)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3F)); out[(*o)++] = (char)(0x80 | (cp & 0x3F));
  }
}

static int hex4(reader *r, unsigned *out) {
  if (r->i + 4 > r->n) return 0;
  unsigned v = 0;
  for (int k = 0; k < 4; k++) {
    char c = r->s[r->i++];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
    else return 0;
  }
  *out = v;
  return 1;
}

/* Reads a string at r->i (which is at the opening quote); returns malloc'd UTF-8 and its length. */
static char *string(reader *r, size_t *len) {
  r->i++;
  char *out = malloc(r->n - r->i + 1);
  if (!out) { r->err = 1; return NULL; }
  size_t o = 0;
  while (r->i < r->n && r->s[r->i] != '"') {
    char c = r->s[r->i++];
    if (c != '\\') { out[o++] = c; continue; }
    if (r->i >= r->n) break;
    char e = r->s[r->i++];
    switch (e) {
      case '"': out[o++] = '"'; break;
      case '\\': out[o++] = '\\'; break;
      case '/': out[o++] = '/'; break;
      case 'b': out[o++] = '\b'; break;
      case 'f': out[o++] = '\f'; break;
      case 'n': out[o++] = '\n'; break;
      case 'r': out[o++] = '\r'; break;
      case 't': out[o++] = '\t'; break;
      case 'u': {
        unsigned cp;
        if (!hex4(r, &cp)) { r->err = 1; free(out); return NULL; }
        if (cp >= 0xD800 && cp < 0xDC00 && r->i + 6 <= r->n && r->s[r->i] == '\\' && r->s[r->i + 1] == 'u') {
          unsigned lo;
          r->i += 2;
          if (!hex4(r, &lo)) { r->err = 1; free(out); return NULL; }
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        put_utf8(out, &o, cp);
        break;
      }
      default: r->err = 1; free(out); return NULL;
    }
  }
  if (r->i >= r->n) { r->err = 1; free(out); return NULL; }
  r->i++; /* closing quote */
  out[o] = 0;
  *len = o;
  return out;
}

static int push(jvalue *v, jvalue *item, char *key) {
  jvalue **items = realloc(v->items, (v->len + 1) * sizeof *items);
  if (!items) return 0;
  v->items = items;
  if (v->kind == J_OBJ) {
    char **keys = realloc(v->keys, (v->len + 1) * sizeof *keys);
    if (!keys) return 0;
    v->keys = keys;
    v->keys[v->len] = key;
  }
  v->items[v->len++] = item;
  return 1;
}

static jvalue *value(reader *r, int depth) {
  ws(r);
  if (r->i >= r->n || depth > 200) { r->err = 1; return NULL; }
  size_t start = r->i;
  char c = r->s[r->i];
  jvalue *v = NULL;
  if (c == '{' || c == '[') {
    v = mk(c == '{' ? J_OBJ : J_ARR, r, start);
    if (!v) return NULL;
    r->i++;
    ws(r);
    char close = c == '{' ? '}' : ']';
    if (r->i < r->n && r->s[r->i] == close) { r->i++; }
    else {
      for (;;) {
        char *key = NULL;
        if (v->kind == J_OBJ) {
          ws(r);
          size_t kl;
          if (r->i >= r->n || r->s[r->i] != '"') { r->err = 1; break; }
          key = string(r, &kl);
          ws(r);
          if (!key || r->i >= r->n || r->s[r->i] != ':') { free(key); r->err = 1; break; }
          r->i++;
        }
        jvalue *item = value(r, depth + 1);
        if (!item || !push(v, item, key)) { json_free(item); free(key); r->err = 1; break; }
        ws(r);
        if (r->i < r->n && r->s[r->i] == ',') { r->i++; continue; }
        if (r->i < r->n && r->s[r->i] == close) { r->i++; break; }
        r->err = 1;
        break;
      }
    }
  } else if (c == '"') {
    v = mk(J_STR, r, start);
    if (v) v->str = string(r, &v->str_len);
  } else if (!strncmp(r->s + r->i, "true", 4) || !strncmp(r->s + r->i, "false", 5)) {
    v = mk(J_BOOL, r, start);
    if (v) { v->boolean = c == 't'; r->i += c == 't' ? 4 : 5; }
  } else if (!strncmp(r->s + r->i, "null", 4)) {
    v = mk(J_NULL, r, start);
    r->i += 4;
  } else {
    v = mk(J_NUM, r, start);
    if (v) {
      char buf[64];
      size_t k = 0;
      while (r->i < r->n && k < sizeof buf - 1 && strchr("+-0123456789.eE", r->s[r->i])) buf[k++] = r->s[r->i++];
      buf[k] = 0;
      if (k == 0) r->err = 1;
      v->num = strtod(buf, NULL);
    }
  }
  if (v) v->src_len = r->i - start;
  if (r->err) { json_free(v); return NULL; }
  return v;
}

jvalue *json_parse(const char *text, size_t len) {
  reader r = {text, len, 0, 0};
  jvalue *v = value(&r, 0);
  ws(&r);
  if (!v || r.err || r.i != r.n) { json_free(v); return NULL; }
  return v;
}

void json_free(jvalue *v) {
  if (!v) return;
  for (size_t i = 0; i < v->len; i++) {
    json_free(v->items[i]);
    if (v->keys) free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  free(v->str);
  free(v);
}

const jvalue *json_get(const jvalue *obj, const char *key) {
  if (!obj || obj->kind != J_OBJ) return NULL;
  for (size_t i = 0; i < obj->len; i++)
    if (!strcmp(obj->keys[i], key)) return obj->items[i];
  return NULL;
}

int json_equal(const jvalue *a, const jvalue *b) {
  if (!a || !b || a->kind != b->kind) return 0;
  switch (a->kind) {
    case J_NULL: return 1;
    case J_BOOL: return a->boolean == b->boolean;
    case J_NUM: return a->num == b->num;
    case J_STR: return a->str_len == b->str_len && !memcmp(a->str, b->str, a->str_len);
    case J_ARR:
      if (a->len != b->len) return 0;
      for (size_t i = 0; i < a->len; i++)
        if (!json_equal(a->items[i], b->items[i])) return 0;
      return 1;
    case J_OBJ:
      if (a->len != b->len) return 0;
      for (size_t i = 0; i < a->len; i++)
        if (!json_equal(a->items[i], json_get(b, a->keys[i]))) return 0;
      return 1;
  }
  return 0;
}

/* A growing text; `err` is set once memory runs out (the text is then incomplete). */
typedef struct {
  char *s;
  size_t len, cap;
  int err;
} text;

static void put(text *t, const char *s, size_t n) {
  if (t->err) return;
  if (t->len + n + 1 > t->cap) {
    size_t cap = (t->len + n + 1) * 2;
    char *grown = realloc(t->s, cap);
    if (!grown) { t->err = 1; return; }
    t->s = grown;
    t->cap = cap;
  }
  memcpy(t->s + t->len, s, n);
  t->len += n;
  t->s[t->len] = 0;
}

/* `"key":`, the key escaped again. */
static void put_key(text *t, const char *key) {
  put(t, "\"", 1);
  for (const unsigned char *k = (const unsigned char *)key; *k; k++) {
    if (*k < 0x20) {
      static const char hex[] = "0123456789abcdef";
      char esc[6] = {'\\', 'u', '0', '0', hex[*k >> 4], hex[*k & 15]};
      put(t, esc, 6);
    } else {
      if (*k == '"' || *k == '\\') put(t, "\\", 1);
      put(t, (const char *)k, 1);
    }
  }
  put(t, "\":", 2);
}

/* The text taken, or NULL (freed) when memory ran out. */
static char *taken(text *t, size_t *len) {
  if (!t->s) put(t, "", 0);
  if (t->err) { free(t->s); return NULL; }
  *len = t->len;
  return t->s;
}

char *json_object_without(const jvalue *obj, const char *key, size_t *len) {
  if (!obj || obj->kind != J_OBJ) return NULL;
  text t = {0};
  put(&t, "{", 1);
  for (size_t i = 0; i < obj->len; i++) {
    if (!strcmp(obj->keys[i], key)) continue;
    if (t.len > 1) put(&t, ",", 1);
    put_key(&t, obj->keys[i]);
    put(&t, obj->items[i]->src, obj->items[i]->src_len);
  }
  put(&t, "}", 1);
  return taken(&t, len);
}

static void put_substituted(text *t, const jvalue *v, const char *string, const char *with) {
  if (v->kind == J_STR && !strcmp(v->str, string) && strlen(string) == v->str_len) {
    put(t, with, strlen(with));
  } else if (v->kind == J_OBJ) {
    put(t, "{", 1);
    for (size_t i = 0; i < v->len; i++) {
      if (i) put(t, ",", 1);
      put_key(t, v->keys[i]);
      put_substituted(t, v->items[i], string, with);
    }
    put(t, "}", 1);
  } else {
    put(t, v->src, v->src_len);
  }
}

char *json_substitute(const jvalue *v, const char *string, const char *with, size_t *len) {
  text t = {0};
  put_substituted(&t, v, string, with);
  return taken(&t, len);
}
