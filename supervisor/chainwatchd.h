/*
 * What chainwatchd.c holds for the whole supervisor: the running
 * configuration, the event loop, and whether it is stopping.
 */
#ifndef CW_CHAINWATCHD_H
#define CW_CHAINWATCHD_H

#include <ev.h>

#include "conf.h"

extern struct conf	*sup_conf;
extern int		 sup_stopping;
extern int		 sup_verbose;	/* -v: debug whatever the config says */
extern struct ev_loop	*sup_loop;

#endif
