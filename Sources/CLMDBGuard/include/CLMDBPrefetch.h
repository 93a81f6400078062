#ifndef CLMDB_PREFETCH_H
#define CLMDB_PREFETCH_H
// A hint to the processor that bytes of the map will be read soon.
#include <stddef.h>

/// Asks the processor to bring the `count` bytes at `address` into its cache. A hint only:
/// it reads nothing, changes nothing and never faults, whatever the address.
static inline void chronicle_prefetch(const void *address, size_t count) {
    for (size_t offset = 0; offset < count; offset += 64) {
        __builtin_prefetch((const char *)address + offset);
    }
}

#endif
