/* json_digest(name, obj, /, *, <json.dumps's options>, hex=False): the
 * digest of json.dumps(obj, ...).encode(), with the text streamed from the
 * walk (json_walk.c) into the hash through a buffer of fixed size, so that
 * no string of the document is made; and the parts of a call that
 * json_digest_many (json_many.c) shares, declared in json.h.
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

/* ---- the arguments ----------------------------------------------------- */

static const char *const json_digest_keywords[] = {"skipkeys",  "ensure_ascii", "check_circular",
                                                   "allow_nan", "indent",       "separators",
                                                   "default",   "sort_keys",    "hex"};

int fd_json_bind_call(PyObject *module, const char *function, Py_ssize_t npositional,
                      const char *const *keywords, Py_ssize_t nkeywords, PyObject *const *args,
                      Py_ssize_t nargs, PyObject *kwnames, PyObject **bound)
{
    fd_module_state *state = fd_get_module_state(module);
    if (nargs != npositional) {
        PyErr_Format(PyExc_TypeError, "%s expected %zd positional argument%s, got %zd", function,
                     npositional, npositional == 1 ? "" : "s", nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < FD_JSON_ALL_OPTIONS; i++)
        bound[i] = NULL;
    const fd_signature signature = {.function = function,
                                    .names = keywords,
                                    .nparams = nkeywords,
                                    .parser = FD_ARGUMENT_CLINIC};
    return fd_bind_arguments_into(&state->compat, &signature, args + nargs, 0, kwnames, bound,
                                  FD_JSON_ALL_OPTIONS);
}

void fd_json_call_clear(fd_json_call *call)
{
    Py_CLEAR(call->item_separator);
    Py_CLEAR(call->key_separator);
    Py_CLEAR(call->indent);
    PyMem_Free(call->spaces);
    call->spaces = NULL;
}

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

int fd_json_prepare_options(fd_json_call *call, PyObject *const *bound, fd_module_state *state)
{
    const fd_compat *compat = &state->compat;
    fd_json_options *options = &call->options;
    *call = (fd_json_call){.options.compat = compat};

    const int skipkeys = flag_value(bound[FD_JSON_SKIPKEYS], false);
    const int ensure_ascii = flag_value(bound[FD_JSON_ENSURE_ASCII], true);
    const int check_circular = flag_value(bound[FD_JSON_CHECK_CIRCULAR], true);
    const int allow_nan = flag_value(bound[FD_JSON_ALLOW_NAN], true);
    const int sort_keys = flag_value(bound[FD_JSON_SORT_KEYS], false);
    if (skipkeys == -1 || ensure_ascii == -1 || check_circular == -1 || allow_nan == -1 ||
        sort_keys == -1)
        return -1;
    if (skipkeys < 0 || ensure_ascii < 0 || check_circular < 0 || allow_nan < 0 || sort_keys < 0)
        return FD_JSON_STDLIB;
    options->skipkeys = skipkeys;
    options->ensure_ascii = ensure_ascii;
    options->check_circular = check_circular;
    options->allow_nan = allow_nan;
    options->sort_keys = sort_keys;
    options->default_function = bound[FD_JSON_DEFAULT] == Py_None ? NULL : bound[FD_JSON_DEFAULT];

    /* indent: None, a str, or ' ' * n for an int (a bool is one). */
    PyObject *indent = bound[FD_JSON_INDENT];
    if (indent != NULL && indent != Py_None) {
        options->has_indent = true;
        if (PyUnicode_CheckExact(indent)) {
            if (!utf8_of(indent, &call->indent, &options->indent, &options->indent_len))
                return FD_JSON_STDLIB;
        }
        else if (PyLong_CheckExact(indent) || PyBool_Check(indent)) {
            /* A huge indent is json's to refuse or to write. */
            int overflow;
            const long long n = PyLong_AsLongLongAndOverflow(indent, &overflow);
            if (overflow > 0 || n > (1 << 20))
                return FD_JSON_STDLIB;
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
            return FD_JSON_STDLIB;
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
    PyObject *separators = bound[FD_JSON_SEPARATORS];
    if (separators == NULL || separators == Py_None) {
        options->item_separator = options->has_indent ? "," : ", ";
        options->item_separator_len = options->has_indent ? 1 : 2;
        options->key_separator = ": ";
        options->key_separator_len = 2;
    }
    else {
        if (!PyTuple_CheckExact(separators) && !PyList_CheckExact(separators))
            return FD_JSON_STDLIB;
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
            return FD_JSON_STDLIB;
    }
    return FD_JSON_WALK;
}

/* ---- where the digest comes from --------------------------------------- */

int fd_json_resolve_algorithm(PyObject *module, const char *function, PyObject *name,
                              fd_json_algorithm *algorithm)
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

PyObject *fd_json_new_hashlib_object(PyObject *module, const fd_json_algorithm *algorithm)
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

int fd_json_hash_whole(PyObject *module, const fd_json_algorithm *algorithm, PyObject *bytes,
                       bool hex, uint8_t *digest, PyObject **result)
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
    PyObject *hasher = fd_json_new_hashlib_object(module, algorithm);
    if (hasher == NULL)
        return -1;
    PyObject *updated = PyObject_CallMethod(hasher, "update", "O", bytes);
    if (updated != NULL)
        *result = PyObject_CallMethod(hasher, hex ? "hexdigest" : "digest", NULL);
    Py_XDECREF(updated);
    Py_DECREF(hasher);
    return updated != NULL && *result != NULL ? 0 : -1;
}

PyObject *fd_json_stdlib_text(PyObject *module, PyObject *obj, PyObject *const *bound,
                              const char *const *keywords)
{
    PyObject *json = fd_stdlib_module(module, "json");
    if (json == NULL)
        return NULL;
    PyObject *dumps = PyObject_GetAttrString(json, "dumps");
    Py_DECREF(json);
    if (dumps == NULL)
        return NULL;
    PyObject *args[1 + FD_JSON_DUMPS_OPTIONS] = {obj};
    Py_ssize_t given = 0;
    for (Py_ssize_t i = 0; i < FD_JSON_DUMPS_OPTIONS; i++)
        given += bound[i] != NULL;
    PyObject *kwnames = PyTuple_New(given);
    PyObject *text = NULL;
    if (kwnames != NULL) {
        Py_ssize_t k = 0;
        for (Py_ssize_t i = 0; i < FD_JSON_DUMPS_OPTIONS && kwnames != NULL; i++) {
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

int fd_json_digest_document(PyObject *module, const fd_json_algorithm *algorithm,
                            fd_json_call *call, int walk, PyObject *obj, PyObject *const *bound,
                            const char *const *keywords, bool hex, uint8_t *digest,
                            PyObject **result)
{
    if (walk == FD_JSON_WALK) {
        uint8_t buffer[FD_JSON_SINK_BYTES];
        hash_sink h = {.sink = {.buffer = buffer,
                                .capacity = sizeof buffer,
                                .make_room = hash_sink_make_room}};
        if (algorithm->id >= 0) {
            h.algorithm = &fd_algorithms[algorithm->id];
            h.algorithm->init(&h.state);
        }
        else {
            h.hasher = fd_json_new_hashlib_object(module, algorithm);
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
    PyObject *bytes = fd_json_stdlib_text(module, obj, bound, keywords);
    if (bytes == NULL)
        return -1;
    const int hashed = fd_json_hash_whole(module, algorithm, bytes, hex, digest, result);
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
    PyObject *bound[FD_JSON_ALL_OPTIONS];
    if (fd_json_bind_call(module, "json_digest", 2, json_digest_keywords,
                          FD_NAME_COUNT(json_digest_keywords), args, nargs, kwnames, bound) < 0)
        return NULL;
    const int hex = bound[FD_JSON_HEX] == NULL ? 0 : PyObject_IsTrue(bound[FD_JSON_HEX]);
    if (hex < 0)
        return NULL;
    fd_json_algorithm algorithm;
    if (fd_json_resolve_algorithm(module, "json_digest", args[0], &algorithm) < 0)
        return NULL;
    fd_json_call call;
    const int walk = fd_json_prepare_options(&call, bound, state);
    PyObject *result = NULL;
    uint8_t digest[FD_MAX_DIGEST_LEN];
    if (walk >= 0 &&
        fd_json_digest_document(module, &algorithm, &call, walk, args[1], bound,
                                json_digest_keywords, hex, digest, &result) == 0 &&
        algorithm.id >= 0) {
        const size_t digest_len = fd_algorithms[algorithm.id].digest_len;
        result = hex ? fd_hex_string(digest, digest_len)
                     : PyBytes_FromStringAndSize((const char *)digest, (Py_ssize_t)digest_len);
    }
    fd_json_call_clear(&call);
    return result;
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
    PyObject *bound[FD_JSON_ALL_OPTIONS];
    if (fd_json_bind_call(module, "_json_text", 1, json_digest_keywords, FD_JSON_DUMPS_OPTIONS,
                          args, nargs, kwnames, bound) < 0)
        return NULL;
    fd_json_call call;
    const int walk = fd_json_prepare_options(&call, bound, state);
    PyObject *result = NULL;
    if (walk == FD_JSON_STDLIB)
        result = Py_NewRef(Py_None);
    else if (walk == FD_JSON_WALK) {
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
    fd_json_call_clear(&call);
    return result;
}

/* ---- the module's part ---------------------------------------------------- */

static PyMethodDef json_methods[] = {
    {"json_digest", (PyCFunction)(void (*)(void))fastdigest_json_digest,
     METH_FASTCALL | METH_KEYWORDS, json_digest_doc},
    {"_json_text", (PyCFunction)(void (*)(void))fastdigest_json_text, METH_FASTCALL | METH_KEYWORDS,
     json_text_doc},
    {NULL, NULL, 0, NULL},
};

int fd_json_module_exec(PyObject *module, fd_module_state *state)
{
    (void)state;
    return PyModule_AddFunctions(module, json_methods);
}
