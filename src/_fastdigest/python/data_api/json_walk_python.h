/* json_digest's walk as json's pure-Python encoder writes it
 * (json_walk_python.c), for indent= before 3.13. */
#ifndef FD_PYTHON_JSON_WALK_PYTHON_H
#define FD_PYTHON_JSON_WALK_PYTHON_H

#include "python/data_api/json_walker.h"

/* Writes obj as json.dumps's _iterencode(obj, 0) does, its own generator
 * counted. 0, or -1 with an exception set (or the walker's surrogate
 * set). */
int fd_json_walk_python(fd_json_walker *w, PyObject *obj);

#endif /* FD_PYTHON_JSON_WALK_PYTHON_H */
