/* json_digest_many(name, objs, /, *, <json.dumps's options>, out=None,
 * hex=False): the digests of many documents, [json_digest(name, obj, ...)
 * for obj in objs], their texts packed side by side into chunks for the
 * multi-buffer kernels (hash/batch.h). Apart from json.c because its job
 * is the batching (chunks, a document too long for one, the results in a
 * list or out=); of a call's parts it takes json.c's (json.h), and adds
 * its function to the module itself, so that json.c needs nothing of it. */
#include "python/data_api/json.h"

#include <string.h>

/* json_digest_many's chunks: documents written one after another into a
 * buffer of this size (a longer one is streamed alone), hashed side by
 * side at most this many at a time. */
#ifndef FD_JSON_CHUNK_BYTES
#define FD_JSON_CHUNK_BYTES (64 * 1024)
#endif
#ifndef FD_JSON_CHUNK_DOCUMENTS
#define FD_JSON_CHUNK_DOCUMENTS 256
#endif

/* json_digest's keywords and out=, in the order of json.h's options. */
static const char *const json_digest_many_keywords[] = {
    "skipkeys",   "ensure_ascii", "check_circular", "allow_nan", "indent",
    "separators", "default",      "sort_keys",      "hex",       "out"};

/* A chunk's documents, written one after another into the sink's buffer:
 * those complete from doc_start back are messages for the batch driver,
 * the one being written runs from doc_start to used. One that fills the
 * whole buffer is streamed into a state of its own (as data/arrow_hash.c
 * streams a long row). */
typedef struct many_sink {
    fd_sink sink; /* first: make_room gets it */
    enum fd_algorithm_id id;
    fd_message *messages;
    size_t count;
    size_t doc_start;
    bool streaming;
    fd_hash_state state;
} many_sink;

static void many_sink_make_room(fd_sink *sink)
{
    many_sink *m = (many_sink *)sink;
    const fd_algorithm *algorithm = &fd_algorithms[m->id];
    if (m->streaming) {
        algorithm->update(&m->state, sink->buffer, sink->used);
        sink->used = 0;
        return;
    }
    if (m->doc_start > 0) {
        /* The documents before the one being written go now; it moves to
         * the start. */
        fd_hash_many(m->id, m->messages, m->count);
        m->count = 0;
        memmove(sink->buffer, sink->buffer + m->doc_start, sink->used - m->doc_start);
        sink->used -= m->doc_start;
        m->doc_start = 0;
        if (sink->used < sink->capacity)
            return;
    }
    algorithm->init(&m->state);
    algorithm->update(&m->state, sink->buffer, sink->used);
    sink->used = 0;
    m->streaming = true;
}

/* Hashes the chunk's waiting documents, without the GIL when they are
 * worth it. */
static void many_sink_hash(many_sink *m)
{
    if (m->count > 0) {
        if (m->sink.used >= fd_gil_minsize()) {
            Py_BEGIN_ALLOW_THREADS
                fd_hash_many(m->id, m->messages, m->count);
            Py_END_ALLOW_THREADS
        }
        else {
            fd_hash_many(m->id, m->messages, m->count);
        }
    }
    m->count = 0;
    m->sink.used = 0;
    m->doc_start = 0;
}

/* out=: a writable C-contiguous buffer of exactly count digests (or their
 * hexadecimal digits). 0 with the view held, or -1 with an exception. */
static int get_out(PyObject *out, Py_ssize_t count, size_t digest_size, Py_buffer *view)
{
    if (PyObject_GetBuffer(out, view, PyBUF_STRIDES | PyBUF_WRITABLE) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "json_digest_many() argument 'out' must be read-write bytes-like object, "
                     "not %.50s",
                     Py_TYPE(out)->tp_name);
        return -1;
    }
    if (!PyBuffer_IsContiguous(view, 'C')) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_TypeError,
                     "json_digest_many() argument 'out' must be contiguous buffer, not %.50s",
                     Py_TYPE(out)->tp_name);
        return -1;
    }
    if (digest_size != 0 && (size_t)count > (size_t)PY_SSIZE_T_MAX / digest_size) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError,
                        "json_digest_many() argument 'out' would be larger than a buffer can be");
        return -1;
    }
    if ((size_t)view->len != (size_t)count * digest_size) {
        PyErr_Format(PyExc_ValueError,
                     "json_digest_many() argument 'out' must be %zu bytes long (%zd digests of "
                     "%zu bytes), not %zd",
                     (size_t)count * digest_size, count, digest_size, view->len);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* Where the results of json_digest_many go, in order: a list, or out=. */
typedef struct many_results {
    PyObject *list;
    Py_buffer out;
    bool has_out;
    bool hex;
} many_results;

/* Stores document i's digest (digest_len bytes) as its result, the next
 * in the list. */
static int store_digest(many_results *results, Py_ssize_t i, const uint8_t *digest,
                        size_t digest_len)
{
    if (results->has_out) {
        uint8_t *slot = (uint8_t *)results->out.buf +
                        (size_t)i * digest_len * (results->hex ? 2 : 1);
        if (results->hex)
            fd_hex_encode(digest, digest_len, (char *)slot);
        else
            memcpy(slot, digest, digest_len);
        return 0;
    }
    PyObject *item = results->hex
                         ? fd_hex_string(digest, digest_len)
                         : PyBytes_FromStringAndSize((const char *)digest, (Py_ssize_t)digest_len);
    if (item == NULL)
        return -1;
    const int appended = PyList_Append(results->list, item);
    Py_DECREF(item);
    return appended;
}

/* A hashlib object's result for document i (digest() or hexdigest()). */
static int store_object(many_results *results, Py_ssize_t i, PyObject *result)
{
    if (!results->has_out) {
        const int appended = PyList_Append(results->list, result);
        Py_DECREF(result);
        return appended;
    }
    Py_buffer view;
    int stored = -1;
    if (PyUnicode_Check(result)) {
        Py_ssize_t len;
        const char *text = PyUnicode_AsUTF8AndSize(result, &len);
        if (text != NULL) {
            memcpy((char *)results->out.buf + i * len, text, (size_t)len);
            stored = 0;
        }
    }
    else if (PyObject_GetBuffer(result, &view, PyBUF_SIMPLE) == 0) {
        memcpy((char *)results->out.buf + i * view.len, view.buf, (size_t)view.len);
        PyBuffer_Release(&view);
        stored = 0;
    }
    Py_DECREF(result);
    return stored;
}

/* The documents of one of the eight algorithms, chunk by chunk. */
static int digest_many_batched(PyObject *module, int id, fd_json_call *call, int walk,
                               PyObject *objs, PyObject *const *bound, many_results *results)
{
    const size_t digest_len = fd_algorithms[id].digest_len;
    const Py_ssize_t count = PyTuple_GET_SIZE(objs);
    const fd_json_algorithm algorithm = {.id = id};
    many_sink m = {.sink = {.capacity = FD_JSON_CHUNK_BYTES, .make_room = many_sink_make_room},
                   .id = (enum fd_algorithm_id)id};
    m.sink.buffer = PyMem_Malloc(FD_JSON_CHUNK_BYTES);
    m.messages = PyMem_Malloc(FD_JSON_CHUNK_DOCUMENTS * sizeof *m.messages);
    uint8_t *digests = PyMem_Malloc(FD_JSON_CHUNK_DOCUMENTS * digest_len);
    int result = 0;
    if (m.sink.buffer == NULL || m.messages == NULL || digests == NULL) {
        PyErr_NoMemory();
        result = -1;
    }
    for (Py_ssize_t start = 0; start < count && result == 0; start += FD_JSON_CHUNK_DOCUMENTS) {
        const Py_ssize_t end = count - start < FD_JSON_CHUNK_DOCUMENTS
                                   ? count
                                   : start + FD_JSON_CHUNK_DOCUMENTS;
        for (Py_ssize_t i = start; i < end && result == 0; i++) {
            uint8_t *slot = digests + (size_t)(i - start) * digest_len;
            PyObject *obj = PyTuple_GET_ITEM(objs, i);
            m.doc_start = m.sink.used;
            const int written = walk == FD_JSON_WALK ? fd_json_write(&call->options, obj, &m.sink)
                                                     : FD_JSON_SURROGATE;
            if (written == 0 && m.streaming) {
                fd_algorithms[id].update(&m.state, m.sink.buffer, m.sink.used);
                fd_algorithms[id].final(&m.state, slot);
                m.streaming = false;
                m.sink.used = 0;
            }
            else if (written == 0) {
                m.messages[m.count++] = (fd_message){m.sink.buffer + m.doc_start,
                                                     m.sink.used - m.doc_start, slot};
            }
            else if (written == FD_JSON_SURROGATE) {
                /* What was written of it goes; the standard library's text
                 * (or its exception) takes its place. */
                m.sink.used = m.streaming ? 0 : m.doc_start;
                m.streaming = false;
                PyObject *bytes = fd_json_stdlib_text(module, obj, bound,
                                                      json_digest_many_keywords);
                result = bytes == NULL
                             ? -1
                             : fd_json_hash_whole(module, &algorithm, bytes, false, slot, NULL);
                Py_XDECREF(bytes);
            }
            else {
                result = -1;
            }
        }
        if (result < 0)
            break;
        many_sink_hash(&m);
        for (Py_ssize_t i = start; i < end && result == 0; i++)
            result = store_digest(results, i, digests + (size_t)(i - start) * digest_len,
                                  digest_len);
    }
    PyMem_Free(m.sink.buffer);
    PyMem_Free(m.messages);
    PyMem_Free(digests);
    return result;
}

PyDoc_STRVAR(json_digest_many_doc,
             "json_digest_many($module, name, objs, /, *, skipkeys=False,\n"
             "                 ensure_ascii=True, check_circular=True, allow_nan=True,\n"
             "                 indent=None, separators=None, default=None, sort_keys=False,\n"
             "                 hex=False, out=None)\n--\n\n"
             "Return the digests of many objects' JSON texts, in order: [json_digest(name,\n"
             "obj, ...) for obj in objs] in one call, the texts hashed side by side on the\n"
             "multi-buffer kernels. With out=, the digests (or their hexadecimal digits) are\n"
             "written one after another into that buffer, which is returned.");

static PyObject *fastdigest_json_digest_many(PyObject *module, PyObject *const *args,
                                             Py_ssize_t nargs, PyObject *kwnames)
{
    fd_module_state *state = fd_get_module_state(module);
    PyObject *bound[FD_JSON_ALL_OPTIONS];
    if (fd_json_bind_call(module, "json_digest_many", 2, json_digest_many_keywords,
                          FD_NAME_COUNT(json_digest_many_keywords), args, nargs, kwnames,
                          bound) < 0)
        return NULL;
    many_results results = {.hex = false};
    const int hex = bound[FD_JSON_HEX] == NULL ? 0 : PyObject_IsTrue(bound[FD_JSON_HEX]);
    if (hex < 0)
        return NULL;
    results.hex = hex;
    fd_json_algorithm algorithm;
    if (fd_json_resolve_algorithm(module, "json_digest_many", args[0], &algorithm) < 0)
        return NULL;
    PyObject *objs = PySequence_Tuple(args[1]);
    if (objs == NULL)
        return NULL;
    const Py_ssize_t count = PyTuple_GET_SIZE(objs);

    fd_json_call call;
    const int walk = fd_json_prepare_options(&call, bound, state);
    int failed = walk < 0;
    if (!failed && bound[FD_JSON_OUT] != NULL && bound[FD_JSON_OUT] != Py_None) {
        size_t digest_len;
        if (algorithm.id >= 0)
            digest_len = fd_algorithms[algorithm.id].digest_len;
        else {
            PyObject *hasher = fd_json_new_hashlib_object(module, &algorithm);
            PyObject *size = hasher == NULL ? NULL : PyObject_GetAttrString(hasher, "digest_size");
            Py_XDECREF(hasher);
            const Py_ssize_t value = size == NULL ? -1 : PyNumber_AsSsize_t(size, NULL);
            Py_XDECREF(size);
            failed = value < 0;
            digest_len = failed ? 0 : (size_t)value;
        }
        if (!failed) {
            failed = get_out(bound[FD_JSON_OUT], count, digest_len * (hex ? 2 : 1), &results.out) <
                     0;
            results.has_out = !failed;
        }
    }
    if (!failed && !results.has_out) {
        /* Filled by appending, so that default= never sees a list with
         * holes (gc.get_objects() finds it). */
        results.list = PyList_New(0);
        failed = results.list == NULL;
    }
    if (!failed && algorithm.id >= 0) {
        failed = fd_settle_batch_kernel(fd_algorithms[algorithm.id].family) < 0 ||
                 digest_many_batched(module, algorithm.id, &call, walk, objs, bound, &results) < 0;
    }
    else if (!failed) {
        for (Py_ssize_t i = 0; i < count && !failed; i++) {
            PyObject *result = NULL;
            failed = fd_json_digest_document(module, &algorithm, &call, walk,
                                             PyTuple_GET_ITEM(objs, i), bound,
                                             json_digest_many_keywords, hex, NULL, &result) < 0 ||
                     store_object(&results, i, result) < 0;
        }
    }
    fd_json_call_clear(&call);
    Py_DECREF(objs);
    if (results.has_out)
        PyBuffer_Release(&results.out);
    if (failed) {
        Py_XDECREF(results.list);
        return NULL;
    }
    return results.has_out ? Py_NewRef(bound[FD_JSON_OUT]) : results.list;
}

static PyMethodDef json_many_methods[] = {
    {"json_digest_many", (PyCFunction)(void (*)(void))fastdigest_json_digest_many,
     METH_FASTCALL | METH_KEYWORDS, json_digest_many_doc},
    {NULL, NULL, 0, NULL},
};

int fd_json_many_module_exec(PyObject *module, fd_module_state *state)
{
    (void)state;
    return PyModule_AddFunctions(module, json_many_methods);
}
