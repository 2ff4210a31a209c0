/*
 * Endpoint judging (sup_judge.c), once a tick.
 */
#ifndef CW_SUP_JUDGE_H
#define CW_SUP_JUDGE_H

#include <stdint.h>

struct chain;
struct chain_verdict;
struct chain_verdicts;

/* What chains concluded about their endpoints, to their health. */
void	judge_verdict(struct chain *, const struct chain_verdict *);
void	judge_verdicts(struct chain *, const struct chain_verdicts *);
/* Every chain's clock, and its verdicts to the endpoints' health. */
void	judge_chains(uint64_t now);
/* Who is overdue, who fails against its peers, which chain is slow. */
void	judge_overdue(void);

#endif
