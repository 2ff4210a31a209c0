/*
 * chainwatch-metrics, the HTTP server for monitoring, run as a child of
 * chainwatchd while metrics_listen is not "none" (sup_metrics.c).
 */
#ifndef CW_SUP_METRICS_H
#define CW_SUP_METRICS_H

#include "conf.h"

void		 sup_metrics_start(const struct conf *);
void		 sup_metrics_reload(const struct conf *);
void		 sup_metrics_stop(void);
void		 sup_metrics_wait(void);

#endif
