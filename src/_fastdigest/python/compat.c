/* The binding's one compatibility unit (see compat.h): the decisions about
 * the running CPython, made at import, the emulation of 3.12's raised
 * exception API before 3.12, and the words of an unexpected keyword
 * argument, which differ by version. No other file of python/ tests
 * PY_VERSION_HEX (tests/test_compat.py checks). */
#include "python/compat.h"

#include <stdint.h>
#include <string.h>

/* ---- the raised exception as one object -------------------------------- */

PyObject *fd_take_exception(void)
{
#if PY_VERSION_HEX >= 0x030C0000
    return PyErr_GetRaisedException();
#else
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (type == NULL)
        return NULL;
    PyErr_NormalizeException(&type, &value, &traceback);
    if (traceback != NULL)
        PyException_SetTraceback(value, traceback);
    Py_DECREF(type);
    Py_XDECREF(traceback);
    return value;
#endif
}

void fd_restore_exception(PyObject *exception)
{
    if (exception == NULL)
        return;
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(exception);
#else
    PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(exception)), exception,
                  PyException_GetTraceback(exception));
#endif
}

/* ---- the decisions ------------------------------------------------------ */

/* A version as PY_VERSION_HEX and Py_Version spell it, for comparisons
 * with the running one. */
#define VERSION(major, minor) (((unsigned long)(major) << 24) | ((unsigned long)(minor) << 16))

/* The running interpreter's version: Py_Version (3.11+), or sys.hexversion,
 * which says the same, on 3.10. Returns 0 with an exception set if sys has
 * no usable hexversion. */
static unsigned long running_version(void)
{
#if PY_VERSION_HEX >= 0x030B0000
    return (unsigned long)Py_Version;
#else
    PyObject *hexversion = PySys_GetObject("hexversion"); /* borrowed */
    if (hexversion == NULL || !PyLong_Check(hexversion)) {
        PyErr_SetString(PyExc_ImportError, "sys.hexversion is missing or not an int");
        return 0;
    }
    unsigned long version = PyLong_AsUnsignedLong(hexversion);
    return version == (unsigned long)-1 && PyErr_Occurred() ? 0 : version;
#endif
}

/* Whether the running 3.13's hashlib constructors take data=: CPython
 * backported 3.14's data= to a 3.13 patch release (gh-134696), which a
 * wheel cannot know when it is built, so one of hashlib's C constructors is
 * asked. The backport changed OpenSSL's and HACL*'s alike; HACL*'s _sha2 is
 * asked first, as importing it is cheap where importing OpenSSL's _hashlib
 * is not (fastdigest's import stays without it), and _hashlib only on a
 * CPython built without _sha2. Neither is a name the hashlib swap replaces.
 * Returns 1 or 0, or -1 with an exception set. */
static int hashlib_313_takes_data_keyword(void)
{
    PyObject *implementation = PyImport_ImportModule("_sha2");
    const char *constructor_name = "sha256";
    if (implementation == NULL && PyErr_ExceptionMatches(PyExc_ImportError)) {
        PyErr_Clear();
        implementation = PyImport_ImportModule("_hashlib");
        constructor_name = "openssl_sha256";
    }
    if (implementation == NULL)
        return -1;
    PyObject *constructor = PyObject_GetAttrString(implementation, constructor_name);
    Py_DECREF(implementation);
    if (constructor == NULL)
        return -1;
    PyObject *keyword = PyUnicode_FromString("data");
    PyObject *no_data = PyBytes_FromStringAndSize(NULL, 0);
    PyObject *kwnames = keyword == NULL || no_data == NULL ? NULL : PyTuple_Pack(1, keyword);
    PyObject *result = NULL;
    int takes_data = -1;
    if (kwnames != NULL) {
        PyObject *call_args[1] = {no_data};
        result = PyObject_Vectorcall(constructor, call_args, 0, kwnames);
        if (result != NULL)
            takes_data = 1;
        else if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            takes_data = 0;
        }
    }
    Py_XDECREF(result);
    Py_XDECREF(kwnames);
    Py_XDECREF(no_data);
    Py_XDECREF(keyword);
    Py_DECREF(constructor);
    return takes_data;
}

int fd_compat_decide(fd_compat *compat)
{
    const unsigned long version = running_version();
    if (version == 0)
        return -1;
    compat->running_version = version;

    if (version >= VERSION(3, 14))
        compat->data_keyword = true;
    else if (version >= VERSION(3, 13)) {
        int takes_data = hashlib_313_takes_data_keyword();
        if (takes_data < 0)
            return -1;
        compat->data_keyword = takes_data == 1;
    }
    else
        compat->data_keyword = false;

    compat->string_deprecation =
        version >= VERSION(3, 15)
            ? "the 'string' keyword parameter is deprecated since Python 3.15 and slated for "
              "removal in Python 3.19; use the 'data' keyword parameter or pass the data to hash "
              "as a positional argument instead"
            : NULL;
    compat->keyword_suggestions = version >= VERSION(3, 13);
    compat->unsupported_algorithm = version >= VERSION(3, 15) ? "unsupported hash algorithm "
                                                              : "unsupported hash type ";
    compat->missing_digestmod = version >= VERSION(3, 13)
                                    ? "Missing required argument 'digestmod'."
                                    : "Missing required parameter 'digestmod'.";
    compat->scrypt_in_all = version >= VERSION(3, 15);

    compat->json.c_encoder_indents = version >= VERSION(3, 13);
    compat->json.dict_in_place = version >= VERSION(3, 12);
    compat->json.float_error_names_value = version >= VERSION(3, 12);
    compat->json.notes = version >= VERSION(3, 14);
    compat->json.not_a_sequence = version >= VERSION(3, 15)
                                      ? "encoder_listencode_list needs a sequence"
                                      : "_iterencode_list needs a sequence";
    compat->json.c_recursion_offset = version >= VERSION(3, 12) ? 0 : 3;
    if (version >= VERSION(3, 13))
        compat->json.python_recursion_offset = 0;
    else if (version >= VERSION(3, 11) && version < VERSION(3, 12))
        compat->json.python_recursion_offset = 1;
    else
        compat->json.python_recursion_offset = 2;
    if (version >= VERSION(3, 12))
        compat->json.python_recursion_where = "";
    else if (version >= VERSION(3, 11))
        compat->json.python_recursion_where = " while calling a Python object";
    else
        compat->json.python_recursion_where = " in __instancecheck__";
    return 0;
}

/* Sets key in dict to value, which it steals (NULL: an error already set). */
static int set_item(PyObject *dict, const char *key, PyObject *value)
{
    if (value == NULL)
        return -1;
    int failed = PyDict_SetItemString(dict, key, value);
    Py_DECREF(value);
    return failed;
}

static PyObject *optional_string(const char *text)
{
    return text == NULL ? Py_NewRef(Py_None) : PyUnicode_FromString(text);
}

PyObject *fd_compat_mapping(const fd_compat *compat)
{
    PyObject *dict = PyDict_New();
    if (dict == NULL)
        return NULL;
    if (set_item(dict, "running_version", PyLong_FromUnsignedLong(compat->running_version)) < 0 ||
        set_item(dict, "data_keyword", PyBool_FromLong(compat->data_keyword)) < 0 ||
        set_item(dict, "string_deprecation", optional_string(compat->string_deprecation)) < 0 ||
        set_item(dict, "keyword_suggestions", PyBool_FromLong(compat->keyword_suggestions)) < 0 ||
        set_item(dict, "unsupported_algorithm",
                 PyUnicode_FromString(compat->unsupported_algorithm)) < 0 ||
        set_item(dict, "missing_digestmod", PyUnicode_FromString(compat->missing_digestmod)) < 0 ||
        set_item(dict, "scrypt_in_all", PyBool_FromLong(compat->scrypt_in_all)) < 0) {
        Py_DECREF(dict);
        return NULL;
    }
    PyObject *mapping = PyDictProxy_New(dict);
    Py_DECREF(dict);
    return mapping;
}

/* ---- an unexpected keyword argument ------------------------------------- */

/* 3.13+ ends "unexpected keyword argument" with a suggestion: the parameter
 * name nearest to the keyword by CPython's edit distance (Python/suggestions.c:
 * moving or substituting a character costs 2, changing its case 1), if it is
 * within a third of both names' characters. Parameter names are short ASCII;
 * a keyword over 40 bytes gets no suggestion, as in CPython. */
#define SUGGESTION_MOVE_COST 2
#define SUGGESTION_CASE_COST 1
#define SUGGESTION_MAX_LEN 40

static size_t substitution_cost(char a, char b)
{
    if (a == b)
        return 0;
    if ((a & 31) != (b & 31))
        return SUGGESTION_MOVE_COST;
    char lower_a = (a >= 'A' && a <= 'Z') ? (char)(a - 'A' + 'a') : a;
    char lower_b = (b >= 'A' && b <= 'Z') ? (char)(b - 'A' + 'a') : b;
    return lower_a == lower_b ? SUGGESTION_CASE_COST : SUGGESTION_MOVE_COST;
}

/* The edit distance of a and b, or more than max_cost as soon as it must be. */
static size_t edit_distance(const char *a, size_t a_len, const char *b, size_t b_len,
                            size_t max_cost)
{
    while (a_len > 0 && b_len > 0 && a[0] == b[0]) {
        a++, b++;
        a_len--, b_len--;
    }
    while (a_len > 0 && b_len > 0 && a[a_len - 1] == b[b_len - 1])
        a_len--, b_len--;
    if (a_len == 0 || b_len == 0)
        return (a_len + b_len) * SUGGESTION_MOVE_COST;
    if (a_len > SUGGESTION_MAX_LEN || b_len > SUGGESTION_MAX_LEN)
        return max_cost + 1;
    if (b_len < a_len) { /* the row runs along the shorter one */
        const char *t = a;
        a = b, b = t;
        size_t t_len = a_len;
        a_len = b_len, b_len = t_len;
    }
    if ((b_len - a_len) * SUGGESTION_MOVE_COST > max_cost)
        return max_cost + 1;
    /* row[i]: the cost of turning b's first characters so far into a[:i+1]. */
    size_t row[SUGGESTION_MAX_LEN];
    for (size_t i = 0; i < a_len; i++)
        row[i] = (i + 1) * SUGGESTION_MOVE_COST;
    size_t result = 0;
    for (size_t j = 0; j < b_len; j++) {
        size_t diagonal = j * SUGGESTION_MOVE_COST, lowest = SIZE_MAX;
        result = diagonal;
        for (size_t i = 0; i < a_len; i++) {
            size_t substitute = diagonal + substitution_cost(b[j], a[i]);
            diagonal = row[i];
            size_t insert_or_delete = (result < diagonal ? result : diagonal) +
                                      SUGGESTION_MOVE_COST;
            result = insert_or_delete < substitute ? insert_or_delete : substitute;
            row[i] = result;
            if (result < lowest)
                lowest = result;
        }
        if (lowest > max_cost)
            return max_cost + 1;
    }
    return result;
}

/* The name of names[0..count) CPython would suggest for keyword, or NULL. */
static const char *suggest_keyword(PyObject *keyword, const char *const *names, Py_ssize_t count)
{
    Py_ssize_t keyword_len;
    const char *keyword_text = PyUnicode_AsUTF8AndSize(keyword, &keyword_len);
    if (keyword_text == NULL) {
        PyErr_Clear(); /* unencodable: no suggestion, as in CPython */
        return NULL;
    }
    const char *best = NULL;
    size_t best_distance = SIZE_MAX;
    for (Py_ssize_t i = 0; i < count; i++) {
        size_t name_len = strlen(names[i]);
        if ((size_t)keyword_len == name_len && memcmp(keyword_text, names[i], name_len) == 0)
            continue;
        size_t max_distance = ((size_t)keyword_len + name_len + 3) * SUGGESTION_MOVE_COST / 6;
        if (best_distance - 1 < max_distance) /* only a closer name can win */
            max_distance = best_distance - 1;
        size_t distance = edit_distance(keyword_text, (size_t)keyword_len, names[i], name_len,
                                        max_distance);
        if (distance <= max_distance && (best == NULL || distance < best_distance)) {
            best = names[i];
            best_distance = distance;
        }
    }
    return best;
}

int fd_unexpected_keyword(const fd_compat *compat, fd_parser parser, const char *function,
                          PyObject *keyword, const char *const *names, Py_ssize_t count)
{
    if (compat->keyword_suggestions) {
        const char *suggestion = suggest_keyword(keyword, names, count);
        if (suggestion != NULL)
            PyErr_Format(PyExc_TypeError,
                         "%s() got an unexpected keyword argument '%S'. Did you mean '%s'?",
                         function, keyword, suggestion);
        else
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%S'", function,
                         keyword);
    }
    else if (parser == FD_ARGUMENT_CLINIC)
        PyErr_Format(PyExc_TypeError, "'%S' is an invalid keyword argument for %s()", keyword,
                     function);
    else
        PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%S'", function,
                     keyword);
    return -1;
}
