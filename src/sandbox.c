/*
 * The sandbox's report: a MSG_SANDBOX packet from the process its filter
 * stopped, and the log line naming the system call (libseccomp knows
 * the names, for the architecture this runs on).
 */
#include "config.h"

#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "sandbox.h"

size_t
sandbox_report_encode(void *out, uint32_t gen, int nr)
{
	struct msgbuf	mb;
	size_t		len;

	msg_begin(&mb, MSG_SANDBOX, gen, 1);
	/* Always a uint16 (0xcd hi lo): over 255 even when nr is small. */
	msg_put_uint(&mb, "syscall", 0xffff);
	len = mb.sb.size;
	if (len > SANDBOX_REPORT_MAX)
		len = 0;
	else
		memcpy(out, mb.sb.data, len);
	msgpack_sbuffer_destroy(&mb.sb);
	if (len != 0)
		sandbox_report_patch(out, len, nr);
	return len;
}

/* The last two bytes are the number, big-endian. */
void
sandbox_report_patch(void *pkt, size_t len, int nr)
{
	unsigned char	*p = pkt;

	if (len < 3)
		return;
	p[len - 2] = (unsigned char)((unsigned)nr >> 8);
	p[len - 1] = (unsigned char)nr;
}

int
sandbox_report_parse(const void *buf, size_t len)
{
	struct msg	m;
	uint64_t	nr;
	char		err[64];
	int		rc = -1;

	if (msg_parse(buf, len, &m, err, sizeof(err)) == -1)
		return -1;
	if (m.type == MSG_SANDBOX && msg_get_uint(&m, "syscall", &nr) == 0 &&
	    nr < 0xffff)
		rc = (int)nr;
	msg_free(&m);
	return rc;
}

void
sandbox_describe(int nr, char *out, size_t outlen)
{
	char	*name;

	if (nr < 0) {
		snprintf(out, outlen, "worker killed by its sandbox: "
		    "syscall unknown");
		return;
	}
	name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
	snprintf(out, outlen, "worker killed by its sandbox: syscall %d (%s)",
	    nr, name != NULL ? name : "?");
	free(name);
}
