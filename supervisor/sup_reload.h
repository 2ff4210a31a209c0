/*
 * Reload (sup_reload.c): SIGHUP and the control socket's reload share it;
 * sup_reload_result.c frees what it returns.
 */
#ifndef CW_SUP_RELOAD_H
#define CW_SUP_RELOAD_H

#include <stddef.h>

struct reload_result {
	int		 ok;		/* 0: the file has errors */
	unsigned	 added, changed, removed, kept;
	char		**errors;	/* "FILE:LINE: message", when !ok */
	size_t		 n_errors;
	char		**warnings;	/* changes that take a restart */
	size_t		 n_warnings;
};
void		 sup_reload(struct reload_result *);
void		 sup_reload_result_free(struct reload_result *);
/* `synchronous` (0 normal, 1 full) on the open store, read back. */
void		 sup_reload_synchronous(unsigned);

#endif
