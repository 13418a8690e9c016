/* Checksums of image files and page blocks: XXH64 (written from the published algorithm) and CRC32C. */
#ifndef CRSHIM_CSUM_H
#define CRSHIM_CSUM_H
#include <stddef.h>
#include <stdint.h>

uint64_t csum64(const void *data, size_t len, uint64_t seed);

/* CRC32C (Castagnoli, reflected, as iSCSI/ext4): crc32c(0, "123456789", 9) == 0xE3069283; chain by passing
 * the previous result. The CPU's instruction where the arch has one (arch_crc32c_hw), else tables. */
uint32_t crc32c(uint32_t crc, const void *data, size_t len);
/* The same always by tables (slicing by 8). */
uint32_t crc32c_sw(uint32_t crc, const void *data, size_t len);

/* What a pagemap's block checksums are (pagemap_head.csum_kind): images before the field are XXH64. */
enum csum_kind { CSUM_XXH64 = 0, CSUM_CRC32C = 1 };
#define CSUM_KIND_MAX CSUM_CRC32C
/* The checksum of a page block of that kind. */
uint64_t csum_block(enum csum_kind kind, const void *data, size_t len);

#endif
