// CRC-32C (Castagnoli) with the instruction the CPU has for it. ChronicleLog's Swift table is the
// fallback on CPUs without one; both give the same value (the tests compare them).
//
// On x86-64 the instruction takes three cycles and can start one each cycle, so one stream of
// it runs at a third of its speed. A buffer of three lanes or more is taken in blocks of three
// lanes, each lane's CRC worked out beside the others', and the three joined by shifting the
// first two past the lanes after them (appending a lane of zeros to a CRC is a linear map,
// applied a byte at a time through four tables): the method of Mark Adler's crc32c.c.

#include "CCRC32C.h"

#include <string.h>

#if defined(__x86_64__)

#include <nmmintrin.h>
#include <pthread.h>

int chronicle_crc32c_has_instruction(void) {
    return __builtin_cpu_supports("sse4.2") ? 1 : 0;
}

// The CRC-32C polynomial, bits reversed.
#define POLY 0x82f63b78u
// Lane lengths, in bytes (powers of two, multiples of 8): long lanes for large buffers, short
// ones for a record (most are a few hundred bytes).
#define LONG_LANE 2048
#define SHORT_LANE 64

// zeros[k][b]: the CRC register's change for byte b in its byte k, appending a lane of zeros.
static uint32_t long_zeros[4][256];
static uint32_t short_zeros[4][256];
static pthread_once_t zeros_once = PTHREAD_ONCE_INIT;

// A 32×32 matrix over GF(2) (one column a word) times a vector.
static uint32_t gf2_times(const uint32_t *matrix, uint32_t vector) {
    uint32_t sum = 0;
    for (; vector; vector >>= 1, matrix++) {
        if (vector & 1) sum ^= *matrix;
    }
    return sum;
}

static void gf2_square(uint32_t *square, const uint32_t *matrix) {
    for (int n = 0; n < 32; n++) square[n] = gf2_times(matrix, matrix[n]);
}

// The operator appending `count` zero bytes (a power of two) to a CRC register.
static void zeros_operator(uint32_t *even, size_t count) {
    uint32_t odd[32];
    odd[0] = POLY;   // one zero bit
    for (int n = 1; n < 32; n++) odd[n] = 1u << (n - 1);
    gf2_square(even, odd);   // two bits
    gf2_square(odd, even);   // four bits
    // Each squaring doubles the zeros: the next gives one byte, then two, four…
    for (;;) {
        gf2_square(even, odd);
        count >>= 1;
        if (count == 0) return;
        gf2_square(odd, even);
        count >>= 1;
        if (count == 0) {
            memcpy(even, odd, sizeof odd);
            return;
        }
    }
}

static void zeros_tables(uint32_t zeros[4][256], size_t count) {
    uint32_t op[32];
    zeros_operator(op, count);
    for (uint32_t n = 0; n < 256; n++) {
        zeros[0][n] = gf2_times(op, n);
        zeros[1][n] = gf2_times(op, n << 8);
        zeros[2][n] = gf2_times(op, n << 16);
        zeros[3][n] = gf2_times(op, n << 24);
    }
}

static void make_zeros_tables(void) {
    zeros_tables(long_zeros, LONG_LANE);
    zeros_tables(short_zeros, SHORT_LANE);
}

static inline uint32_t shift(uint32_t zeros[4][256], uint32_t crc) {
    return zeros[0][crc & 0xff] ^ zeros[1][(crc >> 8) & 0xff] ^ zeros[2][(crc >> 16) & 0xff] ^ zeros[3][crc >> 24];
}

static inline uint64_t word_at(const unsigned char *p) {
    uint64_t word;
    memcpy(&word, p, 8);
    return word;
}

// Continues the register `c` over blocks of three lanes of `lane` bytes while they fit.
__attribute__((target("sse4.2")))
static uint64_t three_lanes(uint64_t c, const unsigned char **bytes, size_t *count, size_t lane, uint32_t zeros[4][256]) {
    const unsigned char *p = *bytes;
    size_t left = *count;
    while (left >= 3 * lane) {
        uint64_t c1 = 0, c2 = 0;
        const unsigned char *end = p + lane;
        do {
            c = _mm_crc32_u64(c, word_at(p));
            c1 = _mm_crc32_u64(c1, word_at(p + lane));
            c2 = _mm_crc32_u64(c2, word_at(p + 2 * lane));
            p += 8;
        } while (p < end);
        c = shift(zeros, (uint32_t)c) ^ (uint32_t)c1;
        c = shift(zeros, (uint32_t)c) ^ (uint32_t)c2;
        p += 2 * lane;
        left -= 3 * lane;
    }
    *bytes = p;
    *count = left;
    return c;
}

__attribute__((target("sse4.2")))
uint32_t chronicle_crc32c_instruction(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    uint64_t c = ~crc;
    if (count >= 3 * SHORT_LANE) {
        pthread_once(&zeros_once, make_zeros_tables);
        c = three_lanes(c, &p, &count, LONG_LANE, long_zeros);
        c = three_lanes(c, &p, &count, SHORT_LANE, short_zeros);
    }
    for (; count >= 8; p += 8, count -= 8) c = _mm_crc32_u64(c, word_at(p));
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
