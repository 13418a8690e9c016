/* Page-store kinds for the fuzz harness and its seed maker, found in the kinds table (engine/image.c) so that
 * a new one is fuzzed without touching the harness: a pagemap kind is one whose first record is a
 * PagemapHead; its page file is the raw kind (no magic) whose file name is the pagemap's with "pagemap"
 * replaced by "pages" (pagemap-%d.img / pages-%d.img, pagemap-shmem-%d.img / pages-shmem-%d.img). */
#ifndef CRSHIM_FUZZ_KINDS_H
#define CRSHIM_FUZZ_KINDS_H
#include <stdio.h>
#include <string.h>
#include "image/image.h"
#include "pagemap.pb-c.h"

/* The page file kind of pagemap kind k, or -1 if k is not a pagemap kind. */
static inline int fuzz_pages_kind(int k)
{
	const struct img_kind_desc *d = img_kind_desc((enum img_kind)k);
	const char *p = d ? strstr(d->pattern, "pagemap") : NULL;
	char want[128];
	if (!d || d->first != &pagemap_head__descriptor || !p)
		return -1;
	snprintf(want, sizeof(want), "%.*spages%s", (int)(p - d->pattern), d->pattern, p + strlen("pagemap"));
	for (int q = 0; q < IMG__COUNT; q++)
		if (!img_kind_desc((enum img_kind)q)->magic &&
		    !strcmp(img_kind_desc((enum img_kind)q)->pattern, want))
			return q;
	return -1;
}

/* The pagemap kind whose page file kind is k, or -1. */
static inline int fuzz_pagemap_kind(int k)
{
	for (int q = 0; q < IMG__COUNT; q++)
		if (fuzz_pages_kind(q) == k)
			return q;
	return -1;
}
#endif
