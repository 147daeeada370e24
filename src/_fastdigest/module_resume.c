/* Pickling and the portable state format (issue 8): not written yet. */
#include "binding.h"

int fd_resume_module_exec(PyObject *module, fd_module_state *state)
{
    (void)module;
    (void)state;
    return 0;
}
