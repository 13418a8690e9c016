/* Capabilities crshim holds (an unprivileged crshim: file capabilities only, see tests/zdtm/modes.sh). */
#ifndef CRSHIM_BASE_CAPS_H
#define CRSHIM_BASE_CAPS_H
#include <stdbool.h>

/* Is cap (CAP_*) in crshim's effective set? */
bool cr_has_cap(int cap);
/* Make a crshim with file capabilities dumpable again, run by a user (see caps.c). */
void cr_caps_user_dumpable(void);
/* Drop all capabilities of this process; 0 or -1 with errno. */
int cr_caps_drop_all(void);
/* Every permitted capability made effective again; 0 or -1 with errno. */
int cr_caps_effective_all(void);

#endif
