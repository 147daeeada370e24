/* What json_digest's files share. The walk over Python objects that
 * writes json.dumps's text, in UTF-8, into a byte sink (json_walk.c, with
 * json_walker.c and json_walk_python.c): its options and its start, which
 * json.c and json_many.c call. And json.c's parts of a call, which
 * json_many.c calls: the arguments, where the digest comes from, and the
 * hand-off to the standard library. */
#ifndef FD_PYTHON_JSON_H
#define FD_PYTHON_JSON_H

#include "python/binding.h"

#include "data/byte_sink.h"

/* json.dumps's options, as the walk reads them. The texts are UTF-8 views
 * of str objects that the options hold references to. */
typedef struct fd_json_options {
    bool skipkeys;
    bool ensure_ascii;
    bool check_circular;
    bool allow_nan;
    bool sort_keys;
    /* json's pure-Python encoder: indent= before 3.13. */
    bool python_encoder;
    /* With indent= on json's C encoder: a dict writes its first newline
     * with its first item, so that one whose keys were all skipped (or a
     * subclass whose items() is empty) is "{}". CPython changed this in
     * 3.14 and in a 3.13 patch release (gh-131884), so the running json is
     * asked (json.c). */
    bool dict_newline_with_first_item;
    /* default=, or NULL for json.JSONEncoder.default's TypeError. */
    PyObject *default_function;
    const char *item_separator;
    Py_ssize_t item_separator_len;
    const char *key_separator;
    Py_ssize_t key_separator_len;
    /* indent=, as a str; has_indent false for None. */
    bool has_indent;
    const char *indent;
    Py_ssize_t indent_len;
    const fd_compat *compat;
} fd_json_options;

/* fd_json_write's results beside 0 (the text written) and -1 (an
 * exception set, as json.dumps raises it). */
enum {
    /* A string's text holds a surrogate, which UTF-8 cannot encode: the
     * idiom's .encode() raises UnicodeEncodeError (unless json.dumps
     * raises first), whose exact words the caller gets from the standard
     * library. No exception is set; the sink holds part of the text. */
    FD_JSON_SURROGATE = 1,
};

/* Writes the text of json.dumps(obj, <options>) to sink, encoded in UTF-8
 * as str.encode() encodes it, walking the objects as the running Python's
 * json does (its C encoder, or the pure-Python one with indent= before
 * 3.13): the same calls of default= and of the objects' own methods, in
 * the same order, and the same exceptions, with the notes 3.14 adds. A
 * container that changes while it is written (by default=, a __len__, or
 * another thread) is read as json reads it, with a reference held to every
 * object in use, so that nothing freed is read. Returns 0, -1 or
 * FD_JSON_SURROGATE. */
int fd_json_write(const fd_json_options *options, PyObject *obj, fd_sink *sink);

/* ---- the parts of a call (json.c), for json_many.c -------------------- */

/* The keyword-only parameters, in json.dumps's order (less cls and **kw),
 * then hex= and json_digest_many's out=. */
enum {
    FD_JSON_SKIPKEYS,
    FD_JSON_ENSURE_ASCII,
    FD_JSON_CHECK_CIRCULAR,
    FD_JSON_ALLOW_NAN,
    FD_JSON_INDENT,
    FD_JSON_SEPARATORS,
    FD_JSON_DEFAULT,
    FD_JSON_SORT_KEYS,
    FD_JSON_DUMPS_OPTIONS, /* the options json.dumps takes */
    FD_JSON_HEX = FD_JSON_DUMPS_OPTIONS,
    FD_JSON_OUT,
    FD_JSON_ALL_OPTIONS,
};

/* The options as the walk reads them, and what they hold. */
typedef struct fd_json_call {
    fd_json_options options;
    PyObject *item_separator; /* the str objects the texts point into */
    PyObject *key_separator;
    PyObject *indent;
    char *spaces; /* indent=N as a text */
} fd_json_call;

/* What fd_json_prepare_options decides beside an error. */
enum { FD_JSON_WALK = 0, FD_JSON_STDLIB = 1 };

/* One of the eight algorithms (id), or a hashlib object that the standard
 * library's hashlib.new(name) makes, for any other name new() hands it. */
typedef struct fd_json_algorithm {
    int id; /* -1: a hashlib object's */
    PyObject *name;
} fd_json_algorithm;

/* Binds a call of json_digest, json_digest_many (two positional
 * arguments) or _json_text (one): the keywords into bound (NULL where
 * omitted, FD_JSON_ALL_OPTIONS slots). 0, or -1 with CPython's TypeError. */
int fd_json_bind_call(PyObject *module, const char *function, Py_ssize_t npositional,
                      const char *const *keywords, Py_ssize_t nkeywords, PyObject *const *args,
                      Py_ssize_t nargs, PyObject *kwnames, PyObject **bound);

/* Drops what the call holds; its options are read no more. */
void fd_json_call_clear(fd_json_call *call);

/* Fills call from the bound options: FD_JSON_WALK, or FD_JSON_STDLIB where
 * json.dumps must decide (a type the walk does not model, whose errors are
 * json's), or -1 with an exception set. */
int fd_json_prepare_options(fd_json_call *call, PyObject *const *bound, fd_module_state *state);

/* name as new() and digest() take it: one of the eight, a fastdigest
 * constructor, or a name for the standard library's hashlib. 0, or -1 with
 * an exception set. */
int fd_json_resolve_algorithm(PyObject *module, const char *function, PyObject *name,
                              fd_json_algorithm *algorithm);

/* A new hashlib object of the standard library's for algorithm's name,
 * or NULL with an exception set. */
PyObject *fd_json_new_hashlib_object(PyObject *module, const fd_json_algorithm *algorithm);

/* The digest of bytes given whole: the idiom's own text when the
 * standard library wrote it. Into digest (the eight), or as the hashlib
 * object's digest()/hexdigest() result in *result. */
int fd_json_hash_whole(PyObject *module, const fd_json_algorithm *algorithm, PyObject *bytes,
                       bool hex, uint8_t *digest, PyObject **result);

/* json.dumps(obj, <the options as given>).encode() by the standard
 * library: bytes, or NULL with json's (or str.encode()'s) exception. */
PyObject *fd_json_stdlib_text(PyObject *module, PyObject *obj, PyObject *const *bound,
                              const char *const *keywords);

/* The digest of one document: into digest (the eight), or as a hashlib
 * object's result in *result. walk is fd_json_prepare_options's decision.
 * 0, or -1 with an exception set. */
int fd_json_digest_document(PyObject *module, const fd_json_algorithm *algorithm,
                            fd_json_call *call, int walk, PyObject *obj, PyObject *const *bound,
                            const char *const *keywords, bool hex, uint8_t *digest,
                            PyObject **result);

#endif /* FD_PYTHON_JSON_H */
