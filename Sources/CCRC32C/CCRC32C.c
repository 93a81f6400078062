// CRC-32C (Castagnoli) with the instruction the CPU has for it. EventLog's Swift table is the
// fallback on CPUs without one; both give the same value (the tests compare them).

#include "CCRC32C.h"

#include <string.h>

#if defined(__x86_64__)

#include <nmmintrin.h>

int chronicle_crc32c_has_instruction(void) {
    return __builtin_cpu_supports("sse4.2") ? 1 : 0;
}

__attribute__((target("sse4.2")))
uint32_t chronicle_crc32c_instruction(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    uint64_t c = ~crc;
    for (; count >= 8; p += 8, count -= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = _mm_crc32_u64(c, word);
    }
    uint32_t c32 = (uint32_t)c;
    for (; count > 0; p++, count--) c32 = _mm_crc32_u8(c32, *p);
    return ~c32;
}

#elif defined(__aarch64__)

#if defined(__linux__)
#include <sys/auxv.h>
#include <asm/hwcap.h>
#endif

int chronicle_crc32c_has_instruction(void) {
#if defined(__APPLE__)
    return 1;
#elif defined(__linux__)
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) ? 1 : 0;
#else
    return 0;
#endif
}

__attribute__((target("crc")))
uint32_t chronicle_crc32c_instruction(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    uint32_t c = ~crc;
    for (; count >= 8; p += 8, count -= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = __builtin_arm_crc32cd(c, word);
    }
    for (; count > 0; p++, count--) c = __builtin_arm_crc32cb(c, *p);
    return ~c;
}

#else

int chronicle_crc32c_has_instruction(void) { return 0; }

uint32_t chronicle_crc32c_instruction(uint32_t crc, const void *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return crc;
}

#endif
