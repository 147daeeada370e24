/* HMAC and PBKDF2-HMAC (issue 5): not written yet. */
#include "binding.h"

int fd_hmac_module_exec(PyObject *module, fd_module_state *state)
{
    (void)module;
    (void)state;
    return 0;
}
