#ifndef CHRONICLE_CCRC32C_H
#define CHRONICLE_CCRC32C_H

#include <stddef.h>
#include <stdint.h>

/// 1 when this CPU has the CRC-32C instruction (SSE 4.2 on x86-64, the CRC extension on
/// ARM64), else 0: then `chronicle_crc32c_instruction` must not be called.
int chronicle_crc32c_has_instruction(void);

/// Continues `crc` (start with 0) over `count` bytes at `bytes` with the CPU's CRC-32C
/// instruction, eight bytes at a time (on x86-64, in three lanes side by side once there are
/// 192 bytes or more: see CCRC32C.c).
uint32_t chronicle_crc32c_instruction(uint32_t crc, const void *bytes, size_t count);

#endif
