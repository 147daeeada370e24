/* Test driver of the digest columns on threads (data/arrow_hash.c, behind
 * digest_array and digest_rows, and data/arrow_surrogate.c, behind
 * surrogate_key): runs without Python, natively, under ASan/UBSan and under
 * ThreadSanitizer (tests/c/run.sh), where the threads' parts of one column
 * are what it checks. tests/c/run.sh builds it with chunks, parts and
 * buffers as small as the fuzzers' (tests/fuzz/run.sh), so that columns of
 * a few thousand rows are cut into parts for up to five threads and cross
 * every seam of the hashing loop.
 *
 *   - fd_digest_column_hash on 1 to 5 threads, binary and hex, of rows in
 *     place and of rows an encoder writes into the sink (rows longer than
 *     the sink streamed), with nulls: each row against fd_hash over its
 *     bytes, each null row zeros;
 *   - fd_surrogate_key_hash on 1 to 5 threads: a string and an int64
 *     column with nulls, keys longer than the key buffer among them,
 *     against the key written here;
 *   - a column's references dropped by several threads at once, each after
 *     reading the digests, as consumers release exported arrays: the last
 *     one frees the column after every other thread's reads;
 *   - and first, the multi-buffer kernels that the extension's selection
 *     leaves to each family's first batch, settled by five threads at once.
 *
 * Usage: test_columns [--seed=N]
 * Prints a line per group, then "C columns: N passed, N failed"; exits 1
 * on any failure. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash/algorithms.h"
#include "data/arrow_digest_column.h"
#include "data/arrow_hash.h"
#include "data/arrow_surrogate.h"
#include "hash/batch.h"
#include "data/byte_sink.h"
#include "hash/hex.h"
#include "hash/known_answers.h"
#include "platform/parallel.h"
#include "dispatch/dispatch.h"
#include "harness.h"

#define MAX_THREADS 5
#define MAX_ROWS 3000

static const enum fd_algorithm_id column_ids[] = {ONE_ALGORITHM_OF_EACH_FAMILY};

/* ---- rows ----------------------------------------------------------------- */

/* Rows of random bytes, one after the other in data (row i is [starts[i],
 * starts[i + 1])), a fifth of them null, some longer than the sinks and key
 * buffers these builds have. */
typedef struct rows {
    size_t count;
    uint8_t *data;
    size_t *starts;
    uint8_t *validity; /* bit i set: row i is not null */
    bool write_to_sink;
} rows;

static rows make_rows(size_t count, test_rng *rng)
{
    rows r = {.count = count};
    r.starts = checked_malloc((count + 1) * sizeof *r.starts);
    r.validity = checked_malloc(count / 8 + 1);
    memset(r.validity, 0, count / 8 + 1);
    r.starts[0] = 0;
    for (size_t i = 0; i < count; i++) {
        const size_t len = rng_below(rng, 50) == 0 ? 300 + rng_below(rng, 700) : rng_below(rng, 90);
        r.starts[i + 1] = r.starts[i] + len;
        if (rng_below(rng, 5) != 0)
            r.validity[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    r.data = checked_malloc(r.starts[count] + 1);
    rng_fill(rng, r.data, r.starts[count]);
    return r;
}

static void free_rows(rows *r)
{
    free(r->data);
    free(r->starts);
    free(r->validity);
}

static bool row_is_null(const rows *r, size_t i)
{
    return (r->validity[i / 8] >> (i % 8) & 1) == 0;
}

static void rows_nulls(const void *context, uint8_t *validity)
{
    const rows *r = context;
    memcpy(validity, r->validity, (r->count + 7) / 8);
}

/* In place, or written to the sink in two pieces as an encoder writes a
 * value's framing and then its bytes. */
static bool rows_bytes(const void *context, size_t row, fd_sink *sink, const uint8_t **data,
                       size_t *len)
{
    const rows *r = context;
    const uint8_t *bytes = r->data + r->starts[row];
    const size_t n = r->starts[row + 1] - r->starts[row];
    if (!r->write_to_sink) {
        *data = n != 0 ? bytes : NULL;
        *len = n;
        return true;
    }
    fd_sink_write(sink, bytes, n / 3);
    fd_sink_write(sink, bytes + n / 3, n - n / 3);
    return false;
}

/* ---- digest columns --------------------------------------------------------- */

/* Every row of a column as fd_hash has it (zeros where null), in binary or
 * hex, and the hex offsets. */
static bool column_matches(const fd_digest_column *digests, const rows *r)
{
    const size_t digest_len = fd_algorithms[digests->id].digest_len;
    uint8_t expected[FD_MAX_DIGEST_LEN];
    char expected_hex[2 * FD_MAX_DIGEST_LEN];

    if (fd_digest_column_length(digests) != (int64_t)r->count)
        return false;
    for (size_t i = 0; i < r->count; i++) {
        if (row_is_null(r, i))
            memset(expected, 0, digest_len);
        else
            fd_hash(digests->id, r->data + r->starts[i], r->starts[i + 1] - r->starts[i], expected);
        const uint8_t *slot = digests->values + i * digests->row_width;
        if (digests->hex) {
            fd_hex_encode(expected, digest_len, expected_hex);
            int32_t offset;
            memcpy(&offset, (const uint8_t *)digests->offsets + 4 * i, 4);
            if (memcmp(slot, expected_hex, 2 * digest_len) != 0 ||
                offset != (int32_t)(i * digests->row_width))
                return false;
        }
        else if (memcmp(slot, expected, digest_len) != 0) {
            return false;
        }
    }
    return true;
}

static void test_digest_columns(group_tally *tally)
{
    const size_t lengths[] = {MAX_ROWS, 777, 49, 0};

    for (size_t a = 0; a < sizeof column_ids / sizeof column_ids[0]; a++) {
        const enum fd_algorithm_id id = column_ids[a];
        test_rng rng = rng_for(1, (unsigned)id);
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
            rows r = make_rows(lengths[l], &rng);
            const fd_row_source source = {r.count, &r, rows_nulls, rows_bytes};
            for (int in_sink = 0; in_sink < 2; in_sink++) {
                r.write_to_sink = in_sink;
                for (int hex = 0; hex < 2; hex++) {
                    for (size_t threads = 1; threads <= MAX_THREADS; threads++) {
                        fd_digest_column *digests = fd_digest_column_hash(id, hex, &source,
                                                                          threads);
                        check(tally, digests != NULL && column_matches(digests, &r),
                              "%s: %zu rows %s, %s, on %zu threads differ", fd_algorithms[id].name,
                              r.count, in_sink ? "written to the sink" : "in place",
                              hex ? "hex" : "binary", threads);
                        if (digests != NULL)
                            fd_digest_column_unref(digests);
                    }
                }
            }
            free_rows(&r);
        }
    }
}

/* ---- surrogate keys ---------------------------------------------------------- */

static const uint8_t separator[] = "-";
static const uint8_t null_token[] = "_dbt_utils_surrogate_key_null_";

/* The key of row i: the string's bytes (or the token), the separator, the
 * integer's decimal text (or the token). */
static size_t write_key(const rows *strings, const int64_t *integers, const uint8_t *int_validity,
                        size_t i, uint8_t *out)
{
    size_t len = 0;
    if (row_is_null(strings, i)) {
        memcpy(out, null_token, sizeof null_token - 1);
        len = sizeof null_token - 1;
    }
    else {
        len = strings->starts[i + 1] - strings->starts[i];
        memcpy(out, strings->data + strings->starts[i], len);
    }
    out[len++] = separator[0];
    if ((int_validity[i / 8] >> (i % 8) & 1) == 0) {
        memcpy(out + len, null_token, sizeof null_token - 1);
        return len + sizeof null_token - 1;
    }
    return len + (size_t)sprintf((char *)out + len, "%" PRId64, integers[i]);
}

static void test_surrogate_keys(group_tally *tally)
{
    const size_t count = MAX_ROWS;
    test_rng rng = rng_for(2, 0);
    rows strings = make_rows(count, &rng);
    int32_t *offsets = checked_malloc((count + 1) * sizeof *offsets);
    int64_t *integers = checked_malloc(count * sizeof *integers);
    uint8_t *int_validity = checked_malloc(count / 8 + 1);
    for (size_t i = 0; i <= count; i++)
        offsets[i] = (int32_t)strings.starts[i];
    for (size_t i = 0; i < count; i++) {
        integers[i] = (int64_t)(rng_next(&rng) >> rng_below(&rng, 64));
        if (i % 2)
            integers[i] = -integers[i];
    }
    rng_fill(&rng, int_validity, count / 8 + 1);

    const fd_flat_column columns[2] = {
        {.type = {.kind = FD_FLAT_STRING, .layout = FD_ARROW_OFFSETS32},
         .rows = {.layout = FD_ARROW_OFFSETS32,
                  .length = count,
                  .validity = strings.validity,
                  .positions = (const uint8_t *)offsets,
                  .data = strings.data}},
        {.type = {.kind = FD_FLAT_SIGNED, .width = 8},
         .rows = {.length = count,
                  .validity = int_validity,
                  .positions = (const uint8_t *)integers}},
    };
    const fd_surrogate_spec spec = {FD_MD5, separator, sizeof separator - 1, null_token,
                                    sizeof null_token - 1};
    uint8_t *key = checked_malloc(2000);
    uint8_t digest[FD_MAX_DIGEST_LEN];
    char hex[2 * FD_MAX_DIGEST_LEN];

    for (size_t threads = 1; threads <= MAX_THREADS; threads++) {
        fd_surrogate_failure failure;
        fd_digest_column *keys = fd_surrogate_key_hash(&spec, columns, 2, threads, &failure);
        bool same = keys != NULL && fd_digest_column_length(keys) == (int64_t)count;
        for (size_t i = 0; same && i < count; i++) {
            fd_hash(FD_MD5, key, write_key(&strings, integers, int_validity, i, key), digest);
            fd_hex_encode(digest, 16, hex);
            same = memcmp(keys->values + i * keys->row_width, hex, 32) == 0;
        }
        check(tally, same, "surrogate keys of %zu rows on %zu threads differ", count, threads);
        if (keys != NULL)
            fd_digest_column_unref(keys);
    }
    free(key);
    free(int_validity);
    free(integers);
    free(offsets);
    free_rows(&strings);
}

/* ---- references ------------------------------------------------------------- */

/* Consumers of one column on threads of their own: each reads every
 * digest, as a consumer of an exported array does, and then drops its
 * reference. The column is freed by whichever drops the last one. */
typedef struct consumers {
    fd_digest_column *digests;
    unsigned sums[MAX_THREADS];
} consumers;

static bool consume(void *context, size_t part)
{
    consumers *c = context;
    const size_t len = (size_t)fd_digest_column_length(c->digests) * c->digests->row_width;
    unsigned sum = 0;
    for (size_t i = 0; i < len; i++)
        sum += c->digests->values[i];
    c->sums[part] = sum;
    fd_digest_column_unref(c->digests);
    return true;
}

static void test_references(group_tally *tally)
{
    test_rng rng = rng_for(3, 0);
    rows r = make_rows(MAX_ROWS, &rng);
    const fd_row_source source = {r.count, &r, rows_nulls, rows_bytes};

    for (int round = 0; round < 20; round++) {
        consumers c = {.digests = fd_digest_column_hash(FD_SHA256, round % 2, &source, 2)};
        if (c.digests == NULL) {
            check(tally, false, "no memory for a column");
            continue;
        }
        /* One reference a consumer: the column's own goes to consumer 0. */
        for (size_t i = 1; i < MAX_THREADS; i++)
            fd_digest_column_ref(c.digests);
        fd_parallel_run(MAX_THREADS, consume, &c);
        bool same = true;
        for (size_t i = 1; i < MAX_THREADS; i++)
            same = same && c.sums[i] == c.sums[0];
        check(tally, same, "round %d: consumers read different digests", round);
    }
    free_rows(&r);
}

/* Threads that reach their first batches together after the extension's
 * selection: each asks every family's multi-buffer kernel at once, and each
 * must get the one an unchecked selection installs (under TSan: with no
 * race on the settling). */
typedef struct settlers {
    const char *names[MAX_THREADS][FD_FAMILY_COUNT];
} settlers;

static bool settle_every_family(void *context, size_t part)
{
    settlers *s = context;

    /* Each thread starts at another family, so that they meet on each. */
    for (size_t i = 0; i < FD_FAMILY_COUNT; i++) {
        const size_t family = (i + part) % FD_FAMILY_COUNT;
        const fd_multi_kernel *multi = fd_batch_multi_kernel((enum fd_family)family);
        s->names[part][family] = multi != NULL ? multi->name : NULL;
    }
    return true;
}

static void test_settling(group_tally *tally)
{
    const char *expected[FD_FAMILY_COUNT];
    char error[200];

    fd_select_kernels(false);
    for (int f = 0; f < FD_FAMILY_COUNT; f++)
        expected[f] = fd_active_multi_kernels[f].name;
    for (int round = 0; round < 20; round++) {
        settlers s;
        if (!fd_select_checked_kernels(false, NULL, error, sizeof error))
            fail_setup("the selection refused no list: %s", error);
        fd_parallel_run(MAX_THREADS, settle_every_family, &s);
        for (size_t part = 0; part < MAX_THREADS; part++) {
            for (int f = 0; f < FD_FAMILY_COUNT; f++) {
                const char *name = s.names[part][f];
                check(tally,
                      expected[f] == NULL ? name == NULL
                                          : name != NULL && strcmp(name, expected[f]) == 0,
                      "round %d: thread %zu got family %d's %s, not %s", round, part, f,
                      name ? name : "none", expected[f] ? expected[f] : "none");
            }
        }
    }
}

/* ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    harness_start("test_columns", 0x66645f636f6c756du); /* "fd_colum" */
    for (int i = 1; i < argc; i++) {
        if (!take_seed_option(argv[i])) {
            fprintf(stderr, "test_columns: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    print_seed();

    group_tally settling = {0, 0};
    test_settling(&settling);
    report_group("all", "checked", "fd_batch_multi_kernel", "settled on 5 threads", &settling);
    /* And the columns over the kernels the extension's selection leaves. */

    group_tally columns = {0, 0}, keys = {0, 0}, references = {0, 0};
    char error[200];
    if (!fd_select_checked_kernels(false, NULL, error, sizeof error))
        fail_setup("the selection refused no list: %s", error);
    test_digest_columns(&columns);
    report_group("all", "selected", "fd_digest_column_hash", "1-5 threads", &columns);
    test_surrogate_keys(&keys);
    report_group("md5", "selected", "fd_surrogate_key_hash", "1-5 threads", &keys);
    test_references(&references);
    report_group("sha256", "selected", "fd_digest_column_unref", "on 5 threads", &references);
    return finish_run("C columns");
}
