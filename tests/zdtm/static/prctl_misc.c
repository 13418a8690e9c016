/* Less common per-task prctl values: PR_SET_TIMERSLACK, PR_SET_THP_DISABLE,
 * PR_SET_KEEPCAPS (prctl.c with this table). */
#include <sys/prctl.h>
#include "zdtmtst.h"

#define PRCTL_TABLE
static const struct prctl_val t[] = {{PR_SET_TIMERSLACK, PR_GET_TIMERSLACK, 0, 123456, "timerslack"},
				     {PR_SET_THP_DISABLE, PR_GET_THP_DISABLE, 0, 1, "thp_disable"},
				     {PR_SET_KEEPCAPS, PR_GET_KEEPCAPS, 0, 1, "keepcaps"}};
#include "prctl.c"
