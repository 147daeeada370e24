/* Lowercase hexadecimal, as hexdigest() returns it and digest_array(...,
 * hex=True) writes it. */
#ifndef FD_CORE_HEX_H
#define FD_CORE_HEX_H

#include <stddef.h>
#include <stdint.h>

/* Writes the 2 * len digits of bytes[0..len) to out, the high nibble of
 * each byte first; no terminating NUL. */
void fd_hex_encode(const uint8_t *bytes, size_t len, char *out);

#endif /* FD_CORE_HEX_H */
