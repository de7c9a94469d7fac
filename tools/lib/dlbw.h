/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The deadline bandwidth of the root domains, as debugfs shows it: the
 * tree's sched/debug file, or sched/deadline_pool where the kernel has it
 * (ours).  For dlctl status and the tests.
 */
#ifndef DLK_DLBW_H
#define DLK_DLBW_H

#include <limits.h>
#include <stdio.h>

#define DL_MAX_CPUS 1024	/* glibc's CPU_SETSIZE */
#define DL_BW_NONE LLONG_MIN	/* both values can be -1, or negative */
#define DL_BW_UNIT (1LL << 20)

/*
 * The deadline bandwidth of the root domain of @cpu, as the sched debug
 * file shows it (units of 2^-20 of a CPU): the limit per CPU and the total
 * allocated.  0 on success.
 */
int dl_bw_of_cpu(int cpu, long long *bw, long long *total_bw);

/*
 * The same for CPUs 0 to @n - 1 (at most DL_MAX_CPUS), from one read of
 * the file: @bw[c] and @total[c], or DL_BW_NONE for both where it shows
 * no CPU c (an offline one).  0, or -1 if the file cannot be read.  On
 * our implementation the file read is sched/deadline_pool, which shows
 * the same figures without the race of dl_debug_open().
 */
int dl_bw_of_cpus(int n, long long *bw, long long *total);
/* The same from sched/debug only, and from sched/deadline_pool only. */
int dl_bw_of_cpus_debug(int n, long long *bw, long long *total);
/*
 * Our implementation shows each online CPU's root domain's limit and
 * total in sched/deadline_pool too, read under the locks that change
 * them: there a read does not risk the race of sched/debug.  -1 if the
 * kernel has no such file (stock).
 */
int dl_bw_of_cpus_pool(int n, long long *bw, long long *total);

/*
 * The sched debug file, opened to be read as SCHED_FIFO.  In the 6.12
 * tree, print_cfs_rq() updates a fair run queue's vruntime figures after
 * dropping the rq lock; a reader racing the scheduler can leave them out
 * of step and crash the kernel (tests/lib/dl.h tells the whole story).
 * So the calling thread, if it is a fair one and may, runs as SCHED_FIFO
 * until dl_debug_close() puts its policy back: a fair reader preempted
 * inside that unlocked update lets other fair tasks move that run queue
 * before it stores what it computed; no fair task preempts a real-time
 * one.  Two readers in a loop beside four fair pipelines crash stock in
 * 3 s on 2 vCPUs and in 26 s on one as fair tasks; as FIFO ones, it ran
 * 60 s on both without a crash.  NULL and errno if the file cannot be
 * opened.
 */
FILE *dl_debug_open(int *saved);
/* Closes @f (if not NULL) and gives the thread back policy @saved. */
void dl_debug_close(FILE *f, int saved);

#endif
