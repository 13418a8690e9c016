/* Checksums of image files and page blocks: XXH64 (written from the published algorithm). */
#ifndef CRSHIM_CSUM_H
#define CRSHIM_CSUM_H
#include <stddef.h>
#include <stdint.h>

uint64_t csum64(const void *data, size_t len, uint64_t seed);

#endif
