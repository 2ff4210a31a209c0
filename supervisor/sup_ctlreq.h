/*
 * A control-socket request line, parsed: the pure part of sup_control.c,
 * apart so that unit tests and the fuzzer (fuzz/fuzz_control.c) call it
 * without a socket or a daemon.
 */
#ifndef CW_SUP_CTLREQ_H
#define CW_SUP_CTLREQ_H

#include <stddef.h>

enum ctl_cmd {
	CTL_CMD_STATUS = 0,
	CTL_CMD_METRICS,
	CTL_CMD_RELOAD,
};

/* Room for any reason: a request of CONTROL_LINE_MAX bytes, quoted. */
#define CTLREQ_ERR_MAX	(4096 + 256)

/*
 * One request line (its newline cut, a '\r' before it taken off here):
 * 0 and the command, or -1 and why not in err, which quotes what was sent.
 */
int	sup_ctlreq_parse(const char *line, size_t len, enum ctl_cmd *cmd,
	    char *err, size_t errlen);

#endif
