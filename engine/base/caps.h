/* Capabilities crshim holds (an unprivileged crshim: file capabilities only, see tests/zdtm/modes.sh). */
#ifndef CRSHIM_BASE_CAPS_H
#define CRSHIM_BASE_CAPS_H
#include <stdbool.h>

/* Is cap (CAP_*) in crshim's effective set? */
bool cr_has_cap(int cap);

#endif
