/* What json_digest's two files share: json.c (json_digest and
 * json_digest_many: their arguments, the hashing, and the hand-off to the
 * standard library) and json_walk.c (the walk over Python objects that
 * writes json.dumps's text, in UTF-8, into a byte sink). */
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

#endif /* FD_PYTHON_JSON_H */
