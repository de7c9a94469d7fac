// SPDX-License-Identifier: GPL-2.0
/*
 * tbcount: a QEMU TCG plugin (plugin API version 1, QEMU 7.2) that counts
 * the guest instructions executed in each translation block of kernel
 * text, and writes "VADDR INSNS" lines at exit to the file named by its
 * argument out=FILE (first a line "dropped N" if its table filled and N
 * blocks went uncounted).  Under -icount an instruction is guest time, so the
 * difference of two runs that differ only in a loop's length is the
 * loop's cost, function by function (harness/prof-switch.sh names them).
 *
 * With the argument total=1 it counts only the sum over all kernel text,
 * per vCPU, through a callback instead of an inline add: the inline add
 * is not atomic, and on several vCPUs (MTTCG, one host thread each) two
 * of them running the same block lose counts.  It then writes one line,
 * "total INSNS".  Without -icount the count does not follow the host's
 * load, as guest time does (harness/bench-dl.sh, the scale figure on
 * several vCPUs).  With mark=ADDR too, each execution of the block at
 * user address ADDR (dlbench's dlk_mark()) takes the sum so far, written
 * as "mark INSNS" lines in the order they came.
 *
 * With vcpus=1 each block's count is kept per vCPU, through a callback,
 * and written as "VADDR INSNS VCPU" lines: what each CPU runs for a
 * benchmark on another (the idle CPU's pulls, IPIs and timers).  Each
 * vCPU adds only to its own counter, so MTTCG loses nothing either.
 * With mark=ADDR too, only what runs between the marker's odd and even
 * executions is counted (the benchmark's measured span, without the
 * boot, whose work lands on other vCPUs from one boot to the next).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t, struct qemu_plugin_tb *));
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
	enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
	void (*cb)(unsigned int vcpu_index, void *userdata),
	enum qemu_plugin_cb_flags flags, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t, void *), void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

#define SLOTS (1u << 20)
#define KERNEL_TEXT 0xffffffff80000000ULL

#define SPLIT_VCPUS 8

struct slot {
	uint64_t key;		/* vaddr, and the block's length on top */
	uint64_t insns;
	uint64_t n;		/* vcpus=1: the block's length */
	uint64_t per_vcpu[SPLIT_VCPUS];	/* vcpus=1: the counts */
};

static struct slot *table;
static const char *out = "tbcount.out";

/* total=1: one counter per vCPU, each on a cache line of its own. */
#define MAX_VCPUS 64
static struct {
	uint64_t insns;
	char pad[56];
} per_vcpu[MAX_VCPUS];
static int total_only, split;

static void count_total(unsigned int vcpu, void *n)
{
	per_vcpu[vcpu % MAX_VCPUS].insns += (uintptr_t)n;
}

/* mark=: the marker's address and the sums taken when it ran. */
#define MAX_MARKS 1024
static uint64_t mark_va;
static uint64_t marks[MAX_MARKS];
static unsigned int n_marks;

static uint64_t sum_total(void)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < MAX_VCPUS; i++)
		sum += __atomic_load_n(&per_vcpu[i].insns, __ATOMIC_RELAXED);
	return sum;
}

static void take_mark(unsigned int vcpu, void *unused)
{
	unsigned int k = __atomic_fetch_add(&n_marks, 1, __ATOMIC_RELAXED);

	(void)vcpu;
	(void)unused;
	if (k < MAX_MARKS)
		marks[k] = sum_total();
}

static uint32_t used, dropped;

static void count_split(unsigned int vcpu, void *slot)
{
	struct slot *s = slot;

	if (mark_va && !(__atomic_load_n(&n_marks, __ATOMIC_RELAXED) & 1))
		return;

	s->per_vcpu[vcpu % SPLIT_VCPUS] += s->n;
}

/* The slot of @key; NULL when the table is full (then not counted). */
static struct slot *slot_for(uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ULL;
	uint32_t i = (uint32_t)(h >> 44) & (SLOTS - 1);

	while (table[i].key && table[i].key != key)
		i = (i + 1) & (SLOTS - 1);
	if (!table[i].key) {
		if (used >= SLOTS / 2)
			return NULL;
		used++;
		table[i].key = key;
	}
	return &table[i];
}

static void trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t va = qemu_plugin_tb_vaddr(tb);
	uint64_t n = qemu_plugin_tb_n_insns(tb);
	struct slot *s;

	(void)id;
	if (mark_va && va == mark_va) {
		qemu_plugin_register_vcpu_tb_exec_cb(tb, take_mark,
						     QEMU_PLUGIN_CB_NO_REGS,
						     NULL);
		return;
	}
	if (va < KERNEL_TEXT)
		return;
	if (total_only) {
		qemu_plugin_register_vcpu_tb_exec_cb(tb, count_total,
						     QEMU_PLUGIN_CB_NO_REGS,
						     (void *)(uintptr_t)n);
		return;
	}
	/* The same block may be translated again with another length. */
	s = slot_for((va & 0xffffffffffffULL) | (n << 48));
	if (!s) {
		dropped++;
		return;
	}
	if (split) {
		s->n = n;
		qemu_plugin_register_vcpu_tb_exec_cb(tb, count_split,
						     QEMU_PLUGIN_CB_NO_REGS, s);
		return;
	}
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &s->insns, n);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	FILE *f = fopen(out, "w");
	uint32_t i, v;

	(void)id;
	(void)p;
	if (!f)
		return;
	if (total_only) {
		fprintf(f, "total %llu\n", (unsigned long long)sum_total());
		for (i = 0; i < n_marks && i < MAX_MARKS; i++)
			fprintf(f, "mark %llu\n", (unsigned long long)marks[i]);
		fclose(f);
		return;
	}
	if (dropped)
		fprintf(f, "dropped %u\n", dropped);
	for (i = 0; i < SLOTS && split; i++)
		for (v = 0; v < SPLIT_VCPUS; v++)
			if (table[i].per_vcpu[v])
				fprintf(f, "%llx %llu %u\n",
					(unsigned long long)((table[i].key &
							      0xffffffffffffULL) |
							     0xffff000000000000ULL),
					(unsigned long long)table[i].per_vcpu[v],
					v);
	for (i = 0; i < SLOTS && !split; i++)
		if (table[i].insns)
			fprintf(f, "%llx %llu\n",
				(unsigned long long)((table[i].key &
						      0xffffffffffffULL) |
						     0xffff000000000000ULL),
				(unsigned long long)table[i].insns);
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc,
			char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out = argv[i] + 4;
		else if (!strcmp(argv[i], "total=1"))
			total_only = 1;
		else if (!strcmp(argv[i], "vcpus=1"))
			split = 1;
		else if (!strncmp(argv[i], "mark=", 5))
			mark_va = strtoull(argv[i] + 5, NULL, 0);
	table = calloc(SLOTS, sizeof(*table));
	if (!table)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
