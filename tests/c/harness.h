/* What the C test drivers (tests/c/test_*.c) and the libFuzzer targets
 * (tests/fuzz/fuzz_*.c) share: pass/fail tallies and their report lines,
 * the random inputs, small memory and hex helpers, and the hash families'
 * sizes and kernel calls written once over the kernel unions.
 *
 * The definitions are in harness.c, compiled into each driver beside the
 * core's sources (tests/c/run.sh, tests/fuzz/run.sh): the run's totals, the
 * seed and the CPU's features then live in one place however many files a
 * driver grows, and every build compiles and checks the whole harness, not
 * only the parts one driver happens to use. Plain C11; no Python.h, no
 * main(): a driver writes its own, a fuzz target has libFuzzer's. */
#ifndef FD_TESTS_HARNESS_H
#define FD_TESTS_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dispatch/dispatch.h"
#include "kernels/kernel.h"

/* kernels/compiler.h's FD_PRINTF_LIKE lets GCC and Clang check the
 * printf-like functions below against their formats. */
#include "kernels/compiler.h"

/* ---- the run ----------------------------------------------------------- */

/* Names the program in its messages ("test_core": "test_core: out of
 * memory") and sets the seed of the random tests: default_seed, unless the
 * FD_TEST_SEED environment variable gives one (a value that is no number is
 * a setup failure). Call it first. */
void harness_start(const char *program, uint64_t default_seed);

/* For an argument "--seed=N": takes N as the seed (or fails the setup when
 * it is no number) and returns true; any other argument: false. */
bool take_seed_option(const char *arg);

/* Prints "random seed: ... (override with ...)", so a failure's run can be
 * repeated. */
void print_seed(void);

/* Prints "<summary>: N passed, N failed" ("C core", "C batch": the line
 * tests/test_c_core.py reads) and returns the process's exit status: 0 when
 * nothing failed, else 1. */
int finish_run(const char *summary);

/* ---- tallies ----------------------------------------------------------- */

/* One test group for one kernel. A tally counts towards the run's totals
 * when report_group prints it, so every tally a driver fills must be
 * reported. */
typedef struct group_tally {
    unsigned long passed;
    unsigned long failed;
} group_tally;

/* Counts one assertion; a failed one is described by the printf-like
 * message (the first few of a group in full, the rest only counted). */
void check(group_tally *tally, bool ok, const char *fmt, ...) FD_PRINTF_LIKE(3, 4);

/* Prints one line for a group, "[family/kernel]  group  N passed, N failed"
 * and the detail (which algorithms, which file), and adds the tally to the
 * run's totals. */
void report_group(const char *family, const char *kernel, const char *group, const char *detail,
                  const group_tally *tally);

/* A failure outside any group (bad arguments, a missing directory): printed
 * and counted in the totals. */
void fail_setup(const char *fmt, ...) FD_PRINTF_LIKE(1, 2);

/* For fuzz targets: prints "<program> MISMATCH: ..." to stderr and aborts,
 * which libFuzzer reports as a crash and saves the input. */
_Noreturn void fail_fatal(const char *fmt, ...) FD_PRINTF_LIKE(1, 2);

/* ---- random inputs ------------------------------------------------------ */

/* SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): one 64-bit add and a mixing function, with no
 * bad state, good enough to draw test inputs, and the same on every
 * platform. */
typedef struct test_rng {
    uint64_t state;
} test_rng;

uint64_t rng_next(test_rng *rng);
/* A value in 0..bound-1 (bound > 0); the slight bias does not matter here. */
size_t rng_below(test_rng *rng, size_t bound);
void rng_fill(test_rng *rng, uint8_t *out, size_t len);

/* The stream of one test group (a number of the driver's choosing) for one
 * algorithm, family or kernel (index), derived from the seed: a failure
 * reproduces with the same seed whatever other kernels the build or the
 * CPU has. */
test_rng rng_for(unsigned group, unsigned index);

/* ---- memory and hex ----------------------------------------------------- */

/* malloc that exits the program (status 2) when out of memory; len 0 gives
 * a valid pointer too. */
void *checked_malloc(size_t len);

/* Decodes hex into out (room for strlen(hex) / 2 bytes); returns the byte
 * count, or -1 if hex is not an even number of hex digits. */
long decode_hex(const char *hex, uint8_t *out);

/* Formats len bytes (at most a digest's worth) as hex into a static buffer,
 * for failure messages: valid until the next call. */
const char *hex_string(const uint8_t *bytes, size_t len);

/* ---- the families and their kernels ------------------------------------- */

extern const char *const family_names[FD_FAMILY_COUNT]; /* "md5", "sha1", ... */

/* One algorithm of each family, as an initializer of FD_FAMILY_COUNT ids
 * (enum fd_algorithm_id, hash/algorithms.h): the one its known answers are
 * of (kernels/kernel.h's FD_KNOWN_ANSWERS), its longest digest's. */
#define HARNESS_FAMILY_ALGORITHM(name, NAME, ALGORITHM, ...) FD_##ALGORITHM,
#define ONE_ALGORITHM_OF_EACH_FAMILY FD_KNOWN_ANSWERS(HARNESS_FAMILY_ALGORITHM)

size_t family_block_len(enum fd_family family);
/* The bytes of one chaining value: 16, 20, 32 or 64. */
size_t family_chain_len(enum fd_family family);

/* The chaining values of up to FD_BATCH_MAX_LANES streams of one family, in
 * the layout its multi-buffer kernels take (kernel.h); a single-stream
 * kernel compresses one lane. */
typedef fd_lane_chains test_chains;

/* Lane `lane`'s chain: family_chain_len(family) bytes. */
void *chain_of(enum fd_family family, test_chains *chains, unsigned lane);

/* Compresses nblocks blocks into lane `lane` with a single-stream kernel. */
void call_kernel(enum fd_family family, const fd_kernel *kernel, test_chains *chains, unsigned lane,
                 const uint8_t *blocks, size_t nblocks);

/* Compresses nblocks blocks from blocks[lane] into each of the kernel's
 * lanes with a multi-buffer kernel. */
void call_multi_kernel(enum fd_family family, const fd_multi_kernel *kernel, test_chains *chains,
                       const uint8_t *const *blocks, size_t nblocks);

/* Whether two single-stream kernels compress with the same function. */
bool same_kernel(enum fd_family family, const fd_kernel *a, const fd_kernel *b);

/* The portable C kernel of a family, named directly rather than found in
 * fd_kernel_lists, so the reference stays the portable C whatever the lists
 * hold (MD5's list also has the "tuned" plain-C kernel). */
const fd_kernel *portable_kernel(enum fd_family family);

/* ---- the CPU ----------------------------------------------------------- */

/* Whether this CPU has every feature in required (read once per run). */
bool cpu_runs(uint32_t required_features);

/* cpu_runs, and when it does not, prints "[family/kernel] skipped: this
 * CPU lacks <features>". */
bool cpu_runs_or_say_skipped(enum fd_family family, const char *kernel_name,
                             uint32_t required_features);

/* Prints the names of the features in the mask ("(none)" for none). */
void print_features(uint32_t features);

#endif /* FD_TESTS_HARNESS_H */
