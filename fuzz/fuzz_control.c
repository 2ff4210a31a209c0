/*
 * A control-socket request line (supervisor/sup_ctlreq.c), as chainwatchd
 * reads it from any local client: a command, or a reason that quotes it.
 */
#include "config.h"

#include "fuzz.h"
#include "sup_ctlreq.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_log_init("fuzz_control");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		err[CTLREQ_ERR_MAX];
	enum ctl_cmd	cmd;

	/* sup_control.c cuts a line at 4096 bytes, its newline included. */
	if (size > 4095)
		return 0;
	if (sup_ctlreq_parse((const char *)data, size, &cmd, err,
	    sizeof(err)) == -1 && err[0] == '\0')
		abort();
	return 0;
}
