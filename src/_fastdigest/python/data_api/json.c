/* json_digest(name, obj, /, *, <json.dumps's options>, hex=False) and
 * json_digest_many(name, objs, /, *, <the same>, out=None, hex=False): the
 * digest of json.dumps(obj, ...).encode(), with the text streamed from the
 * walk (json_walk.c) into the hash through a buffer of fixed size, so that
 * no string of the document is made; and the digests of many documents,
 * packed side by side into chunks for the multi-buffer kernels
 * (hash/batch.h).
 *
 * Where the walk does not model what json.dumps would do, the call is
 * handed to the standard library's json.dumps and str.encode() with the
 * options as given, and their bytes are hashed: options of other types
 * than json documents (a separators= of three, an indent= of 2.5: json's
 * own errors), and a text whose UTF-8 would hold a surrogate (the exact
 * UnicodeEncodeError comes from str.encode() itself). Those calls run
 * default= a second time for what it was called on before. */
#include "python/data_api/json.h"

#include <stdlib.h>
#include <string.h>

/* The buffer the text goes through into the hash state; tests build with
 * a small one to cross its seams. */
#ifndef FD_JSON_SINK_BYTES
#define FD_JSON_SINK_BYTES 8192
#endif

/* json_digest_many's chunks: documents written one after another into a
 * buffer of this size (a longer one is streamed alone), hashed side by
 * side at most this many at a time. */
#ifndef FD_JSON_CHUNK_BYTES
#define FD_JSON_CHUNK_BYTES (64 * 1024)
#endif
#ifndef FD_JSON_CHUNK_DOCUMENTS
#define FD_JSON_CHUNK_DOCUMENTS 256
#endif

/* ---- the arguments ----------------------------------------------------- */

/* The keyword-only parameters, in json.dumps's order (less cls and **kw),
 * then hex= and json_digest_many's out=. */
enum {
    SKIPKEYS,
    ENSURE_ASCII,
    CHECK_CIRCULAR,
    ALLOW_NAN,
    INDENT,
    SEPARATORS,
    DEFAULT,
    SORT_KEYS,
    DUMPS_OPTIONS, /* the options json.dumps takes */
    HEX = DUMPS_OPTIONS,
    OUT,
    ALL_OPTIONS,
};

static const char *const json_digest_keywords[] = {"skipkeys",  "ensure_ascii", "check_circular",
                                                   "allow_nan", "indent",       "separators",
                                                   "default",   "sort_keys",    "hex"};
static const char *const json_digest_many_keywords[] = {
    "skipkeys",   "ensure_ascii", "check_circular", "allow_nan", "indent",
    "separators", "default",      "sort_keys",      "hex",       "out"};

/* Binds a call of json_digest, json_digest_many (two positional
 * arguments) or _json_text (one): the keywords into bound (NULL where
 * omitted, ALL_OPTIONS slots). 0, or -1 with CPython's TypeError. */
static int bind_call(PyObject *module, const char *function, Py_ssize_t npositional,
                     const char *const *keywords, Py_ssize_t nkeywords, PyObject *const *args,
                     Py_ssize_t nargs, PyObject *kwnames, PyObject **bound)
{
    fd_module_state *state = fd_get_module_state(module);
    if (nargs != npositional) {
        PyErr_Format(PyExc_TypeError, "%s expected %zd positional argument%s, got %zd", function,
                     npositional, npositional == 1 ? "" : "s", nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < ALL_OPTIONS; i++)
        bound[i] = NULL;
    const fd_signature signature = {.function = function,
                                    .names = keywords,
                                    .nparams = nkeywords,
                                    .parser = FD_ARGUMENT_CLINIC};
    return fd_bind_arguments_into(&state->compat, &signature, args + nargs, 0, kwnames, bound,
                                  ALL_OPTIONS);
}

/* The options as the walk reads them, and what they hold. */
typedef struct json_call {
    fd_json_options options;
    PyObject *item_separator; /* the str objects the texts point into */
    PyObject *key_separator;
    PyObject *indent;
    char *spaces; /* indent=N as a text */
} json_call;

static void json_call_clear(json_call *call)
{
    Py_CLEAR(call->item_separator);
    Py_CLEAR(call->key_separator);
    Py_CLEAR(call->indent);
    PyMem_Free(call->spaces);
    call->spaces = NULL;
}

/* What prepare_options decides beside an error. */
enum { WALK = 0, STDLIB = 1 };

/* A flag's truth, where taking it runs no Python code: True, False, None
 * or an exact int. -2 for anything else, whose __bool__ json.dumps itself
 * must call. */
static int flag_value(PyObject *value, bool omitted_value)
{
    if (value == NULL)
        return omitted_value;
    if (value == Py_True)
        return 1;
    if (value == Py_False || value == Py_None)
        return 0;
    if (PyLong_CheckExact(value))
        return PyObject_IsTrue(value);
    return -2;
}

/* A str's UTF-8, held by *holder; false where it has a surrogate, which
 * str.encode() refuses in json.dumps's text. */
static bool utf8_of(PyObject *text, PyObject **holder, const char **utf8, Py_ssize_t *len)
{
    *utf8 = PyUnicode_AsUTF8AndSize(text, len);
    if (*utf8 == NULL) {
        PyErr_Clear();
        return false;
    }
    *holder = Py_NewRef(text);
    return true;
}

/* Fills call from the bound options: WALK, or STDLIB where json.dumps
 * must decide (a type the walk does not model, whose errors are json's),
 * or -1 with an exception set. */
enum { EMPTY_DICT_UNKNOWN, EMPTY_DICT_NEWLINES, EMPTY_DICT_BRACES };

/* Whether json's C encoder, with indent=, writes a dict's first newline
 * with its first item: json.dumps({(): 0}, skipkeys=True, indent=1) is
 * "{}" rather than "{\n \n}". gh-131884 changed it in 3.14 and in a patch
 * release of 3.13, so the version does not tell: the running json is asked,
 * once. 1 or 0, or -1 with an exception set. */
static int dict_newline_with_first_item(fd_module_state *state)
{
    const size_t known = fd_relaxed_load(&state->json_empty_dict_indent);
    if (known != EMPTY_DICT_UNKNOWN)
        return known == EMPTY_DICT_BRACES;
    PyObject *json = PyImport_ImportModule("json");
    PyObject *dumps = json == NULL ? NULL : PyObject_GetAttrString(json, "dumps");
    Py_XDECREF(json);
    PyObject *key = dumps == NULL ? NULL : PyTuple_New(0);
    PyObject *zero = key == NULL ? NULL : PyLong_FromLong(0);
    PyObject *dict = zero == NULL ? NULL : PyDict_New();
    PyObject *kwargs = dict == NULL || PyDict_SetItem(dict, key, zero) < 0
                           ? NULL
                           : Py_BuildValue("{s:O,s:i}", "skipkeys", Py_True, "indent", 1);
    PyObject *args = kwargs == NULL ? NULL : PyTuple_Pack(1, dict);
    PyObject *text = args == NULL ? NULL : PyObject_Call(dumps, args, kwargs);
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    Py_XDECREF(dict);
    Py_XDECREF(zero);
    Py_XDECREF(key);
    Py_XDECREF(dumps);
    if (text == NULL)
        return -1;
    const int braces = PyUnicode_Check(text) && PyUnicode_CompareWithASCIIString(text, "{}") == 0;
    Py_DECREF(text);
    fd_relaxed_store(&state->json_empty_dict_indent,
                     braces ? EMPTY_DICT_BRACES : EMPTY_DICT_NEWLINES);
    return braces;
}

static int prepare_options(json_call *call, PyObject *const *bound, fd_module_state *state)
{
    const fd_compat *compat = &state->compat;
    fd_json_options *options = &call->options;
    *call = (json_call){.options.compat = compat};

    const int skipkeys = flag_value(bound[SKIPKEYS], false);
    const int ensure_ascii = flag_value(bound[ENSURE_ASCII], true);
    const int check_circular = flag_value(bound[CHECK_CIRCULAR], true);
    const int allow_nan = flag_value(bound[ALLOW_NAN], true);
    const int sort_keys = flag_value(bound[SORT_KEYS], false);
    if (skipkeys == -1 || ensure_ascii == -1 || check_circular == -1 || allow_nan == -1 ||
        sort_keys == -1)
        return -1;
    if (skipkeys < 0 || ensure_ascii < 0 || check_circular < 0 || allow_nan < 0 || sort_keys < 0)
        return STDLIB;
    options->skipkeys = skipkeys;
    options->ensure_ascii = ensure_ascii;
    options->check_circular = check_circular;
    options->allow_nan = allow_nan;
    options->sort_keys = sort_keys;
    options->default_function = bound[DEFAULT] == Py_None ? NULL : bound[DEFAULT];

    /* indent: None, a str, or ' ' * n for an int (a bool is one). */
    PyObject *indent = bound[INDENT];
    if (indent != NULL && indent != Py_None) {
        options->has_indent = true;
        if (PyUnicode_CheckExact(indent)) {
            if (!utf8_of(indent, &call->indent, &options->indent, &options->indent_len))
                return STDLIB;
        }
        else if (PyLong_CheckExact(indent) || PyBool_Check(indent)) {
            /* A huge indent is json's to refuse or to write. */
            int overflow;
            const long long n = PyLong_AsLongLongAndOverflow(indent, &overflow);
            if (overflow > 0 || n > (1 << 20))
                return STDLIB;
            const size_t len = overflow < 0 || n < 0 ? 0 : (size_t)n;
            call->spaces = PyMem_Malloc(len + 1);
            if (call->spaces == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            memset(call->spaces, ' ', len);
            options->indent = call->spaces;
            options->indent_len = (Py_ssize_t)len;
        }
        else {
            return STDLIB;
        }
    }
    options->python_encoder = options->has_indent && !compat->json.c_encoder_indents;
    if (options->has_indent && !options->python_encoder) {
        const int braces = dict_newline_with_first_item(state);
        if (braces < 0)
            return -1;
        options->dict_newline_with_first_item = braces;
    }

    /* separators: None, or two str in a tuple or list. */
    PyObject *separators = bound[SEPARATORS];
    if (separators == NULL || separators == Py_None) {
        options->item_separator = options->has_indent ? "," : ", ";
        options->item_separator_len = options->has_indent ? 1 : 2;
        options->key_separator = ": ";
        options->key_separator_len = 2;
    }
    else {
        if (!PyTuple_CheckExact(separators) && !PyList_CheckExact(separators))
            return STDLIB;
        PyObject *items = PySequence_Tuple(separators);
        if (items == NULL)
            return -1;
        const bool usable = PyTuple_GET_SIZE(items) == 2 &&
                            PyUnicode_CheckExact(PyTuple_GET_ITEM(items, 0)) &&
                            PyUnicode_CheckExact(PyTuple_GET_ITEM(items, 1)) &&
                            utf8_of(PyTuple_GET_ITEM(items, 0), &call->item_separator,
                                    &options->item_separator, &options->item_separator_len) &&
                            utf8_of(PyTuple_GET_ITEM(items, 1), &call->key_separator,
                                    &options->key_separator, &options->key_separator_len);
        Py_DECREF(items);
        if (!usable)
            return STDLIB;
    }
    return WALK;
}

/* ---- where the digest comes from --------------------------------------- */

/* One of the eight algorithms (id), or a hashlib object that the standard
 * library's hashlib.new(name) makes, for any other name new() hands it. */
typedef struct json_algorithm {
    int id; /* -1: a hashlib object's */
    PyObject *name;
} json_algorithm;

/* name as new() and digest() take it: one of the eight, a fastdigest
 * constructor, or a name for the standard library's hashlib. 0, or -1 with
 * an exception set. */
static int resolve_algorithm(PyObject *module, const char *function, PyObject *name,
                             json_algorithm *algorithm)
{
    algorithm->name = name;
    if (!PyUnicode_Check(name)) {
        algorithm->id = fd_algorithm_from_object(module, name, function, "1");
        return algorithm->id < 0 ? -1 : 0;
    }
    algorithm->id = fd_lookup_algorithm(module, name);
    if (algorithm->id >= 0)
        return 0;
    if (!PyErr_ExceptionMatches(PyExc_ValueError))
        return -1;
    PyErr_Clear();
    /* Made once here, so that an unknown name raises hashlib's error before
     * anything is walked. */
    PyObject *probe = NULL;
    PyObject *hashlib = fd_stdlib_module(module, "hashlib");
    if (hashlib != NULL) {
        probe = PyObject_CallMethod(hashlib, "new", "O", name);
        Py_DECREF(hashlib);
    }
    Py_XDECREF(probe);
    return probe == NULL ? -1 : 0;
}

static PyObject *new_hashlib_object(PyObject *module, const json_algorithm *algorithm)
{
    PyObject *hashlib = fd_stdlib_module(module, "hashlib");
    if (hashlib == NULL)
        return NULL;
    PyObject *hasher = PyObject_CallMethod(hashlib, "new", "O", algorithm->name);
    Py_DECREF(hashlib);
    return hasher;
}

/* The sink of one document: full buffers go into the algorithm's state,
 * or into the hashlib object's update(). An update() that raises is kept
 * for after the walk, whose own errors come first, as json.dumps's come
 * before the hashing in the idiom. */
typedef struct hash_sink {
    fd_sink sink; /* first: make_room gets it */
    const fd_algorithm *algorithm;
    fd_hash_state state;
    PyObject *hasher;
    PyObject *error;
} hash_sink;

static void hash_sink_flush(hash_sink *h)
{
    if (h->algorithm != NULL)
        h->algorithm->update(&h->state, h->sink.buffer, h->sink.used);
    else if (h->error == NULL && h->sink.used > 0) {
        PyObject *bytes = PyBytes_FromStringAndSize((const char *)h->sink.buffer,
                                                    (Py_ssize_t)h->sink.used);
        PyObject *result = bytes == NULL ? NULL
                                         : PyObject_CallMethod(h->hasher, "update", "O", bytes);
        Py_XDECREF(bytes);
        if (result == NULL)
            h->error = fd_take_exception();
        Py_XDECREF(result);
    }
    h->sink.used = 0;
}

static void hash_sink_make_room(fd_sink *sink)
{
    hash_sink_flush((hash_sink *)sink);
}

/* The digest of bytes given whole: the idiom's own text when the
 * standard library wrote it. Into digest (the eight), or as the hashlib
 * object's digest()/hexdigest() result in *result. */
static int hash_whole(PyObject *module, const json_algorithm *algorithm, PyObject *bytes, bool hex,
                      uint8_t *digest, PyObject **result)
{
    if (algorithm->id >= 0) {
        const char *data = PyBytes_AS_STRING(bytes);
        const size_t len = (size_t)PyBytes_GET_SIZE(bytes);
        if (len >= fd_gil_minsize()) {
            Py_BEGIN_ALLOW_THREADS
                fd_hash((enum fd_algorithm_id)algorithm->id, (const uint8_t *)data, len, digest);
            Py_END_ALLOW_THREADS
        }
        else {
            fd_hash((enum fd_algorithm_id)algorithm->id, (const uint8_t *)data, len, digest);
        }
        return 0;
    }
    PyObject *hasher = new_hashlib_object(module, algorithm);
    if (hasher == NULL)
        return -1;
    PyObject *updated = PyObject_CallMethod(hasher, "update", "O", bytes);
    if (updated != NULL)
        *result = PyObject_CallMethod(hasher, hex ? "hexdigest" : "digest", NULL);
    Py_XDECREF(updated);
    Py_DECREF(hasher);
    return updated != NULL && *result != NULL ? 0 : -1;
}

/* json.dumps(obj, <the options as given>).encode() by the standard
 * library: bytes, or NULL with json's (or str.encode()'s) exception. */
static PyObject *stdlib_text(PyObject *module, PyObject *obj, PyObject *const *bound,
                             const char *const *keywords)
{
    PyObject *json = fd_stdlib_module(module, "json");
    if (json == NULL)
        return NULL;
    PyObject *dumps = PyObject_GetAttrString(json, "dumps");
    Py_DECREF(json);
    if (dumps == NULL)
        return NULL;
    PyObject *args[1 + DUMPS_OPTIONS] = {obj};
    Py_ssize_t given = 0;
    for (Py_ssize_t i = 0; i < DUMPS_OPTIONS; i++)
        given += bound[i] != NULL;
    PyObject *kwnames = PyTuple_New(given);
    PyObject *text = NULL;
    if (kwnames != NULL) {
        Py_ssize_t k = 0;
        for (Py_ssize_t i = 0; i < DUMPS_OPTIONS && kwnames != NULL; i++) {
            if (bound[i] == NULL)
                continue;
            PyObject *keyword = PyUnicode_InternFromString(keywords[i]);
            if (keyword == NULL)
                Py_CLEAR(kwnames);
            else {
                PyTuple_SET_ITEM(kwnames, k, keyword);
                args[1 + k++] = bound[i];
            }
        }
        if (kwnames != NULL)
            text = PyObject_Vectorcall(dumps, args, 1, given > 0 ? kwnames : NULL);
        Py_XDECREF(kwnames);
    }
    Py_DECREF(dumps);
    if (text == NULL)
        return NULL;
    PyObject *bytes = PyObject_CallMethod(text, "encode", NULL);
    Py_DECREF(text);
    if (bytes != NULL && !PyBytes_Check(bytes)) {
        PyErr_Format(PyExc_TypeError, "json.dumps(...).encode() returned %.100s, not bytes",
                     Py_TYPE(bytes)->tp_name);
        Py_CLEAR(bytes);
    }
    return bytes;
}

/* The digest of one document: into digest (the eight), or as a hashlib
 * object's result in *result. walk is prepare_options's decision. 0, or
 * -1 with an exception set. */
static int digest_document(PyObject *module, const json_algorithm *algorithm, json_call *call,
                           int walk, PyObject *obj, PyObject *const *bound,
                           const char *const *keywords, bool hex, uint8_t *digest,
                           PyObject **result)
{
    if (walk == WALK) {
        uint8_t buffer[FD_JSON_SINK_BYTES];
        hash_sink h = {.sink = {.buffer = buffer,
                                .capacity = sizeof buffer,
                                .make_room = hash_sink_make_room}};
        if (algorithm->id >= 0) {
            h.algorithm = &fd_algorithms[algorithm->id];
            h.algorithm->init(&h.state);
        }
        else {
            h.hasher = new_hashlib_object(module, algorithm);
            if (h.hasher == NULL)
                return -1;
        }
        const int written = fd_json_write(&call->options, obj, &h.sink);
        if (written == 0) {
            hash_sink_flush(&h);
            if (h.error != NULL) {
                fd_restore_exception(h.error);
                h.error = NULL;
            }
            else if (h.algorithm != NULL)
                h.algorithm->final(&h.state, digest);
            else
                *result = PyObject_CallMethod(h.hasher, hex ? "hexdigest" : "digest", NULL);
        }
        Py_XDECREF(h.error);
        Py_XDECREF(h.hasher);
        if (written != FD_JSON_SURROGATE)
            return written == 0 && (h.algorithm != NULL || *result != NULL) ? 0 : -1;
    }
    PyObject *bytes = stdlib_text(module, obj, bound, keywords);
    if (bytes == NULL)
        return -1;
    const int hashed = hash_whole(module, algorithm, bytes, hex, digest, result);
    Py_DECREF(bytes);
    return hashed;
}

/* ---- json_digest ---------------------------------------------------------- */

PyDoc_STRVAR(json_digest_doc,
             "json_digest($module, name, obj, /, *, skipkeys=False, ensure_ascii=True,\n"
             "            check_circular=True, allow_nan=True, indent=None, separators=None,\n"
             "            default=None, sort_keys=False, hex=False)\n--\n\n"
             "Return the digest of json.dumps(obj, ...).encode() under the named algorithm,\n"
             "with json.dumps's options, as bytes (a hexadecimal str with hex=True), without\n"
             "making the JSON text: it is hashed as it is written. The same digest and the\n"
             "same exceptions as the running Python's json.dumps and hashlib.");

static PyObject *fastdigest_json_digest(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                        PyObject *kwnames)
{
    fd_module_state *state = fd_get_module_state(module);
    PyObject *bound[ALL_OPTIONS];
    if (bind_call(module, "json_digest", 2, json_digest_keywords,
                  FD_NAME_COUNT(json_digest_keywords), args, nargs, kwnames, bound) < 0)
        return NULL;
    const int hex = bound[HEX] == NULL ? 0 : PyObject_IsTrue(bound[HEX]);
    if (hex < 0)
        return NULL;
    json_algorithm algorithm;
    if (resolve_algorithm(module, "json_digest", args[0], &algorithm) < 0)
        return NULL;
    json_call call;
    const int walk = prepare_options(&call, bound, state);
    PyObject *result = NULL;
    uint8_t digest[FD_MAX_DIGEST_LEN];
    if (walk >= 0 &&
        digest_document(module, &algorithm, &call, walk, args[1], bound, json_digest_keywords, hex,
                        digest, &result) == 0 &&
        algorithm.id >= 0) {
        const size_t digest_len = fd_algorithms[algorithm.id].digest_len;
        result = hex ? fd_hex_string(digest, digest_len)
                     : PyBytes_FromStringAndSize((const char *)digest, (Py_ssize_t)digest_len);
    }
    json_call_clear(&call);
    return result;
}

/* ---- json_digest_many ----------------------------------------------------- */

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
static int digest_many_batched(PyObject *module, int id, json_call *call, int walk, PyObject *objs,
                               PyObject *const *bound, many_results *results)
{
    const size_t digest_len = fd_algorithms[id].digest_len;
    const Py_ssize_t count = PyTuple_GET_SIZE(objs);
    const json_algorithm algorithm = {.id = id};
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
            const int written = walk == WALK ? fd_json_write(&call->options, obj, &m.sink)
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
                PyObject *bytes = stdlib_text(module, obj, bound, json_digest_many_keywords);
                result = bytes == NULL ? -1
                                       : hash_whole(module, &algorithm, bytes, false, slot, NULL);
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
    PyObject *bound[ALL_OPTIONS];
    if (bind_call(module, "json_digest_many", 2, json_digest_many_keywords,
                  FD_NAME_COUNT(json_digest_many_keywords), args, nargs, kwnames, bound) < 0)
        return NULL;
    many_results results = {.hex = false};
    const int hex = bound[HEX] == NULL ? 0 : PyObject_IsTrue(bound[HEX]);
    if (hex < 0)
        return NULL;
    results.hex = hex;
    json_algorithm algorithm;
    if (resolve_algorithm(module, "json_digest_many", args[0], &algorithm) < 0)
        return NULL;
    PyObject *objs = PySequence_Tuple(args[1]);
    if (objs == NULL)
        return NULL;
    const Py_ssize_t count = PyTuple_GET_SIZE(objs);

    json_call call;
    const int walk = prepare_options(&call, bound, state);
    int failed = walk < 0;
    if (!failed && bound[OUT] != NULL && bound[OUT] != Py_None) {
        size_t digest_len;
        if (algorithm.id >= 0)
            digest_len = fd_algorithms[algorithm.id].digest_len;
        else {
            PyObject *hasher = new_hashlib_object(module, &algorithm);
            PyObject *size = hasher == NULL ? NULL : PyObject_GetAttrString(hasher, "digest_size");
            Py_XDECREF(hasher);
            const Py_ssize_t value = size == NULL ? -1 : PyNumber_AsSsize_t(size, NULL);
            Py_XDECREF(size);
            failed = value < 0;
            digest_len = failed ? 0 : (size_t)value;
        }
        if (!failed) {
            failed = get_out(bound[OUT], count, digest_len * (hex ? 2 : 1), &results.out) < 0;
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
            failed = digest_document(module, &algorithm, &call, walk, PyTuple_GET_ITEM(objs, i),
                                     bound, json_digest_many_keywords, hex, NULL, &result) < 0 ||
                     store_object(&results, i, result) < 0;
        }
    }
    json_call_clear(&call);
    Py_DECREF(objs);
    if (results.has_out)
        PyBuffer_Release(&results.out);
    if (failed) {
        Py_XDECREF(results.list);
        return NULL;
    }
    return results.has_out ? Py_NewRef(bound[OUT]) : results.list;
}

/* ---- the text itself, for the tests --------------------------------------- */

/* A sink that keeps everything, growing its buffer: _json_text's, which
 * the tests compare with json.dumps's text byte by byte. */
typedef struct growing_sink {
    fd_sink sink;
    bool failed;
} growing_sink;

static void growing_sink_make_room(fd_sink *sink)
{
    growing_sink *g = (growing_sink *)sink;
    const size_t capacity = sink->capacity * 2;
    uint8_t *buffer = g->failed ? NULL : PyMem_Realloc(sink->buffer, capacity);
    if (buffer == NULL) {
        /* Keeps writing over the last bytes; the call fails at its end. */
        g->failed = true;
        sink->used = 0;
        return;
    }
    sink->buffer = buffer;
    sink->capacity = capacity;
}

PyDoc_STRVAR(json_text_doc,
             "_json_text($module, obj, /, *, skipkeys=False, ensure_ascii=True,\n"
             "           check_circular=True, allow_nan=True, indent=None, separators=None,\n"
             "           default=None, sort_keys=False)\n--\n\n"
             "The bytes json_digest hashes for obj, for the tests: None where json_digest\n"
             "hands the call to the standard library's json.dumps.");

static PyObject *fastdigest_json_text(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                      PyObject *kwnames)
{
    fd_module_state *state = fd_get_module_state(module);
    PyObject *bound[ALL_OPTIONS];
    if (bind_call(module, "_json_text", 1, json_digest_keywords, DUMPS_OPTIONS, args, nargs,
                  kwnames, bound) < 0)
        return NULL;
    json_call call;
    const int walk = prepare_options(&call, bound, state);
    PyObject *result = NULL;
    if (walk == STDLIB)
        result = Py_NewRef(Py_None);
    else if (walk == WALK) {
        growing_sink g = {.sink = {.capacity = 64, .make_room = growing_sink_make_room}};
        g.sink.buffer = PyMem_Malloc(g.sink.capacity);
        if (g.sink.buffer == NULL)
            PyErr_NoMemory();
        else {
            const int written = fd_json_write(&call.options, args[0], &g.sink);
            if (written == FD_JSON_SURROGATE)
                result = Py_NewRef(Py_None);
            else if (written == 0 && g.failed)
                PyErr_NoMemory();
            else if (written == 0)
                result = PyBytes_FromStringAndSize((const char *)g.sink.buffer,
                                                   (Py_ssize_t)g.sink.used);
            PyMem_Free(g.sink.buffer);
        }
    }
    json_call_clear(&call);
    return result;
}

/* ---- the module's part ---------------------------------------------------- */

static PyMethodDef json_methods[] = {
    {"json_digest", (PyCFunction)(void (*)(void))fastdigest_json_digest,
     METH_FASTCALL | METH_KEYWORDS, json_digest_doc},
    {"json_digest_many", (PyCFunction)(void (*)(void))fastdigest_json_digest_many,
     METH_FASTCALL | METH_KEYWORDS, json_digest_many_doc},
    {"_json_text", (PyCFunction)(void (*)(void))fastdigest_json_text, METH_FASTCALL | METH_KEYWORDS,
     json_text_doc},
    {NULL, NULL, 0, NULL},
};

int fd_json_module_exec(PyObject *module, fd_module_state *state)
{
    (void)state;
    return PyModule_AddFunctions(module, json_methods);
}
