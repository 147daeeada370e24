/* digest_files(name, paths, /, *, threads=None): the digests of many files,
 * read and hashed by the file reader (files/files.h) on threads, without the
 * GIL.
 *
 * With the GIL: the algorithms are looked up, every path is turned into
 * what the system's open takes (os.fspath, then the file system's bytes on
 * POSIX, UTF-16 on Windows), exactly as open() turns it, and the buffers
 * are allocated. Without it: the whole reading and hashing, with the
 * calling thread coming back for the GIL only to ask whether a signal came
 * (Ctrl-C). With it again: the first file in order that could not be read
 * raises open()'s OSError for it, or the digests become the result list. */
#include "python/binding.h"

#include "files/files.h"

/* What a path was given as, after os.fspath (str or bytes: what open()
 * names in its OSError), and what the system's open takes. */
typedef struct converted_path {
    PyObject *name;
#ifdef _WIN32
    wchar_t *system; /* PyMem_Free */
#else
    PyObject *encoded; /* bytes: the file system's bytes */
#endif
} converted_path;

static void release_paths(converted_path *converted, Py_ssize_t count)
{
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_XDECREF(converted[i].name);
#ifdef _WIN32
        PyMem_Free(converted[i].system);
#else
        Py_XDECREF(converted[i].encoded);
#endif
    }
    PyMem_Free(converted);
}

/* Converts item `index` as open() converts its file argument. A type that
 * is no path raises os.fspath's TypeError, naming the item; an embedded
 * NUL raises open()'s ValueError, and what __fspath__ raises goes through. */
static int convert_path(PyObject *item, Py_ssize_t index, converted_path *out)
{
    if (!PyUnicode_Check(item) && !PyBytes_Check(item) &&
        !PyObject_HasAttrString((PyObject *)Py_TYPE(item), "__fspath__")) {
        PyErr_Format(
            PyExc_TypeError,
            "digest_files() item %zd: expected str, bytes or os.PathLike object, not %.200s", index,
            Py_TYPE(item)->tp_name);
        return -1;
    }
    out->name = PyOS_FSPath(item);
    if (out->name == NULL)
        return -1;
#ifdef _WIN32
    PyObject *decoded = NULL;
    if (!PyUnicode_FSDecoder(out->name, &decoded))
        return -1;
    out->system = PyUnicode_AsWideCharString(decoded, NULL);
    Py_DECREF(decoded);
    return out->system != NULL ? 0 : -1;
#else
    return PyUnicode_FSConverter(out->name, &out->encoded) ? 0 : -1;
#endif
}

/* open()'s OSError for a file the reader could not read: the exception
 * class of the error code (FileNotFoundError, PermissionError, ...), its
 * errno and message, and the path as os.fspath gave it. */
void fd_raise_file_error(unsigned long error, PyObject *name)
{
    if (error == FD_FILES_ERROR_SIZE_CHANGED || error == FD_FILES_ERROR_NOT_REGULAR) {
        /* Found by the reader, not the system: no errno; the path as the
         * filename, as for the system's errors. */
        PyObject *exception = PyObject_CallFunction(
            PyExc_OSError, "OsO", Py_None,
            error == FD_FILES_ERROR_SIZE_CHANGED
                ? "File changed size while it was read (a git object's header gives the size "
                  "it had when opened)"
                : "Not a regular file (a git object's header needs its size before its content)",
            name);
        if (exception != NULL)
            PyErr_SetObject(PyExc_OSError, exception);
        Py_XDECREF(exception);
        return;
    }
#ifdef _WIN32
    PyErr_SetExcFromWindowsErrWithFilenameObject(PyExc_OSError, (int)error, name);
#else
    errno = (int)error;
    PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, name);
#endif
}

/* The algorithm a name or one of this module's constructors stands for. */
static int algorithm_of(PyObject *module, PyObject *obj)
{
    if (PyUnicode_Check(obj))
        return fd_lookup_algorithm(module, obj);
    const fd_module_state *state = fd_get_module_state(module);
    for (int id = 0; id < FD_ALGORITHM_COUNT; id++) {
        if (obj == state->constructors[id])
            return id;
    }
    PyErr_Format(PyExc_TypeError,
                 "digest_files() argument 1 must be str, a fastdigest constructor or a tuple of "
                 "them, not %s",
                 obj == Py_None ? "None" : Py_TYPE(obj)->tp_name);
    return -1;
}

/* The algorithms of argument 1 into a new array (PyMem_Free): one, or the
 * items of a tuple, at least one, in order. Returns the count, or -1 with
 * an exception set. */
static Py_ssize_t parse_algorithms(PyObject *module, PyObject *name, enum fd_algorithm_id **ids)
{
    const Py_ssize_t count = PyTuple_Check(name) ? PyTuple_GET_SIZE(name) : 1;
    if (count == 0) {
        PyErr_SetString(PyExc_ValueError, "digest_files() needs at least one algorithm, got ()");
        return -1;
    }
    *ids = PyMem_Malloc((size_t)count * sizeof **ids);
    if (*ids == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        const int id = algorithm_of(module, PyTuple_Check(name) ? PyTuple_GET_ITEM(name, k) : name);
        if (id < 0) {
            PyMem_Free(*ids);
            *ids = NULL;
            return -1;
        }
        (*ids)[k] = (enum fd_algorithm_id)id;
    }
    return count;
}

/* fd_hash_files' question, between files and chunks: whether a signal
 * handler raised (KeyboardInterrupt, say). That takes the GIL back for a
 * moment; the exception stays set for the caller. */
typedef struct signal_check {
    PyThreadState *saved;
} signal_check;

/* With a stop flag (fastdigest.aio's _stop, python/files_api/aio.c) instead: whether
 * the flag is still clear, read without the GIL before every chunk. A
 * signal is then the event loop's business, on its own thread. */
static bool not_stopped(void *context)
{
    return !fd_published_flag_is_set(context);
}

static bool no_signal_raised(void *context)
{
    signal_check *check = context;
    PyEval_RestoreThread(check->saved);
    const int raised = PyErr_CheckSignals();
    check->saved = PyEval_SaveThread();
    return raised == 0;
}

/* The result list: a bytes object of each file's digest, or with several
 * algorithms a tuple of them, in the order of the algorithms. */
static PyObject *digest_list(const fd_files_request *request, size_t digests_len, bool several)
{
    PyObject *result = PyList_New((Py_ssize_t)request->count);
    if (result == NULL)
        return NULL;
    for (size_t i = 0; i < request->count; i++) {
        const uint8_t *digests = request->digests + i * digests_len;
        PyObject *item;
        if (!several) {
            item = PyBytes_FromStringAndSize((const char *)digests, (Py_ssize_t)digests_len);
        }
        else {
            item = PyTuple_New((Py_ssize_t)request->algorithm_count);
            for (size_t k = 0; item != NULL && k < request->algorithm_count; k++) {
                const size_t len = fd_algorithms[request->algorithms[k]].digest_len;
                PyObject *digest = PyBytes_FromStringAndSize((const char *)digests,
                                                             (Py_ssize_t)len);
                if (digest == NULL)
                    Py_CLEAR(item);
                else
                    PyTuple_SET_ITEM(item, (Py_ssize_t)k, digest);
                digests += len;
            }
        }
        if (item == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        PyList_SET_ITEM(result, (Py_ssize_t)i, item);
    }
    return result;
}

PyDoc_STRVAR(digest_files_doc,
             "digest_files($module, name, paths, /, *, threads=None)\n--\n\n"
             "Return the digests of many files as a list, in order: for each path the\n"
             "digest of the file's contents, as file_digest(open(path, 'rb'), name)\n"
             "would give it. name is an algorithm name, as new() takes it, or one of\n"
             "fastdigest's constructors, or a tuple of them: then each item of the\n"
             "list is a tuple of the file's digests in that order, every file read\n"
             "once. paths is an iterable of str, bytes or os.PathLike objects.\n\n"
             "The files are opened, read and hashed without the GIL, several at once\n"
             "on threads that each read a file into a buffer of their own while the\n"
             "others hash. threads is the most threads to use, the calling one\n"
             "included: None (the default) for every CPU this process may run on, 1\n"
             "for the calling thread alone; never more than there are paths.\n\n"
             "A file that cannot be read raises the OSError open() or its read would\n"
             "raise (FileNotFoundError, PermissionError, IsADirectoryError, ...) with\n"
             "its errno and the path as filename; when several cannot, the first in\n"
             "order. Nothing is returned then, and no file after it is started. A\n"
             "FIFO is read like any file: the call waits for its writer and its end.");

static PyObject *fastdigest_digest_files(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                         PyObject *kwnames)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "digest_files expected 2 arguments, got %zd", nargs);
        return NULL;
    }
    /* name and paths are positional-only, threads alone bound by name, as
     * digest_many binds it; _stop is fastdigest.aio's, a stop flag that
     * ends the call with None once set. */
    static const char *const names[] = {"threads", "_stop", "_git_type", "_lanes"};
    static const fd_signature signature = {.function = "digest_files", FD_PARAMETERS(names)};
    PyObject *bound[4];
    if (fd_bind_arguments(&fd_get_module_state(module)->compat, &signature, args + nargs, 0,
                          kwnames, bound) < 0)
        return NULL;
    PyObject *threads_argument = bound[0];
    fd_published_flag *stop = NULL;
    if (bound[1] != NULL && (stop = fd_stop_flag_of(bound[1])) == NULL)
        return NULL;
    /* _git_type is fastdigest.git_object_ids', a git object type each file
     * is hashed as (files.h). */
    const char *git_type = NULL;
    if (bound[2] != NULL && bound[2] != Py_None) {
        Py_ssize_t git_type_len = 0;
        git_type = PyUnicode_Check(bound[2]) ? PyUnicode_AsUTF8AndSize(bound[2], &git_type_len)
                                             : NULL;
        if (git_type == NULL || git_type_len == 0 || git_type_len > FD_FILES_GIT_TYPE_MAX ||
            strlen(git_type) != (size_t)git_type_len) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "digest_files() _git_type must be a git "
                                                  "object type such as 'blob'");
            return NULL;
        }
    }
    /* _lanes=False is the tests' and benchmarks': every file through the
     * single-stream kernel (files/file_lanes.h). */
    int lanes = 1;
    if (bound[3] != NULL && (lanes = PyObject_IsTrue(bound[3])) < 0)
        return NULL;
    size_t threads;
    if (fd_parse_threads(threads_argument != NULL ? threads_argument : Py_None, "digest_files",
                         &threads) < 0)
        return NULL;

    enum fd_algorithm_id *ids = NULL;
    const Py_ssize_t algorithm_count = parse_algorithms(module, args[0], &ids);
    if (algorithm_count < 0)
        return NULL;
    const bool several = PyTuple_Check(args[0]);

    PyObject *result = NULL, *paths = NULL;
    converted_path *converted = NULL;
    const fd_path_char **system_paths = NULL;
    uint8_t *digests = NULL;
    Py_ssize_t count = 0;

    if (PyUnicode_Check(args[1]) || PyBytes_Check(args[1]) || PyByteArray_Check(args[1])) {
        PyErr_Format(PyExc_TypeError,
                     "digest_files() argument 2 must be an iterable of paths, not a single %s",
                     Py_TYPE(args[1])->tp_name);
        goto done;
    }
    paths = PySequence_Tuple(args[1]);
    if (paths == NULL)
        goto done;
    count = PyTuple_GET_SIZE(paths);
    const size_t digests_len = fd_files_digests_len(ids, (size_t)algorithm_count);
    if ((size_t)count > SIZE_MAX / (digests_len + sizeof(converted_path) + sizeof(void *))) {
        PyErr_NoMemory();
        goto done;
    }
    const size_t slots = count != 0 ? (size_t)count : 1;
    converted = PyMem_Calloc(slots, sizeof *converted);
    system_paths = PyMem_Malloc(slots * sizeof *system_paths);
    digests = PyMem_Malloc(slots * digests_len);
    if (converted == NULL || system_paths == NULL || digests == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        if (convert_path(PyTuple_GET_ITEM(paths, i), i, &converted[i]) < 0)
            goto done;
#ifdef _WIN32
        system_paths[i] = converted[i].system;
#else
        system_paths[i] = PyBytes_AS_STRING(converted[i].encoded);
#endif
    }

    signal_check check;
    const fd_files_request request = {
        .paths = system_paths,
        .count = (size_t)count,
        .algorithms = ids,
        .algorithm_count = (size_t)algorithm_count,
        .digests = digests,
        .threads = threads,
        .keep_going = stop != NULL ? not_stopped : no_signal_raised,
        .keep_going_context = stop != NULL ? (void *)stop : (void *)&check,
        .keep_going_ms = stop != NULL ? 0 : FD_FILES_KEEP_GOING_MS,
        .git_type = git_type,
        .without_lanes = !lanes,
    };
    fd_files_outcome outcome;
    check.saved = PyEval_SaveThread();
    const fd_files_status status = fd_hash_files(&request, &outcome);
    PyEval_RestoreThread(check.saved);

    if (status == FD_FILES_NO_MEMORY)
        PyErr_NoMemory();
    else if (status == FD_FILES_DONE && outcome.failed < (size_t)count)
        fd_raise_file_error(outcome.error, converted[outcome.failed].name);
    else if (status == FD_FILES_DONE)
        result = digest_list(&request, digests_len, several);
    else if (stop != NULL)
        result = Py_NewRef(Py_None);
    /* FD_FILES_STOPPED without a stop flag: the signal handler's exception
     * is set. */

done:
    if (converted != NULL)
        release_paths(converted, count);
    PyMem_Free(system_paths);
    PyMem_Free(digests);
    Py_XDECREF(paths);
    PyMem_Free(ids);
    return result;
}

static PyMethodDef files_methods[] = {
    {"digest_files", (PyCFunction)(void (*)(void))fastdigest_digest_files,
     METH_FASTCALL | METH_KEYWORDS, digest_files_doc},
    {NULL, NULL, 0, NULL},
};

int fd_files_module_exec(PyObject *module, fd_module_state *state)
{
    (void)state;
    return PyModule_AddFunctions(module, files_methods);
}
