/* digest_many(name, messages, /): many one-shot digests in one call (issue
 * 7), hashed by the batch driver (batch.c) with the multi-buffer kernels.
 *
 * All buffers are acquired first, with the GIL; then the result list is
 * made; then the whole batch is hashed in one call of the driver, straight
 * into the result objects, without the GIL once the work is worth releasing
 * it. The only allocations besides the result objects are the tuple of the
 * messages (unless they come as a tuple), the array of (pointer, length,
 * digest) triples the driver reads, and, when some items are not exactly
 * bytes, an array of their views. */
#include "binding.h"


#include "batch.h"

/* Rewrites the exception fd_get_buffer set for item `index` so that its
 * message names the item, keeping its type. Only the built-in types a
 * buffer request raises are rewritten: they take a message as their one
 * argument. Anything else an exporter raises passes through unchanged. */
static void name_bad_item(Py_ssize_t index)
{
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *exception = PyErr_GetRaisedException();
    PyObject *type = (PyObject *)Py_TYPE(exception);
    if (type == PyExc_TypeError || type == PyExc_BufferError || type == PyExc_ValueError)
        PyErr_Format(type, "digest_many() item %zd: %S", index, exception);
    else
        PyErr_SetRaisedException(Py_NewRef(exception));
    Py_DECREF(exception);
#else
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    if (type == PyExc_TypeError || type == PyExc_BufferError || type == PyExc_ValueError) {
        PyErr_Format(type, "digest_many() item %zd: %S", index, value);
        Py_DECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(traceback);
    }
    else {
        PyErr_Restore(type, value, traceback);
    }
#endif
}

/* In the first pass, the mark of a message whose item is not exactly bytes
 * and still needs a view: no buffer is that long. */
#define NEEDS_VIEW SIZE_MAX

/* Hashing costs about one block's work per message even when the messages
 * are empty (the padding block), so the work of a batch counts that too. */
static bool worth_releasing_gil(const fd_message *messages, Py_ssize_t count, size_t block_len)
{
    size_t work = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        work += messages[i].len + block_len;
        if (work >= FD_GIL_MINSIZE)
            return true;
    }
    return false;
}

PyDoc_STRVAR(digest_many_doc,
             "digest_many($module, name, messages, /)\n--\n\n"
             "Return the digests of many messages as a list of bytes, in order:\n"
             "[digest(name, m) for m in messages] in one call. name is an algorithm\n"
             "name, as new() takes it, or one of fastdigest's constructors;\n"
             "messages is any iterable of bytes-like objects. Several messages are\n"
             "hashed at once where the CPU allows (multi-buffer kernels), and the\n"
             "GIL is released while the batch is hashed.");

/* digest_many, and with multi_buffer false the same on the single-stream
 * kernel alone (for benchmarks).
 *
 * The order of work: every item's bytes are located first (an error names
 * the item), then the result objects are made and each message's digest
 * pointer aimed into its own bytes object, then the whole batch is hashed
 * in one call of the driver, without the GIL when the batch is worth it.
 * The result objects are reachable from nowhere else until the list is
 * returned, so writing them without the GIL is safe. */
static PyObject *digest_many(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                             bool multi_buffer)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "digest_many expected 2 arguments, got %zd", nargs);
        return NULL;
    }
    int id = fd_algorithm_from_object(module, args[0], "digest_many", "1");
    if (id < 0)
        return NULL;
    const fd_algorithm *algorithm = &fd_algorithms[id];
    const fd_multi_kernel *multi = &fd_active_multi_kernels[algorithm->family];
    if (!multi_buffer || multi->name == NULL)
        multi = NULL;

    /* A tuple as it is; any other iterable gathered into one. Not a list
     * used in place: an exporter's __buffer__ runs Python code, which could
     * shrink a list under the loop below, but cannot change a tuple. */
    PyObject *items = PySequence_Tuple(args[1]);
    if (items == NULL)
        return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(items);

    /* First pass: exact bytes objects are read in place (they are
     * immutable, and the tuple keeps them alive); the others are marked.
     * Second pass: the others through the buffer protocol, as hashlib reads
     * them, each holding a view until the end; the first bad one raises.
     * Bad items are never exact bytes, so it is the first bad item of the
     * batch. Two passes so that a batch of bytes, the common case, needs no
     * views and touches each object once before hashing. */
    if ((size_t)count > (size_t)PY_SSIZE_T_MAX / sizeof(fd_message)) {
        Py_DECREF(items);
        return PyErr_NoMemory();
    }
    fd_message *messages = PyMem_Malloc(count != 0 ? (size_t)count * sizeof(fd_message) : 1);
    if (messages == NULL) {
        Py_DECREF(items);
        return PyErr_NoMemory();
    }
    Py_ssize_t view_count = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyTuple_GET_ITEM(items, i);
        if (PyBytes_CheckExact(item)) {
            messages[i].data = (const uint8_t *)PyBytes_AS_STRING(item);
            messages[i].len = (size_t)PyBytes_GET_SIZE(item);
        }
        else {
            messages[i].len = NEEDS_VIEW;
            view_count++;
        }
    }

    Py_buffer *views = NULL;
    Py_ssize_t views_acquired = 0;
    PyObject *result = NULL;
    if (view_count != 0) {
        if ((size_t)view_count > (size_t)PY_SSIZE_T_MAX / sizeof(Py_buffer)) {
            PyErr_NoMemory();
            goto done;
        }
        views = PyMem_Malloc((size_t)view_count * sizeof(Py_buffer));
        if (views == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    for (Py_ssize_t i = 0; views_acquired < view_count; i++) {
        if (messages[i].len != NEEDS_VIEW)
            continue;
        Py_buffer *view = &views[views_acquired];
        if (fd_get_buffer(PyTuple_GET_ITEM(items, i), view) < 0) {
            name_bad_item(i);
            goto done;
        }
        views_acquired++;
        messages[i].data = view->buf;
        messages[i].len = (size_t)view->len;
    }

    result = PyList_New(count);
    if (result == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *digest = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)algorithm->digest_len);
        if (digest == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        messages[i].digest = (uint8_t *)PyBytes_AS_STRING(digest);
        PyList_SET_ITEM(result, i, digest);
    }

    if (worth_releasing_gil(messages, count, algorithm->block_len)) {
        Py_BEGIN_ALLOW_THREADS
        fd_hash_many_using(multi, (enum fd_algorithm_id)id, messages, (size_t)count);
        Py_END_ALLOW_THREADS
    }
    else {
        fd_hash_many_using(multi, (enum fd_algorithm_id)id, messages, (size_t)count);
    }

done:
    for (Py_ssize_t i = 0; i < views_acquired; i++)
        PyBuffer_Release(&views[i]);
    PyMem_Free(views);
    PyMem_Free(messages);
    Py_DECREF(items);
    return result;
}

static PyObject *fastdigest_digest_many(PyObject *module, PyObject *const *args,
                                        Py_ssize_t nargs)
{
    return digest_many(module, args, nargs, true);
}

PyDoc_STRVAR(digest_many_single_stream_doc,
             "_digest_many_single_stream($module, name, messages, /)\n--\n\n"
             "digest_many() without the multi-buffer kernels: every message through the\n"
             "single-stream kernel. For benchmarks (benchmarks/bench_batch.py).");

static PyObject *fastdigest_digest_many_single_stream(PyObject *module, PyObject *const *args,
                                                      Py_ssize_t nargs)
{
    return digest_many(module, args, nargs, false);
}

static PyMethodDef batch_methods[] = {
    {"digest_many", (PyCFunction)(void (*)(void))fastdigest_digest_many, METH_FASTCALL,
     digest_many_doc},
    {"_digest_many_single_stream",
     (PyCFunction)(void (*)(void))fastdigest_digest_many_single_stream, METH_FASTCALL,
     digest_many_single_stream_doc},
    {NULL, NULL, 0, NULL},
};

int fd_batch_module_exec(PyObject *module, fd_module_state *state)
{
    (void)state;

    if (PyModule_AddFunctions(module, batch_methods) < 0)
        return -1;
    /* {"md5": "avx512_x16", "sha256": "shani_x2", ...}: what each
     * algorithm's batches run on, a multi-buffer kernel or else the
     * single-stream one. */
    const char *kernel_of_family[FD_FAMILY_COUNT];
    for (int family = 0; family < FD_FAMILY_COUNT; family++) {
        const char *multi = fd_active_multi_kernels[family].name;
        kernel_of_family[family] = multi != NULL ? multi : fd_active_kernels[family].name;
    }
    PyObject *implementation = fd_kernels_by_algorithm(kernel_of_family);
    if (implementation == NULL)
        return -1;
    int added = PyModule_AddObjectRef(module, "batch_implementation", implementation);
    Py_DECREF(implementation);
    return added;
}
