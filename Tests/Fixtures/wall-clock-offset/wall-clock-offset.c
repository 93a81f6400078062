// A wall clock hours off, for one process: loaded with LD_PRELOAD, it adds
// CHRONICLE_WALL_CLOCK_OFFSET seconds (negative: behind) to what the process reads as the
// time of day (CLOCK_REALTIME, gettimeofday, time), as a device whose clock is wrong would.
// Monotonic clocks, which sleeps and timeouts run on, are left alone. (faketime shifts those
// too, and a Swift process under it never wakes from Task.sleep.)
// The sync tests compile it with the toolchain's clang: tools/test needs nothing more.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long long offset_seconds(void) {
    const char *text = getenv("CHRONICLE_WALL_CLOCK_OFFSET");
    return text ? atoll(text) : 0;
}

int clock_gettime(clockid_t clock, struct timespec *now) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int result = real(clock, now);
    if (result == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) now->tv_sec += offset_seconds();
    return result;
}

int gettimeofday(struct timeval *restrict now, void *restrict zone) {
    static int (*real)(struct timeval *restrict, void *restrict);
    if (!real) real = (int (*)(struct timeval *restrict, void *restrict))dlsym(RTLD_NEXT, "gettimeofday");
    int result = real(now, zone);
    if (result == 0) now->tv_sec += offset_seconds();
    return result;
}

time_t time(time_t *out) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (out) *out = now.tv_sec;
    return now.tv_sec;
}
