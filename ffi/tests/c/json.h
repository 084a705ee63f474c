/* A small JSON reader for the tests: parses a document into a tree, remembers each value's source text
 * (so a request can be handed to the library byte for byte), and compares trees for equality. Test code only. */
#ifndef CURBI_TEST_JSON_H
#define CURBI_TEST_JSON_H

#include <stddef.h>

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jkind;

typedef struct jvalue {
  jkind kind;
  int boolean;
  double num;
  char *str;             /* J_STR: decoded UTF-8, NUL-terminated */
  size_t str_len;
  struct jvalue **items; /* J_ARR / J_OBJ values */
  char **keys;           /* J_OBJ keys */
  size_t len;
  const char *src;       /* source text of this value */
  size_t src_len;
} jvalue;

jvalue *json_parse(const char *text, size_t len);
void json_free(jvalue *v);
const jvalue *json_get(const jvalue *obj, const char *key);
int json_equal(const jvalue *a, const jvalue *b);
/* The text of object `obj` without its member(s) named `key`: the other keys re-escaped, their values copied as
 * written. NUL-terminated and malloc'd (the caller frees), length in *len; NULL when `obj` is not an object or
 * memory runs out. */
char *json_object_without(const jvalue *obj, const char *key, size_t *len);
/* The text of `v` with every string value equal to `string` (`v` itself, or a member's value in an object, at any
 * depth through objects; arrays are copied as written) replaced by the JSON text `with`. Malloc'd as above. */
char *json_substitute(const jvalue *v, const char *string, const char *with, size_t *len);

#endif
