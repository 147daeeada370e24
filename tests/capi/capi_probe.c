/* A C extension built against the installed fastdigest's header
 * (fastdigest.get_include()), as a user's would be, that hands every
 * function of the C API to Python so that tests/test_capi.py can compare
 * what it computes with hashlib and hmac. Every call of the API is made
 * with the GIL released; threads_digest calls it from threads the
 * interpreter never saw.
 *
 * PROBE_MODULE names the module (the tests build it again under other
 * names against a header of another version); FASTDIGEST_C_API_REQUIRED_MINOR
 * may be set on the command line like any other macro. */
#define PY_SSIZE_T_CLEAN
#include "fastdigest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <process.h>
#include <windows.h>
#else
#include <pthread.h>
#endif

#ifndef PROBE_MODULE
#define PROBE_MODULE capi_probe
#endif
#define PROBE_STRING_(name) #name
#define PROBE_STRING(name) PROBE_STRING_(name)
#define PROBE_INIT_(name) PyInit_##name
#define PROBE_INIT(name) PROBE_INIT_(name)

static const FastDigest_CAPI *api;

static const fastdigest_algorithm *algorithm_named(PyObject *name)
{
    const char *text = PyUnicode_AsUTF8(name);
    if (text == NULL)
        return NULL;
    const fastdigest_algorithm *algorithm = api->algorithm_by_name(text);
    if (algorithm == NULL)
        PyErr_Format(PyExc_ValueError, "no algorithm named %R", name);
    return algorithm;
}

static PyObject *digest_bytes(const fastdigest_algorithm *algorithm, const unsigned char *digest)
{
    return PyBytes_FromStringAndSize((const char *)digest, (Py_ssize_t)algorithm->digest_size);
}

/* The buffers of a sequence's items, and a fastdigest_message for each with
 * room for its digest (digests: count * FASTDIGEST_MAX_DIGEST_SIZE bytes). */
typedef struct buffers {
    Py_ssize_t count;
    Py_buffer *views;
    fastdigest_message *messages;
    unsigned char *digests;
} buffers;

static void release_buffers(buffers *b)
{
    for (Py_ssize_t i = 0; b->views != NULL && i < b->count; i++) {
        if (b->views[i].obj != NULL)
            PyBuffer_Release(&b->views[i]);
    }
    PyMem_Free(b->views);
    PyMem_Free(b->messages);
    PyMem_Free(b->digests);
}

static int get_buffers(PyObject *sequence, buffers *b)
{
    memset(b, 0, sizeof *b);
    PyObject *items = PySequence_Fast(sequence, "expected a sequence of buffers");
    if (items == NULL)
        return -1;
    b->count = PySequence_Fast_GET_SIZE(items);
    const size_t slots = b->count > 0 ? (size_t)b->count : 1;
    b->views = PyMem_Calloc(slots, sizeof *b->views);
    b->messages = PyMem_Calloc(slots, sizeof *b->messages);
    b->digests = PyMem_Calloc(slots, FASTDIGEST_MAX_DIGEST_SIZE);
    if (b->views == NULL || b->messages == NULL || b->digests == NULL) {
        Py_DECREF(items);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < b->count; i++) {
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(items, i), &b->views[i], PyBUF_SIMPLE) <
            0) {
            Py_DECREF(items);
            return -1;
        }
        b->messages[i].data = b->views[i].buf;
        b->messages[i].length = (size_t)b->views[i].len;
        b->messages[i].digest = b->digests + (size_t)i * FASTDIGEST_MAX_DIGEST_SIZE;
    }
    Py_DECREF(items);
    return 0;
}

static PyObject *digest_list(const fastdigest_algorithm *algorithm, const buffers *b)
{
    PyObject *list = PyList_New(b->count);
    for (Py_ssize_t i = 0; list != NULL && i < b->count; i++) {
        PyObject *digest = digest_bytes(algorithm, b->messages[i].digest);
        if (digest == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, digest);
    }
    return list;
}

/* ---- what the API says of itself ---------------------------------------- */

static PyObject *probe_info(PyObject *module, PyObject *Py_UNUSED(ignored))
{
    (void)module;
    PyObject *algorithms = PyList_New(0);
    if (algorithms == NULL)
        return NULL;
    for (size_t id = 0; id < api->algorithm_count; id++) {
        const fastdigest_algorithm *a = api->algorithm((int)id);
        const char *kernel, *batch_kernel;
        Py_BEGIN_ALLOW_THREADS
            kernel = api->kernel(a);
            batch_kernel = api->batch_kernel(a);
        Py_END_ALLOW_THREADS
        PyObject *row = Py_BuildValue(
            "{s:i,s:s,s:n,s:n,s:n,s:n,s:s,s:s}", "id", a->id, "name", a->name, "digest_size",
            (Py_ssize_t)a->digest_size, "block_size", (Py_ssize_t)a->block_size, "state_size",
            (Py_ssize_t)a->state_size, "state_align", (Py_ssize_t)a->state_align, "kernel", kernel,
            "batch_kernel", batch_kernel);
        if (row == NULL || PyList_Append(algorithms, row) < 0) {
            Py_XDECREF(row);
            Py_DECREF(algorithms);
            return NULL;
        }
        Py_DECREF(row);
    }
    PyObject *info = Py_BuildValue(
        "{s:I,s:I,s:n,s:n,s:n,s:n,s:n,s:n,s:N,s:O}", "major", api->major, "minor", api->minor,
        "size", (Py_ssize_t)api->size, "header_size", (Py_ssize_t)sizeof(FastDigest_CAPI),
        "algorithm_count", (Py_ssize_t)api->algorithm_count, "hmac_state_size",
        (Py_ssize_t)api->hmac_state_size, "hmac_state_align", (Py_ssize_t)api->hmac_state_align,
        "state_room", (Py_ssize_t)sizeof(fastdigest_state), "algorithms", algorithms,
        "out_of_range",
        api->algorithm(-1) == NULL && api->algorithm((int)api->algorithm_count) == NULL ? Py_True
                                                                                        : Py_False);
    return info;
}

/* The id of a name as algorithm_by_name finds it, or None. */
static PyObject *probe_by_name(PyObject *module, PyObject *name)
{
    (void)module;
    const char *text = PyBytes_AsString(name);
    if (text == NULL)
        return NULL;
    const fastdigest_algorithm *algorithm = api->algorithm_by_name(text);
    if (algorithm == NULL)
        Py_RETURN_NONE;
    return PyLong_FromLong(algorithm->id);
}

/* ---- streams ------------------------------------------------------------------ */

/* stream(name, parts, cuts): the digest of the parts fed one after another
 * to a state of exactly state_size bytes at an address aligned to no more
 * than state_align, and, for each cut k, the digest after the first k parts
 * from a copy of the state's state_size bytes (memcpy) into other memory
 * whose bytes past state_size are garbage, leaving the original to go on. */
static PyObject *probe_stream(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *name, *parts, *cuts;
    if (!PyArg_ParseTuple(args, "UOO", &name, &parts, &cuts))
        return NULL;
    const fastdigest_algorithm *algorithm = algorithm_named(name);
    if (algorithm == NULL)
        return NULL;
    buffers b;
    if (get_buffers(parts, &b) < 0) {
        release_buffers(&b);
        return NULL;
    }
    PyObject *cut_set = PySet_New(cuts), *copies = PyList_New(0);
    /* The state right after state_align bytes of a block, and a copy after
     * garbage. */
    unsigned char *memory = PyMem_Malloc(2 * algorithm->state_align + 2 * FASTDIGEST_STATE_SIZE);
    PyObject *result = NULL;
    if (cut_set == NULL || copies == NULL || memory == NULL)
        goto done;
    const uintptr_t misalign = (uintptr_t)memory % algorithm->state_align;
    unsigned char *state = memory + (misalign ? algorithm->state_align - misalign : 0);
    unsigned char *copy = state + FASTDIGEST_STATE_SIZE + algorithm->state_align;
    unsigned char digest[FASTDIGEST_MAX_DIGEST_SIZE];
    api->init(algorithm, state);
    for (Py_ssize_t i = 0; i <= b.count; i++) {
        PyObject *key = PyLong_FromSsize_t(i);
        int is_cut = key != NULL ? PySet_Contains(cut_set, key) : -1;
        Py_XDECREF(key);
        if (is_cut < 0)
            goto done;
        if (is_cut) {
            Py_BEGIN_ALLOW_THREADS
                memset(copy, 0xA5, FASTDIGEST_STATE_SIZE);
                memcpy(copy, state, algorithm->state_size);
                api->final(algorithm, copy, digest);
            Py_END_ALLOW_THREADS
            PyObject *d = digest_bytes(algorithm, digest);
            if (d == NULL || PyList_Append(copies, d) < 0) {
                Py_XDECREF(d);
                goto done;
            }
            Py_DECREF(d);
        }
        if (i < b.count) {
            Py_BEGIN_ALLOW_THREADS
                api->update(algorithm, state, b.messages[i].data, b.messages[i].length);
            Py_END_ALLOW_THREADS
        }
    }
    Py_BEGIN_ALLOW_THREADS
        api->final(algorithm, state, digest);
    Py_END_ALLOW_THREADS
    result = Py_BuildValue("(NO)", digest_bytes(algorithm, digest), copies);
done:
    PyMem_Free(memory);
    Py_XDECREF(cut_set);
    Py_XDECREF(copies);
    release_buffers(&b);
    return result;
}

static PyObject *probe_digest(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *name;
    Py_buffer data;
    if (!PyArg_ParseTuple(args, "Uy*", &name, &data))
        return NULL;
    const fastdigest_algorithm *algorithm = algorithm_named(name);
    unsigned char digest[FASTDIGEST_MAX_DIGEST_SIZE];
    if (algorithm != NULL) {
        Py_BEGIN_ALLOW_THREADS
            api->digest(algorithm, data.buf, (size_t)data.len, digest);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&data);
    return algorithm != NULL ? digest_bytes(algorithm, digest) : NULL;
}

static PyObject *probe_digest_many(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *name, *messages;
    if (!PyArg_ParseTuple(args, "UO", &name, &messages))
        return NULL;
    const fastdigest_algorithm *algorithm = algorithm_named(name);
    if (algorithm == NULL)
        return NULL;
    buffers b;
    PyObject *result = NULL;
    if (get_buffers(messages, &b) == 0) {
        Py_BEGIN_ALLOW_THREADS
            api->digest_many(algorithm, b.messages, (size_t)b.count);
        Py_END_ALLOW_THREADS
        result = digest_list(algorithm, &b);
    }
    release_buffers(&b);
    return result;
}

/* ---- HMAC and PBKDF2 ------------------------------------------------------------ */

static PyObject *probe_hmac(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *name;
    Py_buffer key, data;
    if (!PyArg_ParseTuple(args, "Uy*y*", &name, &key, &data))
        return NULL;
    const fastdigest_algorithm *algorithm = algorithm_named(name);
    unsigned char mac[FASTDIGEST_MAX_DIGEST_SIZE];
    if (algorithm != NULL) {
        Py_BEGIN_ALLOW_THREADS
            api->hmac(algorithm, key.buf, (size_t)key.len, data.buf, (size_t)data.len, mac);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&key);
    PyBuffer_Release(&data);
    return algorithm != NULL ? digest_bytes(algorithm, mac) : NULL;
}

/* hmac_stream(name, key, parts): the MAC after each part, from one keyed
 * state (hmac_final leaves it as it was), and the MAC of the whole from a
 * memcpy of the keyed state made before the first part. */
static PyObject *probe_hmac_stream(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *name, *parts;
    Py_buffer key;
    if (!PyArg_ParseTuple(args, "Uy*O", &name, &key, &parts))
        return NULL;
    const fastdigest_algorithm *algorithm = algorithm_named(name);
    buffers b = {0};
    PyObject *result = NULL, *macs = NULL;
    if (algorithm == NULL || get_buffers(parts, &b) < 0 || (macs = PyList_New(0)) == NULL)
        goto done;
    fastdigest_hmac_state state, copy;
    unsigned char mac[FASTDIGEST_MAX_DIGEST_SIZE];
    Py_BEGIN_ALLOW_THREADS
        api->hmac_init(algorithm, &state, key.buf, (size_t)key.len);
        memcpy(&copy, &state, api->hmac_state_size);
    Py_END_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < b.count; i++) {
        Py_BEGIN_ALLOW_THREADS
            api->hmac_update(&state, b.messages[i].data, b.messages[i].length);
            api->hmac_final(&state, mac);
        Py_END_ALLOW_THREADS
        PyObject *m = digest_bytes(algorithm, mac);
        if (m == NULL || PyList_Append(macs, m) < 0) {
            Py_XDECREF(m);
            goto wipe;
        }
        Py_DECREF(m);
    }
    Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < b.count; i++)
            api->hmac_update(&copy, b.messages[i].data, b.messages[i].length);
        api->hmac_final(&copy, mac);
    Py_END_ALLOW_THREADS
    result = Py_BuildValue("(ON)", macs, digest_bytes(algorithm, mac));
wipe:
    api->hmac_wipe(&state);
    api->hmac_wipe(&copy);
done:
    Py_XDECREF(macs);
    release_buffers(&b);
    PyBuffer_Release(&key);
    return result;
}

static PyObject *probe_hmac_many(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *name, *messages;
    Py_buffer key;
    if (!PyArg_ParseTuple(args, "Uy*O", &name, &key, &messages))
        return NULL;
    const fastdigest_algorithm *algorithm = algorithm_named(name);
    buffers b = {0};
    PyObject *result = NULL;
    if (algorithm != NULL && get_buffers(messages, &b) == 0) {
        Py_BEGIN_ALLOW_THREADS
            api->hmac_many(algorithm, key.buf, (size_t)key.len, b.messages, (size_t)b.count);
        Py_END_ALLOW_THREADS
        result = digest_list(algorithm, &b);
    }
    release_buffers(&b);
    PyBuffer_Release(&key);
    return result;
}

/* pbkdf2_hmac(name, password, salt, iterations, length): the key, or None
 * where the API refused the arguments (and left the output untouched). */
static PyObject *probe_pbkdf2_hmac(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *name;
    Py_buffer password, salt;
    unsigned long iterations;
    Py_ssize_t length;
    if (!PyArg_ParseTuple(args, "Uy*y*kn", &name, &password, &salt, &iterations, &length))
        return NULL;
    const fastdigest_algorithm *algorithm = algorithm_named(name);
    PyObject *result = NULL;
    /* Room for a short key, and a canary past it that must stay as it was. */
    unsigned char *key = algorithm != NULL ? PyMem_Malloc((size_t)length + 1) : NULL;
    if (algorithm != NULL && key == NULL)
        PyErr_NoMemory();
    if (key != NULL) {
        int status;
        memset(key, 0x5A, (size_t)length + 1);
        Py_BEGIN_ALLOW_THREADS
            status = api->pbkdf2_hmac(algorithm, password.buf, (size_t)password.len, salt.buf,
                                      (size_t)salt.len, (uint32_t)iterations, key, (size_t)length);
        Py_END_ALLOW_THREADS
        int untouched = 1;
        for (Py_ssize_t i = 0; status != 0 && i <= length; i++)
            untouched &= key[i] == 0x5A;
        if (key[length] != 0x5A || !untouched)
            PyErr_SetString(PyExc_AssertionError, "pbkdf2_hmac wrote past its key or on refusal");
        else if (status != 0)
            result = Py_NewRef(Py_None);
        else
            result = PyBytes_FromStringAndSize((const char *)key, length);
        PyMem_Free(key);
    }
    PyBuffer_Release(&password);
    PyBuffer_Release(&salt);
    return result;
}

/* pbkdf2_refuses(name): whether the API refuses a key longer than RFC 8018
 * allows, which no test could allocate (on a 64-bit size_t). */
static PyObject *probe_pbkdf2_refuses_long_key(PyObject *module, PyObject *name)
{
    (void)module;
    const fastdigest_algorithm *algorithm = algorithm_named(name);
    if (algorithm == NULL)
        return NULL;
    if (SIZE_MAX / algorithm->digest_size <= UINT32_MAX)
        Py_RETURN_NONE; /* no size_t is too long */
    unsigned char key[1] = {0x5A};
    const size_t too_long = (size_t)UINT32_MAX * algorithm->digest_size + 1;
    int status = api->pbkdf2_hmac(algorithm, "p", 1, "s", 1, 1, key, too_long);
    return PyBool_FromLong(status == -1 && key[0] == 0x5A);
}

/* ---- threads the interpreter never saw ---------------------------------------- */

#define MOST_THREADS 16

typedef struct thread_job {
    const fastdigest_algorithm *algorithm;
    const unsigned char *data;
    size_t length;
    int rounds;
    int consistent; /* every round gave the same three digests */
    unsigned char stream[FASTDIGEST_MAX_DIGEST_SIZE];
    unsigned char one_shot[FASTDIGEST_MAX_DIGEST_SIZE];
    unsigned char many[FASTDIGEST_MAX_DIGEST_SIZE];
} thread_job;

static void run_job(thread_job *job)
{
    const fastdigest_algorithm *a = job->algorithm;
    job->consistent = 1;
    for (int round = 0; round < job->rounds; round++) {
        fastdigest_state state;
        unsigned char stream[FASTDIGEST_MAX_DIGEST_SIZE], one_shot[FASTDIGEST_MAX_DIGEST_SIZE],
            many[4][FASTDIGEST_MAX_DIGEST_SIZE];
        fastdigest_message messages[4];
        api->init(a, &state);
        /* In two uneven parts, the first ending mid-block. */
        const size_t half = job->length / 2 + 1 < job->length ? job->length / 2 + 1 : job->length;
        api->update(a, &state, job->data, half);
        api->update(a, &state, job->data + half, job->length - half);
        api->final(a, &state, stream);
        api->digest(a, job->data, job->length, one_shot);
        for (int m = 0; m < 4; m++) {
            messages[m].data = job->data;
            messages[m].length = job->length;
            messages[m].digest = many[m];
        }
        api->digest_many(a, messages, 4);
        if (round == 0) {
            memcpy(job->stream, stream, a->digest_size);
            memcpy(job->one_shot, one_shot, a->digest_size);
            memcpy(job->many, many[0], a->digest_size);
        }
        for (int m = 0; m < 4; m++)
            job->consistent &= memcmp(many[m], job->many, a->digest_size) == 0;
        job->consistent &= memcmp(stream, job->stream, a->digest_size) == 0 &&
                           memcmp(one_shot, job->one_shot, a->digest_size) == 0;
    }
}

#ifdef _WIN32
static unsigned __stdcall thread_main(void *job)
{
    run_job(job);
    return 0;
}
#else
static void *thread_main(void *job)
{
    run_job(job);
    return NULL;
}
#endif

/* threads_digest(name, data, threads, rounds): on each of `threads` native
 * threads, `rounds` times, the digest of data as a stream, a one-shot and
 * four messages of digest_many; a list with each thread's three digests, or
 * AssertionError where a thread's rounds did not agree with each other. */
static PyObject *probe_threads_digest(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *name;
    Py_buffer data;
    int threads, rounds;
    if (!PyArg_ParseTuple(args, "Uy*ii", &name, &data, &threads, &rounds))
        return NULL;
    const fastdigest_algorithm *algorithm = algorithm_named(name);
    if (algorithm == NULL || threads < 1 || threads > MOST_THREADS) {
        if (algorithm != NULL)
            PyErr_SetString(PyExc_ValueError, "threads must be 1 to 16");
        PyBuffer_Release(&data);
        return NULL;
    }
    thread_job jobs[MOST_THREADS];
    int started = 0;
    Py_BEGIN_ALLOW_THREADS
#ifdef _WIN32
        HANDLE handles[MOST_THREADS];
#else
        pthread_t handles[MOST_THREADS];
#endif
        for (int t = 0; t < threads; t++) {
            jobs[t] = (thread_job){.algorithm = algorithm,
                                   .data = data.buf,
                                   .length = (size_t)data.len,
                                   .rounds = rounds};
#ifdef _WIN32
            handles[t] = (HANDLE)_beginthreadex(NULL, 0, thread_main, &jobs[t], 0, NULL);
            if (handles[t] == 0)
                break;
#else
            if (pthread_create(&handles[t], NULL, thread_main, &jobs[t]) != 0)
                break;
#endif
            started++;
        }
        for (int t = 0; t < started; t++) {
#ifdef _WIN32
            WaitForSingleObject(handles[t], INFINITE);
            CloseHandle(handles[t]);
#else
            pthread_join(handles[t], NULL);
#endif
        }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    if (started < threads)
        return PyErr_Format(PyExc_OSError, "started %d of %d threads", started, threads);
    PyObject *result = PyList_New(threads);
    for (int t = 0; result != NULL && t < threads; t++) {
        if (!jobs[t].consistent) {
            Py_DECREF(result);
            return PyErr_Format(PyExc_AssertionError, "thread %d's rounds disagree", t);
        }
        PyObject *row = Py_BuildValue("(NNN)", digest_bytes(algorithm, jobs[t].stream),
                                      digest_bytes(algorithm, jobs[t].one_shot),
                                      digest_bytes(algorithm, jobs[t].many));
        if (row == NULL)
            Py_CLEAR(result);
        else
            PyList_SET_ITEM(result, t, row);
    }
    return result;
}

static PyMethodDef probe_methods[] = {
    {"info", probe_info, METH_NOARGS, NULL},
    {"by_name", probe_by_name, METH_O, NULL},
    {"stream", probe_stream, METH_VARARGS, NULL},
    {"digest", probe_digest, METH_VARARGS, NULL},
    {"digest_many", probe_digest_many, METH_VARARGS, NULL},
    {"hmac", probe_hmac, METH_VARARGS, NULL},
    {"hmac_stream", probe_hmac_stream, METH_VARARGS, NULL},
    {"hmac_many", probe_hmac_many, METH_VARARGS, NULL},
    {"pbkdf2_hmac", probe_pbkdf2_hmac, METH_VARARGS, NULL},
    {"pbkdf2_refuses_long_key", probe_pbkdf2_refuses_long_key, METH_O, NULL},
    {"threads_digest", probe_threads_digest, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static int probe_exec(PyObject *module)
{
    (void)module;
    api = FastDigest_Import();
    return api != NULL ? 0 : -1;
}

static PyModuleDef_Slot probe_slots[] = {
    {Py_mod_exec, probe_exec},
#ifdef Py_mod_gil
    /* Nothing here needs the GIL: a free-threaded build keeps it off. */
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef probe_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = PROBE_STRING(PROBE_MODULE),
    .m_methods = probe_methods,
    .m_slots = probe_slots,
};

PyMODINIT_FUNC PROBE_INIT(PROBE_MODULE)(void)
{
    return PyModuleDef_Init(&probe_module);
}
