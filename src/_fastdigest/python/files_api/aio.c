/* What fastdigest.aio (fastdigest/aio.py) needs of the extension: stop
 * flags, which a task that is cancelled sets on the event loop's thread
 * and the work it started reads, without the GIL, on fastdigest's threads:
 * the file reader before each chunk (digest_files' _stop, python/files_api/files.c),
 * _file_update before each chunk, the package's own loops between pieces.
 * A flag is a capsule holding one atomic flag (platform/atomic.h), made
 * set-once: nothing clears it.
 *
 * And _file_update, file_digest's reading and hashing of a file
 * descriptor, all of it without the GIL: a loop that took the GIL for each
 * chunk would wait for it behind a busy event loop, chunk after chunk. */
#include "python/binding.h"

#include <errno.h>
#include <limits.h>

#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

#include "files/files.h"
#include "platform/atomic.h"

#define STOP_FLAG_NAME "fastdigest._fastdigest.stop_flag"

static void free_stop_flag(PyObject *capsule)
{
    PyMem_RawFree(PyCapsule_GetPointer(capsule, STOP_FLAG_NAME));
}

fd_published_flag *fd_stop_flag_of(PyObject *flag)
{
    if (!PyCapsule_IsValid(flag, STOP_FLAG_NAME)) {
        PyErr_Format(PyExc_TypeError, "expected a stop flag of _stop_flag(), not %.200s",
                     Py_TYPE(flag)->tp_name);
        return NULL;
    }
    return PyCapsule_GetPointer(flag, STOP_FLAG_NAME);
}

PyDoc_STRVAR(stop_flag_doc, "_stop_flag($module, /)\n--\n\n"
                            "A new stop flag, not set, for _set_stop() and _is_stopped().");

static PyObject *fastdigest_stop_flag(PyObject *module, PyObject *Py_UNUSED(ignored))
{
    (void)module;
    /* Raw memory: the readers may hold no thread state when the capsule's
     * last reference goes, and PyMem_Raw needs none. */
    fd_published_flag *flag = PyMem_RawCalloc(1, sizeof *flag);
    if (flag == NULL)
        return PyErr_NoMemory();
    PyObject *capsule = PyCapsule_New(flag, STOP_FLAG_NAME, free_stop_flag);
    if (capsule == NULL)
        PyMem_RawFree(flag);
    return capsule;
}

PyDoc_STRVAR(set_stop_doc, "_set_stop($module, flag, /)\n--\n\n"
                           "Set the stop flag: the work that reads it stops at its next check.");

static PyObject *fastdigest_set_stop(PyObject *module, PyObject *flag)
{
    (void)module;
    fd_published_flag *pointer = fd_stop_flag_of(flag);
    if (pointer == NULL)
        return NULL;
    fd_published_flag_set(pointer);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(is_stopped_doc, "_is_stopped($module, flag, /)\n--\n\n"
                             "Whether the stop flag is set.");

static PyObject *fastdigest_is_stopped(PyObject *module, PyObject *flag)
{
    (void)module;
    fd_published_flag *pointer = fd_stop_flag_of(flag);
    if (pointer == NULL)
        return NULL;
    return PyBool_FromLong(fd_published_flag_is_set(pointer));
}

PyDoc_STRVAR(file_update_doc,
             "_file_update($module, fd, objects, stop, /)\n--\n\n"
             "Read the file descriptor fd to its end and feed every chunk to each of\n"
             "objects, a tuple of fastdigest hash objects, without the GIL. Returns\n"
             "True at the end of the file, False when the stop flag was set first\n"
             "(checked before every chunk); raises the OSError of a failed read.");

static PyObject *fastdigest_file_update(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "_file_update expected 3 arguments, got %zd", nargs);
        return NULL;
    }
    const long fd = PyLong_AsLong(args[0]);
    if (fd == -1 && PyErr_Occurred())
        return NULL;
    if (fd < 0 || fd > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "_file_update: not a file descriptor");
        return NULL;
    }
    PyObject *objects = args[1];
    fd_published_flag *stop = fd_stop_flag_of(args[2]);
    if (stop == NULL)
        return NULL;
    if (!PyTuple_Check(objects) || PyTuple_GET_SIZE(objects) == 0) {
        PyErr_SetString(PyExc_TypeError, "_file_update: objects must be a non-empty tuple");
        return NULL;
    }
    const Py_ssize_t count = PyTuple_GET_SIZE(objects);
    PyTypeObject *hash_type = fd_get_module_state(module)->hash_type;
    fd_hash_object **hashes = PyMem_Malloc((size_t)count * sizeof *hashes);
    if (hashes == NULL)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyTuple_GET_ITEM(objects, i);
        if (!Py_IS_TYPE(item, hash_type)) {
            PyMem_Free(hashes);
            PyErr_Format(PyExc_TypeError, "_file_update: item %zd is no fastdigest hash object", i);
            return NULL;
        }
        hashes[i] = (fd_hash_object *)item;
        /* Each update below takes the object's own lock, as an update that
         * releases the GIL does (python/locking.h). */
        if (!fd_object_lock_enable(&hashes[i]->lock)) {
            PyMem_Free(hashes);
            return PyErr_NoMemory();
        }
    }
    uint8_t *chunk = PyMem_RawMalloc(FD_FILES_CHUNK_LEN);
    if (chunk == NULL) {
        PyMem_Free(hashes);
        return PyErr_NoMemory();
    }
    bool stopped = false;
    int error = 0;
    Py_BEGIN_ALLOW_THREADS
        for (;;) {
            if (fd_published_flag_is_set(stop)) {
                stopped = true;
                break;
            }
#ifdef _WIN32
            const int got = _read((int)fd, chunk, (unsigned)FD_FILES_CHUNK_LEN);
#else
            const ssize_t got = read((int)fd, chunk, FD_FILES_CHUNK_LEN);
#endif
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0) {
                error = errno;
                break;
            }
            if (got == 0)
                break;
            for (Py_ssize_t i = 0; i < count; i++) {
                fd_object_lock *lock = &hashes[i]->lock;
#ifdef FD_HAVE_PYMUTEX
                PyMutex_Lock(&lock->mutex);
#else
                PyThread_acquire_lock(lock->lock, WAIT_LOCK);
#endif
                hashes[i]->algorithm->update(&hashes[i]->state, chunk, (size_t)got);
                fd_object_lock_release(lock);
            }
        }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(chunk);
    PyMem_Free(hashes);
    if (error != 0) {
        errno = error;
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    return PyBool_FromLong(!stopped);
}

static PyMethodDef aio_methods[] = {
    {"_file_update", (PyCFunction)(void (*)(void))fastdigest_file_update, METH_FASTCALL,
     file_update_doc},
    {"_stop_flag", fastdigest_stop_flag, METH_NOARGS, stop_flag_doc},
    {"_set_stop", fastdigest_set_stop, METH_O, set_stop_doc},
    {"_is_stopped", fastdigest_is_stopped, METH_O, is_stopped_doc},
    {NULL, NULL, 0, NULL},
};

int fd_aio_module_exec(PyObject *module, fd_module_state *Py_UNUSED(state))
{
    return PyModule_AddFunctions(module, aio_methods);
}
