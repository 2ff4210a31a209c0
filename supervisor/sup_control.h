/*
 * The control socket (sup_control.c), for chainwatch(1) and the metrics
 * server.  One JSON request line in, one JSON object out, then close.
 */
#ifndef CW_SUP_CONTROL_H
#define CW_SUP_CONTROL_H

#include "conf.h"

#define CONTROL_CLIENTS_MAX	16	/* at a time; more are turned away */
#define CONTROL_LINE_MAX	4096	/* a request, its newline included */
#define CONTROL_TIMEOUT_MS	5000	/* for the request, then the answer */
int		 sup_control_check(const struct conf *);
int		 sup_control_init(const struct conf *);
void		 sup_control_stop(void);
/*
 * The operators' group, which the control socket and the store belong
 * to: control_group, or for a root daemon with a user and no
 * control_group, that user's group (the metrics server runs as the user).
 * -1 when there is none: the files keep the daemon's group.
 */
long		 sup_control_gid(const struct conf *);

#endif
