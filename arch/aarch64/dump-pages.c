/* The dump's page code (arch/arch-pages.h): none yet for arm64, whose dump reads the pages from crshim. */
#include "arch-pages.h"

const uint8_t *arch_pages_code(size_t *len, size_t *trap_ip)
{
	(void)len;
	(void)trap_ip;
	return NULL;
}
