/*
 * Endpoint judging (sup_judge.c), once a tick.
 */
#ifndef CW_SUP_JUDGE_H
#define CW_SUP_JUDGE_H

/* The chains' verdicts on endpoints, to their health. */
void	judge_verdicts(void);
/* Who is overdue, who fails against its peers, which chain is slow. */
void	judge_overdue(void);

#endif
