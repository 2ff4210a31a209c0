/*
 * Fork choice (sup_choice.c).
 */
#ifndef CW_SUP_CHOICE_H
#define CW_SUP_CHOICE_H

#include <stdint.h>

struct chain;
struct sblock;

void		 choice_adopt(struct chain *, struct sblock *tip,
		    int64_t endpoint_id, uint64_t now);
void		 choice_climb(struct chain *, const struct sblock *,
		    int64_t endpoint_id, uint64_t now);
void		 choice_link_up(struct chain *, struct sblock *,
		    int64_t endpoint_id, uint64_t now);
uint64_t	 choice_work_wait(const struct chain *);
int		 choice_candidate(const struct chain *, uint8_t tip[32]);
void		 choice_tick(struct chain *, uint64_t now);
void		 choice_refuse(struct chain *, const struct sblock *bad,
		    uint64_t now);

#endif
