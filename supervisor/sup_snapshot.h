/*
 * The supervisor's state as JSON for the control socket (sup_snapshot.c).
 */
#ifndef CW_SUP_SNAPSHOT_H
#define CW_SUP_SNAPSHOT_H

struct json_t;
struct json_t	*sup_snapshot_json(void);

#endif
