/* The hash type's methods for pickling and the portable state format,
 * implemented in module_resume.c. Included by binding.h. */
#ifndef FD_MODULE_RESUME_H
#define FD_MODULE_RESUME_H

/* Method table entries (each followed by a comma) for the hash type. */
#define FD_RESUME_HASH_METHODS

#endif /* FD_MODULE_RESUME_H */
