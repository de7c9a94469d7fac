// SPDX-License-Identifier: GPL-2.0
/*
 * tbcount: a QEMU TCG plugin (plugin API version 1, QEMU 7.2) that counts
 * the guest instructions executed in each translation block of kernel
 * text, and writes "VADDR INSNS" lines at exit to the file named by its
 * argument out=FILE (first a line "dropped N" if its table filled and N
 * blocks went uncounted).  Under -icount an instruction is guest time, so the
 * difference of two runs that differ only in a loop's length is the
 * loop's cost, function by function (harness/prof-switch.sh names them).
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
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
	enum qemu_plugin_op op, void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t, void *), void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

#define SLOTS (1u << 20)
#define KERNEL_TEXT 0xffffffff80000000ULL

struct slot {
	uint64_t key;		/* vaddr, and the block's length on top */
	uint64_t insns;
};

static struct slot *table;
static const char *out = "tbcount.out";

static uint32_t used, dropped;

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
	if (va < KERNEL_TEXT)
		return;
	/* The same block may be translated again with another length. */
	s = slot_for((va & 0xffffffffffffULL) | (n << 48));
	if (!s) {
		dropped++;
		return;
	}
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &s->insns, n);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	FILE *f = fopen(out, "w");
	uint32_t i;

	(void)id;
	(void)p;
	if (!f)
		return;
	if (dropped)
		fprintf(f, "dropped %u\n", dropped);
	for (i = 0; i < SLOTS; i++)
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
	table = calloc(SLOTS, sizeof(*table));
	if (!table)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
