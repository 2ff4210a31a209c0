/*
 * What a sandboxed process and its parent share about the sandbox: the
 * exit status of a process its seccomp filter stopped, the packet that
 * says which system call did it, and the line that names it in the log.
 */
#ifndef CW_SANDBOX_H
#define CW_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

#include <seccomp.h>

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

/* RLIMIT_CORE 0, PR_SET_NO_NEW_PRIVS, not dumpable; -1 with err. */
int	sandbox_basics(char *err, size_t errlen);

/*
 * Landlock: open a ruleset handling every filesystem right of this
 * kernel's ABI (its number in *abi): the descriptor, -2 when the kernel
 * has no Landlock, -1 on error (errno).  Allow path read-only (0, or -1
 * with errno; a path that does not exist is skipped), then restrict this
 * process and the threads it makes later (closes rfd; needs no new privs).
 */
int	sandbox_landlock_open(int *abi);
int	sandbox_landlock_allow(int rfd, const char *path);
int	sandbox_landlock_restrict(int rfd);

/*
 * The SIGSYS handler for a filter's trap: it writes "TAG: killed by its
 * sandbox: syscall N (name)" to stderr, sends MSG_SANDBOX of generation
 * gen to report_fd (-1: none) and exits with CW_EXIT_SANDBOX.  0, or -1
 * with errno.
 */
int	sandbox_trap(const char *tag, int report_fd, uint32_t gen);
/* The trap's line to syslog as well, as ident (before the filter). */
void	sandbox_trap_syslog(const char *ident);

/*
 * Load a seccomp filter: the n calls named in allowed (a name unknown on
 * this architecture is skipped), the rules with_args adds (NULL: none),
 * and a trap for every other call.  0, or -1 with the reason in err.
 */
int	sandbox_seccomp(const char *const *allowed, size_t n,
	    int (*with_args)(scmp_filter_ctx), char *err, size_t errlen);

/* "worker killed by its sandbox: syscall N (name)", nr -1 if unknown. */
void	sandbox_describe(int nr, char *out, size_t outlen);

#endif
