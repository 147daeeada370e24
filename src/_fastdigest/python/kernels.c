/* The kernels as the package sees them beyond fastdigest.implementation:
 * the warnings for the kernels the selection refused (core/known_answers.h). */
#include "python/binding.h"

#include <stdio.h>
#include <string.h>

#include "core/batch.h"
#include "core/hmac.h"
#include "core/known_answers.h"
#include "dispatch/dispatch.h"

/* ---- the refused kernels --------------------------------------------------- */

/* "sha224 and sha256": the algorithms of a family, for messages. */
static void family_algorithms(enum fd_family family, char *out, size_t out_len)
{
    int count = 0, total = 0;

    for (int id = 0; id < FD_ALGORITHM_COUNT; id++)
        total += fd_algorithms[id].family == family;
    out[0] = '\0';
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        if (fd_algorithms[id].family != family)
            continue;
        size_t used = strlen(out);
        const char *separator = count == 0 ? "" : count == total - 1 ? " and " : ", ";
        snprintf(out + used, out_len - used, "%s%s", separator, fd_algorithms[id].name);
        count++;
    }
}

int fd_warn_refused_kernels(void)
{
    size_t count;
    const fd_kernel_failure *failures = fd_kernel_failures(&count);
    char algorithms[96];

    for (size_t i = 0; i < count; i++) {
        const fd_kernel_failure *failure = &failures[i];
        const char *family = fd_family(failure->family)->name;
        family_algorithms(failure->family, algorithms, sizeof algorithms);
        if (failure->last_resort) {
            /* Nothing is left that hashes this family right: better no
             * fastdigest than wrong digests. */
            PyErr_Format(PyExc_ImportError,
                         "fastdigest: the %s kernel '%s', the last of its family, failed its "
                         "known-answer check: %s; no kernel is left that hashes %s right, so "
                         "fastdigest does not load",
                         family, failure->kernel, failure->reason, algorithms);
            return -1;
        }
        int warned;
        if (failure->multi_buffer) {
            const char *multi = fd_active_multi_kernels[failure->family].name;
            warned = PyErr_WarnFormat(
                PyExc_RuntimeWarning, 1,
                "fastdigest: the %s multi-buffer kernel '%s' failed its known-answer check and "
                "is not used: %s; '%s' hashes batches of %s instead%s",
                family, failure->kernel, failure->reason,
                multi != NULL ? multi : fd_active_kernels[failure->family].name, algorithms,
                multi != NULL ? "" : ", one message at a time");
        }
        else {
            warned = PyErr_WarnFormat(PyExc_RuntimeWarning, 1,
                                      "fastdigest: the %s kernel '%s' failed its known-answer "
                                      "check and is not used: %s; '%s' hashes %s instead",
                                      family, failure->kernel, failure->reason,
                                      fd_active_kernels[failure->family].name, algorithms);
        }
        if (warned < 0)
            return -1;
    }
    return 0;
}
