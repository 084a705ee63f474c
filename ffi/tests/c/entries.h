/* The C ABI's document-in, document-out functions under the entry names the shared vectors and the differential
 * calls give them: one table for test_curbi.c and differential.c. */
#ifndef CURBI_TEST_ENTRIES_H
#define CURBI_TEST_ENTRIES_H

#include <string.h>

#include "curbi.h"

typedef curbi_status (*json_fn)(const uint8_t *, size_t, curbi_bytes **, curbi_bytes **);

/* The function that `entry` names, or NULL when it names none of them. */
static inline json_fn json_entry(const char *entry) {
  static const struct {
    const char *name;
    json_fn fn;
  } entries[] = {
      {"check", curbi_check},
      {"validate_policy", curbi_validate_policy},
      {"export_regression", curbi_export_regression},
      {"replay_regression", curbi_replay_regression},
      {"verify_checkout", curbi_verify_checkout},
      {"verify_action", curbi_verify_action},
      {"checkout_digest", curbi_checkout_digest},
      {"verify_bundle", curbi_verify_bundle},
  };
  for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
    if (!strcmp(entry, entries[i].name)) return entries[i].fn;
  return NULL;
}

#endif
