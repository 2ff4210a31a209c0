/*
 * What a sandboxed process and its parent share about the sandbox: the
 * exit status of a process its seccomp filter stopped, the packet that
 * says which system call did it, and the line that names it in the log.
 */
#ifndef CW_SANDBOX_H
#define CW_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

/* A system call outside the filter: the process exits with this. */
#define CW_EXIT_SANDBOX		159

/* The packet's size: MSG_SANDBOX with one fixed-width "syscall" field. */
#define SANDBOX_REPORT_MAX	64

/*
 * Encode the MSG_SANDBOX packet for syscall number nr into out (at least
 * SANDBOX_REPORT_MAX bytes); its length.  Its bytes for nr are always at
 * the same place, so a signal handler can patch a copy made beforehand:
 * sandbox_report_patch() does that without calling anything.
 */
size_t	sandbox_report_encode(void *out, uint32_t gen, int nr);
void	sandbox_report_patch(void *pkt, size_t len, int nr);

/* The syscall number in a MSG_SANDBOX packet; -1 if it is not one. */
int	sandbox_report_parse(const void *buf, size_t len);

/* "worker killed by its sandbox: syscall N (name)", nr -1 if unknown. */
void	sandbox_describe(int nr, char *out, size_t outlen);

#endif
