/* Everything of the binding that depends on which CPython it runs on, in
 * one unit (compat.h and compat.c), so that no other file of python/ tests
 * a version. Two kinds of difference, decided in two ways:
 *
 * - The C API the extension is compiled against: a function or slot that
 *   exists from some version on. Only the build can know, so the macros
 *   below test PY_VERSION_HEX once and name the feature (FD_HAVE_PYMUTEX,
 *   ...), and the other files test the feature.
 * - What the running interpreter's hashlib and hmac do: their signatures,
 *   warnings and messages. A wheel built for one minor version runs on all
 *   of its patch releases, and CPython changed hashlib within one (3.13's
 *   data= backport), so these are decided at import, by asking the running
 *   interpreter (its version, and the standard library where a patch
 *   release changed it), into one fd_compat in the module state that every
 *   other file reads. tests/test_compat.py checks each decision against the
 *   running hashlib and hmac. */
#ifndef FD_PYTHON_COMPAT_H
#define FD_PYTHON_COMPAT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>

/* ---- the C API of the Python compiled for ------------------------------ */

#if PY_VERSION_HEX >= 0x030D0000
/* PyMutex (3.13+): the object lock of locking.h. */
#define FD_HAVE_PYMUTEX 1
/* The Py_mod_gil slot (3.13+): the module runs without the GIL on a
 * free-threaded build. */
#define FD_HAVE_MOD_GIL 1
/* Critical sections (3.13+), which lock an object on a free-threaded build
 * and cost nothing with a GIL. */
#define FD_BEGIN_CRITICAL_SECTION(object) Py_BEGIN_CRITICAL_SECTION(object)
#define FD_END_CRITICAL_SECTION() Py_END_CRITICAL_SECTION()
#else
/* Before 3.13 every build has a GIL, which already excludes the others. */
#define FD_BEGIN_CRITICAL_SECTION(object) {
#define FD_END_CRITICAL_SECTION() }
#endif

#if PY_VERSION_HEX >= 0x030D0000
/* PyUnicode_FromFormat's %T, a type's fully qualified name (3.13+), which
 * json's notes name containers with (python/data_api/json_walk.c). */
#define FD_HAVE_FORMAT_TYPE_NAME 1
#endif

#if PY_VERSION_HEX >= 0x030C0000
/* Python frames count towards the recursion limit apart from C calls
 * (3.12+), which Py_EnterRecursiveCall counts against a limit of their
 * own. */
#define FD_HAVE_PYTHON_FRAMES_COUNTED_APART 1
#endif

#if PY_VERSION_HEX >= 0x030F0000
/* frozendict (3.15+), which json writes as an object. */
#define FD_HAVE_FROZENDICT 1
#endif

#if PY_VERSION_HEX >= 0x030C0000
/* Every str is in its compact form from 3.12 (PyUnicode_READY, a no-op
 * there, is gone in 3.15); before, a str made by the old Py_UNICODE calls
 * is made so on demand. 0, or -1 with an exception set. */
#define FD_UNICODE_READY(op) 0
#else
#define FD_UNICODE_READY(op) PyUnicode_READY(op)
#endif

#if PY_VERSION_HEX >= 0x030C0000
/* PyUnstable_Long_IsCompact and PyUnstable_Long_CompactValue (3.12+): an
 * int of one machine word read inline, without a call. */
#define FD_HAVE_COMPACT_LONG 1
#endif

#if PY_VERSION_HEX >= 0x030C0000
/* The Py_mod_multiple_interpreters slot and its value
 * Py_MOD_PER_INTERPRETER_GIL_SUPPORTED (3.12+): the module loads in
 * interpreters that have a GIL of their own. */
#define FD_HAVE_PER_INTERPRETER_GIL 1
#endif

/* The exception being raised, taken out of the thread state as one object
 * (NULL when none is), and put back: PyErr_GetRaisedException and
 * PyErr_SetRaisedException on 3.12+, the same made of PyErr_Fetch and
 * PyErr_Restore before. fd_restore_exception steals the reference and does
 * nothing for NULL. */
PyObject *fd_take_exception(void);
void fd_restore_exception(PyObject *exception);

/* ---- what the running interpreter does --------------------------------- */

/* Each decision, how it is made (compat.c) and who reads it. */
typedef struct {
    /* The running interpreter's version, as PY_VERSION_HEX spells it. */
    unsigned long running_version;
    /* hashlib's constructors take data= (data=b'', *, usedforsecurity=True,
     * string=None) rather than only string= (string=b'', *,
     * usedforsecurity=True): 3.14 on, and 3.13 from the patch release that
     * took CPython's gh-134696 backport, which is asked of _sha2 (or
     * _hashlib). module.c's constructors and new(). */
    bool data_keyword;
    /* The DeprecationWarning for string= (3.15+), or NULL for none. */
    const char *string_deprecation;
    /* An unexpected keyword argument: 3.13+ words it "f() got an unexpected
     * keyword argument 'x'" for Argument Clinic's functions too (before:
     * "'x' is an invalid keyword argument for f()"), and appends ". Did you
     * mean 'y'?" for a near parameter name. fd_unexpected_keyword. */
    bool keyword_suggestions;
    /* hashlib's ValueError for a name it does not know, up to the name:
     * "unsupported hash type " (3.15: "unsupported hash algorithm ").
     * helpers.c's fd_lookup_algorithm. */
    const char *unsupported_algorithm;
    /* hmac's TypeError for a missing or false digestmod (3.13 says
     * argument where 3.12 said parameter). hmac_type.c. */
    const char *missing_digestmod;
    /* hashlib.__all__ names scrypt where hashlib has it (3.15+); before, it
     * is only an attribute. fastdigest/__init__.py. */
    bool scrypt_in_all;
    /* What json.dumps does, which json_digest writes the text of
     * (python/data_api/json_walk.c, json_walker.c and json_walk_python.c),
     * by the running version: */
    struct {
        /* json's C encoder takes indent= (3.13+); before, indent= makes
         * json.dumps use its pure-Python encoder, whose semantics differ
         * (truth and iteration of containers, messages, recursion). */
        bool c_encoder_indents;
        /* The C encoder walks an exact dict in place when it does not sort
         * the keys (3.12+), where it walked a snapshot of its items. */
        bool dict_in_place;
        /* The C encoder's ValueError for a NaN or infinity names the value
         * (3.12+: "...: nan"); the Python encoder's always does. */
        bool float_error_names_value;
        /* Errors get notes saying where they happened: "when serializing
         * list item 3" (3.14+). */
        bool notes;
        /* The TypeError of a list or tuple subclass that is no sequence,
         * whose name changed in 3.15. */
        const char *not_a_sequence;
        /* Where RecursionError says the pure-Python encoder (indent=
         * before 3.13) found the limit, after "maximum recursion depth
         * exceeded". */
        const char *python_recursion_where;
        /* How many more levels of recursion json.dumps has in use than
         * json_digest when its encoder starts: its own Python frames
         * (dumps(), encode()), where they count, and the call of the C
         * encoder; for the C encoder and the pure-Python one. */
        int c_recursion_offset;
        int python_recursion_offset;
    } json;
} fd_compat;

/* Fills compat for the running interpreter; called once by the module's
 * exec. Imports _sha2 (or, on a CPython built without it, _hashlib) on a
 * 3.13 only. Returns 0, or -1 with an exception set. */
int fd_compat_decide(fd_compat *compat);

/* A new read-only mapping of the decisions, by the names of the fields
 * above: the module's _compat, which the package and the tests read. */
PyObject *fd_compat_mapping(const fd_compat *compat);

/* Whose words a call that does not fit gets: a Python function's (the
 * interpreter's, as hashlib.new's Python layer and the stdlib's hmac give
 * them) or Argument Clinic's (hashlib's C functions). */
typedef enum { FD_PYTHON_FUNCTION, FD_ARGUMENT_CLINIC } fd_parser;

/* Raises the running CPython's TypeError for keyword, which none of
 * names[0..count) matches, in parser's words (with 3.13+'s "Did you mean"
 * among names). Returns -1. */
int fd_unexpected_keyword(const fd_compat *compat, fd_parser parser, const char *function,
                          PyObject *keyword, const char *const *names, Py_ssize_t count);

#endif /* FD_PYTHON_COMPAT_H */
