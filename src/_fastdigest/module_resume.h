/* The hash type's methods for pickling and the portable state format,
 * implemented in module_resume.c. Included by binding.h. */
#ifndef FD_MODULE_RESUME_H
#define FD_MODULE_RESUME_H

/* state(): the object's state as a blob of the portable format
 * (state_format.h), which fastdigest.from_state() resumes. */
PyObject *fd_resume_hash_state(PyObject *self, PyObject *ignored);
/* __reduce__(): (fastdigest.from_state, (state(),)), for every pickle
 * protocol. */
PyObject *fd_resume_hash_reduce(PyObject *self, PyObject *ignored);
/* __deepcopy__(memo): copy(), which __copy__ is too; the state holds no
 * objects, so a deep copy is no deeper. */
PyObject *fd_resume_hash_deepcopy(PyObject *self, PyObject *memo);

extern const char fd_resume_hash_state_doc[];
extern const char fd_resume_hash_reduce_doc[];
extern const char fd_resume_hash_copy_doc[];
extern const char fd_resume_hash_deepcopy_doc[];

/* Method table entries (each followed by a comma) for the hash type. */
#define FD_RESUME_HASH_METHODS                                                                 \
    {"state", fd_resume_hash_state, METH_NOARGS, fd_resume_hash_state_doc},                    \
    {"__reduce__", fd_resume_hash_reduce, METH_NOARGS, fd_resume_hash_reduce_doc},             \
    {"__copy__", fd_hash_copy, METH_NOARGS, fd_resume_hash_copy_doc},                          \
    {"__deepcopy__", fd_resume_hash_deepcopy, METH_O, fd_resume_hash_deepcopy_doc},

#endif /* FD_MODULE_RESUME_H */
