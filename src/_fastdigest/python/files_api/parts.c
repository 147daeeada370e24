/* _hash_parts(path, name, part_size, threshold, threads, lanes[, between]):
 * a file's parts' digests as an S3 upload cuts it (files/parts.h), for
 * fastdigest/_s3.py, which checks the part size and builds the ETag and
 * checksums from them. between, for the tests, is called with the GIL
 * between every two rounds of reads, where they change the file.
 *
 * With the GIL: the path converted as open() converts it, the file opened
 * and its size read from the open descriptor, which decides the upload's
 * shape (one PUT below the threshold, else parts) and S3's limits on it.
 * Without it: the reading and hashing, the calling thread coming back for
 * the GIL only to ask whether a signal came (Ctrl-C). */
#include "python/binding.h"

#include "files/parts.h"
#include "hash/batch.h"

/* S3's limits on an upload (Amazon S3 User Guide, "Amazon S3 multipart
 * upload limits"): at most 10,000 parts, and at most 5 GiB in one PUT. */
#define S3_MAX_PARTS 10000
#define S3_MAX_SINGLE_PUT ((uint64_t)5 << 30)

typedef struct signal_check {
    PyThreadState *saved;
    PyObject *between; /* NULL, or the tests' callable */
} signal_check;

static bool no_signal_raised(void *context)
{
    signal_check *check = context;
    PyEval_RestoreThread(check->saved);
    int raised = PyErr_CheckSignals();
    if (raised == 0 && check->between != NULL) {
        PyObject *result = PyObject_CallNoArgs(check->between);
        raised = result == NULL;
        Py_XDECREF(result);
    }
    check->saved = PyEval_SaveThread();
    return raised == 0;
}

/* The parts of an open file; the result tuple, or NULL with an exception. */
static PyObject *hash_open_file(fd_parts_file *file, PyObject *name, enum fd_algorithm_id id,
                                uint64_t part_size, uint64_t threshold, size_t threads, bool lanes,
                                PyObject *between)
{
    const uint64_t size = file->opened.size;
    if (!file->file.regular) {
        PyErr_Format(PyExc_ValueError,
                     "%R is not a regular file: an upload's parts need the file's size first",
                     name);
        return NULL;
    }
    /* One PUT below the threshold (s3transfer's rule), and for an empty
     * file, as an upload of parts needs at least one. */
    const bool multipart = size >= threshold && size != 0;
    uint64_t part_len = size != 0 ? size : 1;
    uint64_t part_count = 1;
    if (!multipart && size > S3_MAX_SINGLE_PUT) {
        PyErr_Format(PyExc_ValueError,
                     "%R has %llu bytes, more than S3's limit of 5 GiB for a single PUT: "
                     "lower the threshold",
                     name, (unsigned long long)size);
        return NULL;
    }
    if (multipart) {
        part_len = part_size;
        part_count = size / part_size + (size % part_size != 0);
        if (part_count > S3_MAX_PARTS) {
            PyErr_Format(PyExc_ValueError,
                         "%R has %llu bytes, which parts of %llu bytes cut into %llu parts, "
                         "more than S3's limit of 10,000 parts",
                         name, (unsigned long long)size, (unsigned long long)part_size,
                         (unsigned long long)part_count);
            return NULL;
        }
    }

    const size_t digest_len = fd_algorithms[id].digest_len;
    PyObject *digests = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(part_count * digest_len));
    if (digests == NULL)
        return NULL;
    signal_check check = {.between = between};
    const fd_parts_request request = {
        .file = file,
        .algorithm = id,
        .part_len = part_len,
        .part_count = (size_t)part_count,
        .multi = lanes ? fd_batch_multi_kernel(fd_algorithms[id].family) : NULL,
        .threads = threads,
        .digests = (uint8_t *)PyBytes_AS_STRING(digests),
        .keep_going = no_signal_raised,
        .keep_going_context = &check,
        .keep_going_ms = between != NULL ? 0 : FD_FILES_KEEP_GOING_MS,
    };
    unsigned long error = 0;
    check.saved = PyEval_SaveThread();
    const fd_parts_status status = fd_hash_parts(&request, &error);
    PyEval_RestoreThread(check.saved);

    switch (status) {
    case FD_PARTS_DONE:
        return Py_BuildValue("KON", (unsigned long long)size, multipart ? Py_True : Py_False,
                             digests);
    case FD_PARTS_FAILED:
        fd_raise_file_error(error, name);
        break;
    case FD_PARTS_CHANGED:
        PyErr_Format(PyExc_OSError,
                     "%R changed while it was hashed (its size, modification time or end "
                     "differ from its open): its digests would be of no file that was on disk",
                     name);
        break;
    case FD_PARTS_NO_MEMORY:
        PyErr_NoMemory();
        break;
    case FD_PARTS_STOPPED:
        /* The signal handler's (or between's) exception is set. */
        break;
    }
    Py_DECREF(digests);
    return NULL;
}

PyDoc_STRVAR(
    hash_parts_doc,
    "_hash_parts($module, path, name, part_size, threshold, threads, lanes, between=None, /)\n"
    "--\n\n"
    "(size, multipart, digests): the digests of the parts S3 cuts the file\n"
    "into, concatenated, for fastdigest._s3. Private.");

static PyObject *fastdigest_hash_parts(PyObject *module, PyObject *args)
{
    PyObject *path, *algorithm_name, *threads_argument, *between = Py_None;
    unsigned long long part_size, threshold;
    int lanes;
    if (!PyArg_ParseTuple(args, "OOKKOp|O:_hash_parts", &path, &algorithm_name, &part_size,
                          &threshold, &threads_argument, &lanes, &between))
        return NULL;
    if (part_size == 0) {
        PyErr_SetString(PyExc_ValueError, "_hash_parts: part_size must be positive");
        return NULL;
    }
    const int id = fd_algorithm_from_object(module, algorithm_name, "_hash_parts", "2");
    if (id < 0)
        return NULL;
    size_t threads;
    if (fd_parse_threads(threads_argument, "_hash_parts", &threads) < 0)
        return NULL;

    PyObject *name = PyOS_FSPath(path);
    if (name == NULL)
        return NULL;
#ifdef _WIN32
    PyObject *decoded = NULL;
    wchar_t *system_path = NULL;
    if (PyUnicode_FSDecoder(name, &decoded)) {
        system_path = PyUnicode_AsWideCharString(decoded, NULL);
        Py_DECREF(decoded);
    }
    if (system_path == NULL) {
        Py_DECREF(name);
        return NULL;
    }
#else
    PyObject *encoded = NULL;
    if (!PyUnicode_FSConverter(name, &encoded)) {
        Py_DECREF(name);
        return NULL;
    }
    const char *system_path = PyBytes_AS_STRING(encoded);
#endif

    PyObject *result = NULL;
    fd_parts_file file;
    unsigned long error = 0;
    fd_io_result opened;
    /* An open a signal interrupted (a FIFO's, waiting for its writer) is
     * tried again once the signal's handler has run and not raised. */
    do {
        Py_BEGIN_ALLOW_THREADS
            opened = fd_parts_open(system_path, &file, &error);
        Py_END_ALLOW_THREADS
    } while (opened == FD_IO_INTERRUPTED && PyErr_CheckSignals() == 0);
    if (opened == FD_IO_FAILED) {
        fd_raise_file_error(error, name);
    }
    else if (opened == FD_IO_INTERRUPTED) {
        /* The signal handler's exception is set. */
    }
    else {
        result = hash_open_file(&file, name, (enum fd_algorithm_id)id, part_size, threshold,
                                threads, lanes != 0, between != Py_None ? between : NULL);
        fd_parts_close(&file);
    }
#ifdef _WIN32
    PyMem_Free(system_path);
#else
    Py_DECREF(encoded);
#endif
    Py_DECREF(name);
    return result;
}

static PyMethodDef parts_methods[] = {
    {"_hash_parts", fastdigest_hash_parts, METH_VARARGS, hash_parts_doc},
    {NULL, NULL, 0, NULL},
};

int fd_parts_module_exec(PyObject *module, fd_module_state *state)
{
    (void)state;
    return PyModule_AddFunctions(module, parts_methods);
}
