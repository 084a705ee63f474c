/* Issue 44's shapes through the C ABI: one curbi_policy_check of a unit repeated N times, on a policy compiled once.
 * scripts/complexity-c.sh runs it under callgrind with collection only inside curbi_policy_check, at 10 KB and
 * 40 KB, and compares the instruction counts (docs/PERFORMANCE.md §"Complexity"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curbi.h"

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: complexity POLICY_JSON UNIT BYTES\n");
        return 2;
    }
    const char *policy_json = argv[1];
    const char *unit = argv[2];
    size_t bytes = (size_t)strtoull(argv[3], NULL, 10);
    size_t unit_len = strlen(unit);
    if (unit_len == 0 || bytes == 0) {
        fprintf(stderr, "complexity: empty unit or size\n");
        return 2;
    }
    /* Whole units only, so that two sizes in a ratio of four hold exactly four times the units. */
    size_t copies = bytes / unit_len;
    if (copies == 0) copies = 1;
    char *reply = malloc(copies * unit_len);
    if (!reply) return 2;
    for (size_t i = 0; i < copies; i++) memcpy(reply + i * unit_len, unit, unit_len);

    curbi_policy *policy = NULL;
    curbi_bytes *error = NULL;
    if (curbi_policy_compile((const uint8_t *)policy_json, strlen(policy_json), &policy, &error) != CURBI_STATUS_OK) {
        fprintf(stderr, "complexity: the policy does not compile: %.*s\n", (int)curbi_bytes_len(error),
                (const char *)curbi_bytes_data(error));
        curbi_bytes_free(error);
        free(reply);
        return 1;
    }
    curbi_bytes *result = NULL;
    curbi_status st = curbi_policy_check(policy, (const uint8_t *)reply, copies * unit_len, NULL, 0, &result, &error);
    if (st != CURBI_STATUS_OK) {
        fprintf(stderr, "complexity: check failed (%d)\n", (int)st);
        curbi_bytes_free(error);
    } else {
        printf("%zu bytes, %zu bytes of response\n", copies * unit_len, curbi_bytes_len(result));
        curbi_bytes_free(result);
    }
    curbi_policy_free(policy);
    free(reply);
    return st == CURBI_STATUS_OK ? 0 : 1;
}
