/* The PAGEMAP_SCAN ioctl of /proc/PID/pagemap (Linux 6.7+): its UAPI, for build hosts whose headers are
 * older (used by dump-mm.c and check.c). */
#ifndef CRSHIM_PAGEMAP_SCAN_H
#define CRSHIM_PAGEMAP_SCAN_H

#include <stdint.h>
#include <sys/ioctl.h>
#include <linux/fs.h>

#ifndef PAGEMAP_SCAN
struct page_region {
	uint64_t start, end, categories;
};
struct pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define PM_SCAN_WP_MATCHING (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)
#define PAGE_IS_WRITTEN (1 << 1)
#define PAGE_IS_FILE (1 << 2)
#define PAGE_IS_PRESENT (1 << 3)
#define PAGE_IS_SWAPPED (1 << 4)
#define PAGE_IS_PFNZERO (1 << 5)
#endif
#ifndef PAGE_IS_GUARD
#define PAGE_IS_GUARD (1 << 8) /* Linux 6.14+: a guard region's page (MADV_GUARD_INSTALL) */
#endif

#endif
