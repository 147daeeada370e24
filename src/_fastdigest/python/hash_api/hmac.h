/* What the two files of fastdigest.hmac share: hmac.c (the module
 * functions, and which digestmods fastdigest runs) and hmac_type.c (the
 * HMAC type). */
#ifndef FD_PYTHON_HMAC_H
#define FD_PYTHON_HMAC_H

#include "python/binding.h"

/* What fd_hmac_algorithm returns for a digestmod the standard library's
 * hmac should handle. */
#define FD_FOREIGN_DIGESTMOD (-2)

/* The algorithm fastdigest runs for a digestmod: one of fastdigest's names
 * (as new() looks them up), fastdigest's constructor of one, or a
 * constructor hashlib is made of (hmac.c says which). function and argument
 * name them in errors. Returns the id, FD_FOREIGN_DIGESTMOD, or -1 with an
 * exception set. */
int fd_hmac_algorithm(PyObject *module, PyObject *digestmod, const char *function,
                      const char *argument);

/* Calls the standard library's hmac.function_name with the caller's
 * arguments as they came; a new reference, or NULL with an exception set. */
PyObject *fd_call_stdlib_hmac(PyObject *module, const char *function_name, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames);

/* Makes the HMAC type (state->hmac_type) and adds it, and new() as
 * _hmac_new, to module. Returns 0, or -1 with an exception set. */
int fd_hmac_type_exec(PyObject *module, fd_module_state *state);

#endif /* FD_PYTHON_HMAC_H */
