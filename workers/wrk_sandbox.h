/*
 * chainwatch-worker's sandbox, applied once its setup is done: no new
 * privileges, not dumpable, resource limits, Landlock (read-only access
 * to what TLS and name resolution read) and a seccomp allowlist of the
 * system calls its loop makes.  A call outside the list ends the process
 * with CW_EXIT_SANDBOX after a MSG_SANDBOX packet naming it (sandbox.h).
 */
#ifndef CW_WRK_SANDBOX_H
#define CW_WRK_SANDBOX_H

#include <stdint.h>

/* Descriptors: 64 (stdio, IPC, libev, DNS, the WebSocket) + connections. */
#define WRK_NOFILE_BASE	64

struct wrk_sandbox {
	const char	*tag;		/* for the trap's line on stderr */
	int		 report_fd;	/* MSG_SANDBOX goes here; -1: none */
	uint32_t	 gen;		/* the packet's generation */
	unsigned	 conns;		/* HTTP connections it may open */
};

/*
 * Apply it to this process and the threads it makes later; 0, or -1 with
 * the reason in err.  Under AddressSanitizer only the prctl and limits
 * are applied (the log says so): its runtime makes calls of its own.
 */
int	wrk_sandbox_apply(const struct wrk_sandbox *, char *err,
	    size_t errlen);

#endif
