/* The kernels as the package sees them beyond fastdigest.implementation:
 * the warnings for the kernels the selection refused (dispatch.h's record),
 * and the private functions fastdigest.self_test() (fastdigest/
 * _self_test.py) runs every kernel of this CPU through, active or not.
 *
 * Those functions run a kernel directly (hash/algorithms.h's fd_hash_with
 * and its kin), never by installing it: the active kernels, which other
 * threads may be hashing with, stay as the selection left them, and a
 * kernel under test that is wrong gives wrong digests to the self-test
 * alone. They refuse a kernel the CPU, less FASTDIGEST_DISABLE, does not
 * run. */
#include "python/binding.h"

#include <stdio.h>
#include <string.h>

#include "hash/batch.h"
#include "hash/hmac.h"
#include "hash/known_answers.h"
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

/* A RuntimeWarning for each kernel the selection refused, of the record's
 * entries [first, end), or ImportError (binding.h's
 * fd_kernels_module_exec). 0, or -1 with an exception set (a warning
 * turned into an error included). */
static int warn_refused_kernels(size_t first, size_t end)
{
    const fd_kernel_failure *failures = fd_kernel_failures(NULL);
    char algorithms[96];

    for (size_t i = first; i < end; i++) {
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

int fd_settle_batch_kernel(enum fd_family family)
{
    if (fd_multi_kernel_settled(family))
        return 0;
    size_t first, end;
    bool selected;
    /* The lock is waited for with the GIL released, as module.c's
     * set_up_process waits for it: its holder may want this very GIL. */
    Py_BEGIN_ALLOW_THREADS
        selected = fd_settle_multi_kernel(family, &first, &end);
    Py_END_ALLOW_THREADS
    return selected ? warn_refused_kernels(first, end) : 0;
}

/* ---- finding a kernel ----------------------------------------------------- */

/* A kernel of the build, one of the two kinds. */
typedef struct kernel_ref {
    enum fd_algorithm_id id;
    enum fd_family family;
    const fd_kernel *single;      /* NULL for a multi-buffer kernel */
    const fd_multi_kernel *multi; /* NULL for a single-stream kernel */
} kernel_ref;

static bool cpu_runs(uint32_t required_features)
{
    return (required_features & ~fd_cpu_features()) == 0;
}

/* The kernel called kernel_name in the family of the algorithm called
 * algorithm_name, which the CPU runs. Returns 0, or -1 with ValueError. */
static int find_kernel(const char *kernel_name, const char *algorithm_name, kernel_ref *ref)
{
    int id = 0;
    while (id < FD_ALGORITHM_COUNT && strcmp(fd_algorithms[id].name, algorithm_name) != 0)
        id++;
    if (id == FD_ALGORITHM_COUNT) {
        PyErr_Format(PyExc_ValueError, "no algorithm '%s'", algorithm_name);
        return -1;
    }
    ref->id = (enum fd_algorithm_id)id;
    ref->family = fd_algorithms[id].family;
    ref->single = NULL;
    ref->multi = NULL;
    uint32_t required = 0;
    for (const fd_kernel *k = fd_kernel_lists[ref->family]; k->name != NULL; k++) {
        if (strcmp(k->name, kernel_name) == 0) {
            ref->single = k;
            required = k->required_features;
        }
    }
    for (const fd_multi_kernel *k = fd_multi_kernel_lists[ref->family]; k->name != NULL; k++) {
        if (strcmp(k->name, kernel_name) == 0) {
            ref->multi = k;
            required = k->required_features;
        }
    }
    if (ref->single == NULL && ref->multi == NULL) {
        PyErr_Format(PyExc_ValueError, "this build has no %s kernel '%s'",
                     fd_family(ref->family)->name, kernel_name);
        return -1;
    }
    if (!cpu_runs(required)) {
        PyErr_Format(PyExc_ValueError, "this CPU does not run the %s kernel '%s'",
                     fd_family(ref->family)->name, kernel_name);
        return -1;
    }
    return 0;
}

static int require_single(const kernel_ref *ref, const char *kernel_name)
{
    if (ref->single != NULL)
        return 0;
    PyErr_Format(PyExc_ValueError, "'%s' is a multi-buffer kernel", kernel_name);
    return -1;
}

/* ---- the functions --------------------------------------------------------- */

PyDoc_STRVAR(kernels_doc,
             "_kernels($module, /)\n--\n\n"
             "Every kernel of this build, for fastdigest.self_test(): a tuple of (family,\n"
             "kernel, lanes, runs, capabilities), lanes 1 for a single-stream kernel, runs\n"
             "whether this CPU (less FASTDIGEST_DISABLE) runs it, capabilities a tuple of\n"
             "'pbkdf2', 'pbkdf2_lanes', 'hmac_finish', 'hmac_key' (single-stream) or\n"
             "'pbkdf2' (multi-buffer: PBKDF2 blocks through its lanes).");

static PyObject *capability_names(enum fd_family family, const fd_kernel *single,
                                  const fd_multi_kernel *multi)
{
    const char *names[4];
    Py_ssize_t count = 0;

    if (single != NULL) {
        if (fd_has_pbkdf2(family, single))
            names[count++] = "pbkdf2";
        if (single->pbkdf2_lanes.lanes != 0)
            names[count++] = "pbkdf2_lanes";
        if (fd_has_hmac_finish(family, single))
            names[count++] = "hmac_finish";
        if (fd_has_hmac_key(family, single))
            names[count++] = "hmac_key";
    }
    else if (multi->pbkdf2.min_blocks != 0) {
        names[count++] = "pbkdf2";
    }
    PyObject *tuple = PyTuple_New(count);
    for (Py_ssize_t i = 0; tuple != NULL && i < count; i++) {
        PyObject *name = PyUnicode_FromString(names[i]);
        if (name == NULL)
            Py_CLEAR(tuple);
        else
            PyTuple_SET_ITEM(tuple, i, name);
    }
    return tuple;
}

static int append_kernel(PyObject *list, enum fd_family family, const char *name, unsigned lanes,
                         uint32_t required_features, const fd_kernel *single,
                         const fd_multi_kernel *multi)
{
    PyObject *capabilities = capability_names(family, single, multi);
    if (capabilities == NULL)
        return -1;
    PyObject *entry = Py_BuildValue("(ssIOO)", fd_family(family)->name, name, lanes,
                                    cpu_runs(required_features) ? Py_True : Py_False, capabilities);
    Py_DECREF(capabilities);
    if (entry == NULL)
        return -1;
    int appended = PyList_Append(list, entry);
    Py_DECREF(entry);
    return appended;
}

static PyObject *fastdigest_kernels(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(ignored))
{
    PyObject *list = PyList_New(0);
    if (list == NULL)
        return NULL;
    for (int f = 0; f < FD_FAMILY_COUNT; f++) {
        const enum fd_family family = (enum fd_family)f;
        for (const fd_kernel *k = fd_kernel_lists[f]; k->name != NULL; k++) {
            if (append_kernel(list, family, k->name, 1, k->required_features, k, NULL) < 0)
                goto error;
        }
        for (const fd_multi_kernel *k = fd_multi_kernel_lists[f]; k->name != NULL; k++) {
            if (append_kernel(list, family, k->name, k->lanes, k->required_features, NULL, k) < 0)
                goto error;
        }
    }
    PyObject *tuple = PyList_AsTuple(list);
    Py_DECREF(list);
    return tuple;
error:
    Py_DECREF(list);
    return NULL;
}

PyDoc_STRVAR(families_doc,
             "_families($module, /)\n--\n\n"
             "Each family's algorithms, for fastdigest.self_test(): a dict of each\n"
             "family's name to a tuple of its algorithms' names, in the order of the\n"
             "build's table.");

/* The names of the family's algorithms, in the table's order. */
static PyObject *family_algorithms_tuple(enum fd_family family)
{
    Py_ssize_t count = 0, i = 0;
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++)
        count += fd_algorithms[id].family == family;
    PyObject *tuple = PyTuple_New(count);
    for (int id = 0; tuple != NULL && id < FD_ALGORITHM_COUNT; id++) {
        if (fd_algorithms[id].family != family)
            continue;
        PyObject *name = PyUnicode_FromString(fd_algorithms[id].name);
        if (name == NULL)
            Py_CLEAR(tuple);
        else
            PyTuple_SET_ITEM(tuple, i++, name);
    }
    return tuple;
}

static PyObject *fastdigest_families(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(ignored))
{
    PyObject *families = PyDict_New();
    for (int f = 0; families != NULL && f < FD_FAMILY_COUNT; f++) {
        const enum fd_family family = (enum fd_family)f;
        PyObject *algorithms = family_algorithms_tuple(family);
        if (algorithms == NULL ||
            PyDict_SetItemString(families, fd_family(family)->name, algorithms) < 0)
            Py_CLEAR(families);
        Py_XDECREF(algorithms);
    }
    return families;
}

PyDoc_STRVAR(check_kernel_doc,
             "_check_kernel($module, kernel, algorithm, /)\n--\n\n"
             "Run the import's known-answer check on the kernel of that name in the\n"
             "algorithm's family (a multi-buffer kernel beside the family's active\n"
             "single-stream kernel), and the check of its PBKDF2 code, which the import\n"
             "leaves out. Returns None when both pass, else why one failed.");

static PyObject *fastdigest_check_kernel(PyObject *Py_UNUSED(module), PyObject *args)
{
    const char *kernel_name, *algorithm_name;
    kernel_ref ref;
    char reason[FD_KERNEL_FAILURE_REASON_LEN];

    if (!PyArg_ParseTuple(args, "ss:_check_kernel", &kernel_name, &algorithm_name) ||
        find_kernel(kernel_name, algorithm_name, &ref) < 0)
        return NULL;
    const fd_kernel active = fd_active_kernels[ref.family];
    const fd_kernel *single = ref.single != NULL ? ref.single : &active;
    bool passed = ref.single != NULL
                      ? fd_check_kernel(ref.family, single, false, reason, sizeof reason)
                      : fd_check_multi_kernel(ref.family, single, ref.multi, false, reason,
                                              sizeof reason);
    if (passed && fd_check_pbkdf2(ref.family, single, ref.multi, reason, sizeof reason))
        Py_RETURN_NONE;
    return PyUnicode_FromString(reason);
}

PyDoc_STRVAR(digest_with_doc, "_digest_with($module, kernel, algorithm, data, /)\n--\n\n"
                              "The digest of data with that single-stream kernel.");

static PyObject *fastdigest_digest_with(PyObject *Py_UNUSED(module), PyObject *args)
{
    const char *kernel_name, *algorithm_name;
    Py_buffer data;
    kernel_ref ref;
    uint8_t digest[FD_MAX_DIGEST_LEN];

    if (!PyArg_ParseTuple(args, "ssy*:_digest_with", &kernel_name, &algorithm_name, &data))
        return NULL;
    if (find_kernel(kernel_name, algorithm_name, &ref) < 0 ||
        require_single(&ref, kernel_name) < 0) {
        PyBuffer_Release(&data);
        return NULL;
    }
    fd_hash_with(ref.single, ref.id, data.buf, (size_t)data.len, digest);
    PyBuffer_Release(&data);
    return PyBytes_FromStringAndSize((const char *)digest,
                                     (Py_ssize_t)fd_algorithms[ref.id].digest_len);
}

PyDoc_STRVAR(hmac_with_doc, "_hmac_with($module, kernel, algorithm, key, message, /)\n--\n\n"
                            "HMAC of message under key with that single-stream kernel.");

static PyObject *fastdigest_hmac_with(PyObject *Py_UNUSED(module), PyObject *args)
{
    const char *kernel_name, *algorithm_name;
    Py_buffer key, message;
    kernel_ref ref;
    uint8_t digest[FD_MAX_DIGEST_LEN];

    if (!PyArg_ParseTuple(args, "ssy*y*:_hmac_with", &kernel_name, &algorithm_name, &key, &message))
        return NULL;
    PyObject *result = NULL;
    if (find_kernel(kernel_name, algorithm_name, &ref) == 0 &&
        require_single(&ref, kernel_name) == 0) {
        fd_hmac_with(ref.single, ref.id, key.buf, (size_t)key.len, message.buf, (size_t)message.len,
                     digest);
        result = PyBytes_FromStringAndSize((const char *)digest,
                                           (Py_ssize_t)fd_algorithms[ref.id].digest_len);
    }
    PyBuffer_Release(&key);
    PyBuffer_Release(&message);
    return result;
}

PyDoc_STRVAR(pbkdf2_hmac_with_doc,
             "_pbkdf2_hmac_with($module, kernel, algorithm, password, salt, iterations,\n"
             "                  dklen, /)\n--\n\n"
             "PBKDF2-HMAC with that kernel: a single-stream kernel with its own loops and\n"
             "no multi-buffer kernel, or a multi-buffer kernel's lanes from one block on,\n"
             "beside the family's active single-stream kernel without lanes of its own.");

static PyObject *fastdigest_pbkdf2_hmac_with(PyObject *Py_UNUSED(module), PyObject *args)
{
    const char *kernel_name, *algorithm_name;
    Py_buffer password, salt;
    unsigned long long iterations;
    Py_ssize_t dklen;
    kernel_ref ref;

    if (!PyArg_ParseTuple(args, "ssy*y*Kn:_pbkdf2_hmac_with", &kernel_name, &algorithm_name,
                          &password, &salt, &iterations, &dklen))
        return NULL;
    PyObject *result = NULL;
    if (find_kernel(kernel_name, algorithm_name, &ref) < 0)
        goto done;
    if (iterations < 1 || iterations > UINT32_MAX || dklen < 1 ||
        (size_t)dklen > 64 * fd_algorithms[ref.id].digest_len) {
        PyErr_SetString(PyExc_ValueError, "iterations or dklen out of the self-test's range");
        goto done;
    }
    if (ref.multi != NULL && ref.multi->pbkdf2.min_blocks == 0) {
        PyErr_Format(PyExc_ValueError, "'%s' runs no PBKDF2", kernel_name);
        goto done;
    }
    result = PyBytes_FromStringAndSize(NULL, dklen);
    if (result == NULL)
        goto done;
    uint8_t *out = (uint8_t *)PyBytes_AS_STRING(result);
    if (ref.single != NULL) {
        fd_pbkdf2_hmac_with(ref.single, NULL, ref.id, password.buf, (size_t)password.len, salt.buf,
                            (size_t)salt.len, (uint32_t)iterations, out, (size_t)dklen);
    }
    else {
        /* Without lanes of its own, the single-stream kernel leaves the
         * blocks to the multi-buffer kernel's lanes. */
        fd_kernel single = fd_active_kernels[ref.family];
        fd_multi_kernel multi = *ref.multi;
        single.pbkdf2_lanes.lanes = 0;
        multi.pbkdf2.min_blocks = 1;
        fd_pbkdf2_hmac_with(&single, &multi, ref.id, password.buf, (size_t)password.len, salt.buf,
                            (size_t)salt.len, (uint32_t)iterations, out, (size_t)dklen);
    }
done:
    PyBuffer_Release(&password);
    PyBuffer_Release(&salt);
    return result;
}

PyDoc_STRVAR(digest_many_with_doc,
             "_digest_many_with($module, kernel, algorithm, data, spans, /)\n--\n\n"
             "The digests of the messages data[start:start + length] for each (start,\n"
             "length) of the list spans, through that multi-buffer kernel and the\n"
             "family's active single-stream kernel, as digest_many's batches.");

/* The most messages of one call: enough for several rounds of the widest
 * kernel's lanes. */
#define MAX_MANY_MESSAGES 256

static PyObject *fastdigest_digest_many_with(PyObject *Py_UNUSED(module), PyObject *args)
{
    const char *kernel_name, *algorithm_name;
    Py_buffer data;
    PyObject *spans, *result = NULL;
    kernel_ref ref;
    fd_message messages[MAX_MANY_MESSAGES];
    uint8_t digests[MAX_MANY_MESSAGES][FD_MAX_DIGEST_LEN];

    if (!PyArg_ParseTuple(args, "ssy*O!:_digest_many_with", &kernel_name, &algorithm_name, &data,
                          &PyList_Type, &spans))
        return NULL;
    if (find_kernel(kernel_name, algorithm_name, &ref) < 0)
        goto done;
    if (ref.multi == NULL) {
        PyErr_Format(PyExc_ValueError, "'%s' is a single-stream kernel", kernel_name);
        goto done;
    }
    const Py_ssize_t count = PyList_GET_SIZE(spans);
    if (count > MAX_MANY_MESSAGES) {
        PyErr_Format(PyExc_ValueError, "at most %d messages", MAX_MANY_MESSAGES);
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_ssize_t start, length;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(spans, i), "nn:_digest_many_with", &start, &length))
            goto done;
        if (start < 0 || length < 0 || start > data.len || length > data.len - start) {
            PyErr_SetString(PyExc_ValueError, "a span outside the data");
            goto done;
        }
        messages[i] = (fd_message){
            .data = (const uint8_t *)data.buf + start, .len = (size_t)length, .digest = digests[i]};
    }
    fd_hash_many_using(ref.multi, ref.id, messages, (size_t)count);
    result = PyList_New(count);
    for (Py_ssize_t i = 0; result != NULL && i < count; i++) {
        PyObject *digest = PyBytes_FromStringAndSize((const char *)digests[i],
                                                     (Py_ssize_t)fd_algorithms[ref.id].digest_len);
        if (digest == NULL)
            Py_CLEAR(result);
        else
            PyList_SET_ITEM(result, i, digest);
    }
done:
    PyBuffer_Release(&data);
    return result;
}

static PyMethodDef kernel_functions[] = {
    {"_kernels", fastdigest_kernels, METH_NOARGS, kernels_doc},
    {"_check_kernel", fastdigest_check_kernel, METH_VARARGS, check_kernel_doc},
    {"_digest_with", fastdigest_digest_with, METH_VARARGS, digest_with_doc},
    {"_families", fastdigest_families, METH_NOARGS, families_doc},
    {"_hmac_with", fastdigest_hmac_with, METH_VARARGS, hmac_with_doc},
    {"_pbkdf2_hmac_with", fastdigest_pbkdf2_hmac_with, METH_VARARGS, pbkdf2_hmac_with_doc},
    {"_digest_many_with", fastdigest_digest_many_with, METH_VARARGS, digest_many_with_doc},
    {NULL, NULL, 0, NULL},
};

int fd_kernels_module_exec(PyObject *module, fd_module_state *Py_UNUSED(state))
{
    /* Every failure known: the single-stream kernels', and those of the
     * multi-buffer kernels settled so far, in any interpreter. */
    size_t count;
    fd_kernel_failures(&count);
    if (warn_refused_kernels(0, count) < 0)
        return -1;
    return PyModule_AddFunctions(module, kernel_functions);
}
