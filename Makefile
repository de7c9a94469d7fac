# SCHED_DEADLINE and the component framework, written anew for Linux 6.12
# and proven in QEMU beside the tree's own implementation.  See README.md.
#
#   make run           build and boot ours, run the demonstration
#   make test          every test on both kernels; ends with "N passed, N failed"
#                      [KERNELS=fixed: the tree with patches/classic-fixes]
#   make boot          boot one kernel: KERNEL=stock|ours [ADD=DIR] [RUN='cmd']
#   make bench         the component and SCHED_DEADLINE benchmarks, stock and ours
#   make bench-dl      the SCHED_DEADLINE benchmark alone
#   make prof-switch   the switch figure's guest time, function by function
#   make gedf-compare  global EDF's misses and tardiness, ours against stock
#   make fuzz          the differential fuzzer of the scheduling ABI [SMP=2]
#   make stress        deadline tasks, CPU hotplug and cpusets on the debug kernels
#   make mutants       deliberate defects in ours, each must fail a test [MUTANTS=a,b]
#   make cover         compile the tree's component users against ours
#   make matrix        build ours's kernel/sched in UP, PREEMPT_RT, ... [MATRIX=up,...]
#   make check         checkpatch --strict on every patch [BISECT=1: build each prefix]
#   make dev-tree      the series as git commits in a worktree, to edit [FORCE=1]
#   make export        write the dev tree's commits back as patches/
#   make install       the tools and their man pages [PREFIX=/usr/local DESTDIR=]
#   make deb           Debian packages into out/deb/: make deb-tools and deb-kernel
#   make deb-tools     the tools' package, dlk-tools
#   make deb-kernel    ours's kernel package (bindeb-pkg) [KCONFIG=/boot/config-...]
#   make deps          install what the harness needs with apt-get
#   make tree          extract the tree and apply the series, in the cache
#   make kernels       build the kernels [KERNELS="stock ours"] [DEBUG=1]
#   make guest         build the guest programs, the tools and the host tests
#   make initramfs     pack the guest's initramfs
#   make clean         remove out/
#   make distclean     remove out/ and the cache (~/.cache/dlk)
#   make help          this list (what make and make all print too)

SHELL := /bin/sh

KERNEL ?= ours
KERNELS ?= stock ours
DEBUG ?= 0
SMP ?=
ICOUNT ?=
SUITE ?=
TIMEOUT ?=
ADD ?=
RUN ?=
FORCE ?= 0
BISECT ?= 0
MATRIX ?=
FUZZ_OPS ?= 1000000
FUZZ_SEED ?= 1
STRESS_SECONDS ?= 600
MUTANTS ?=
MUTANT_JOBS ?= 1
MUTANT_BASELINE ?= 0
comma := ,

OUT := $(or $(DLK_OUT),$(CURDIR)/out)
export DLK_OUT := $(OUT)
export DEBUG SMP ICOUNT SUITE TIMEOUT
# Passed to the scripts explicitly, quoted: never through make's
# environment, where make would expand them.
unexport RUN ADD

CC := gcc
GUEST_CFLAGS := -static -O2 -Wall -Wextra -Werror -Itests/lib -Itools/lib
# dlbench's marker function at an address no other guest program uses
# (tests/bench/dlbench.c: dlk_mark(); harness/tbcount.c: mark=).
BENCH_LDFLAGS := -Wl,--section-start=.dlk_mark=0x10000000
HOST_CFLAGS := -O2 -Wall -Wextra -Werror

# The sched_setattr ABI and the bandwidth readers: the tools' library
# (tools/lib), which tests/lib/dl.h includes.
ABI_LIB := tools/lib/dlabi.c tools/lib/dlabi.h tools/lib/dlbw.c tools/lib/dlbw.h
TEST_LIB := $(wildcard tests/lib/*.c) $(wildcard tests/lib/*.h) $(ABI_LIB)
GUEST_PROGS := $(patsubst tests/guest/%.c,$(OUT)/guest/bin/%,$(wildcard tests/guest/*.c))
SELFTEST_ROOT := $(OUT)/selftest/root
SELFTEST_PROGS := $(patsubst harness/selftest/%.c,$(SELFTEST_ROOT)/tests/bin/%,\
		  $(wildcard harness/selftest/*.c))
KTAPSUM := $(OUT)/host/ktapsum
# The toolkit (tools/NAME/, the library tools/lib; tools/Makefile builds
# it for the host and installs it): static for the guest, in its
# /usr/local/bin; dlchart also for the host, which draws the
# demonstration's chart.
TOOL_NAMES := dlctl dlgen dlchart
TOOL_LIB := $(wildcard tools/lib/*.c) $(wildcard tools/lib/*.h)
TOOLS := $(patsubst %,$(OUT)/tools/bin/%,$(TOOL_NAMES))
HOST_TOOLS := $(OUT)/host/dlchart
# A tool's rule: its directory's sources and the library's.
TOOL_SRC = $$(wildcard tools/$$*/*.c) $$(wildcard tools/$$*/*.h) $(TOOL_LIB)
TOOL_CFLAGS = -Itools/lib -o $@ $(filter %.c,$^) -lm
# The tools' modules without their main()s, for the host suites.
TOOL_MODULES := $(filter-out tools/lib/% $(foreach t,$(TOOL_NAMES),tools/$(t)/$(t).c),\
		$(wildcard tools/*/*.c))
# Host suites (tests/host/*.c): the tools that run on the host, tested there;
# linked with the toolkit's modules and library, whose functions they may
# call (as "dlctl/rd.h", "units.h").  A suite in sh (tests/host/*.sh) is
# run from the checkout, by a two-line program of the same name.
HOST_TESTS := $(patsubst tests/host/%.c,$(OUT)/host/tests/%,$(wildcard tests/host/*.c)) \
	      $(patsubst tests/host/%.sh,$(OUT)/host/tests/%,$(wildcard tests/host/*.sh))
INITRD := $(OUT)/base.cpio

.PHONY: all help deps tree kernels guest initramfs test boot run bench cover check \
	bench-dl gedf-compare prof-switch fuzz stress mutants matrix dev-tree export \
	install deb deb-tools deb-kernel clean distclean

all: help

# help prints the comment block at the top of this file, every line of
# it up to the first that is not a comment: each .PHONY target has its
# line there (harness/selftest.sh checks it).
help:
	@sed -n '/^#/!q; s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

deps:
	@sh harness/deps.sh $(DEPS_GROUPS)

# make test's host suite "package" builds the tools' package and checks it
# with lintian: the packaging tools are its dependencies too.
test: DEPS_GROUPS = deb

tree: deps
	@sh harness/tree.sh
	@case " $(KERNELS) " in *" fixed "*) sh harness/tree.sh fixed ;; esac

kernels: tree
	@for k in $(KERNELS); do sh harness/build-kernel.sh $$k $(DEBUG) || exit 1; done

# Guest programs: static, so the initramfs needs no libraries.
$(OUT)/guest/bin/%: tests/guest/%.c $(TEST_LIB)
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $< $(filter %.c,$(TEST_LIB)) -lm -lpthread

# $$* in TOOL_SRC: the tool's name, once the rule matches.
.SECONDEXPANSION:
$(TOOLS): $(OUT)/tools/bin/%: $(TOOL_SRC)
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) $(TOOL_CFLAGS)

$(HOST_TOOLS): $(OUT)/host/%: $(TOOL_SRC)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(TOOL_CFLAGS)

$(OUT)/host/tests/%: tests/host/%.c tests/lib/tap.c tests/lib/tap.h $(TOOL_LIB) \
		$(TOOL_MODULES) $(wildcard tools/*/*.h)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Itests/lib -Itools -Itools/lib -o $@ $< \
		tests/lib/tap.c $(filter %.c,$(TOOL_LIB)) $(TOOL_MODULES) -lm

$(OUT)/host/tests/%: tests/host/%.sh
	@mkdir -p $(@D)
	printf '#!/bin/sh\nDLK_TOP="%s" exec sh "%s" "$$@"\n' '$(CURDIR)' '$(CURDIR)/$<' >$@
	chmod +x $@

$(SELFTEST_ROOT)/tests/bin/%: harness/selftest/%.c $(TEST_LIB)
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $< $(filter %.c,$(TEST_LIB)) -lm -lpthread

$(SELFTEST_ROOT)/etc/dlk/suites: harness/selftest/suites
	@mkdir -p $(@D)
	cp $< $@

$(KTAPSUM): harness/ktapsum.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -o $@ $<

$(INITRD): $(GUEST_PROGS) $(TOOLS) tests/guest/suites harness/init \
	  harness/mkinitramfs.sh harness/lib.sh /bin/busybox
	sh harness/mkinitramfs.sh $@ tests/guest/suites $(GUEST_PROGS) -- $(TOOLS)

guest: $(GUEST_PROGS) $(SELFTEST_PROGS) $(SELFTEST_ROOT)/etc/dlk/suites \
	$(KTAPSUM) $(TOOLS) $(HOST_TOOLS) $(HOST_TESTS)

initramfs: $(INITRD)

# deps first: on a fresh machine it installs the compilers the rest needs.
test: deps
	@$(MAKE) --no-print-directory guest initramfs
	@KERNELS="$(KERNELS)" INITRD=$(INITRD) KTAPSUM=$(KTAPSUM) \
		SELFTEST_ADD=$(SELFTEST_ROOT) HOST_TESTS="$(HOST_TESTS)" \
		DLCHART=$(OUT)/host/dlchart sh harness/test.sh

# make can only exit 0 or 2: harness/make-boot.sh, run directly with the
# same variables, exits with the command's own status.  $(value RUN) keeps
# make from expanding a '$' in the command.
boot: deps
	@$(MAKE) --no-print-directory kernels initramfs KERNELS=$(KERNEL)
	@DLK_PREPARED=1 KERNEL=$(KERNEL) INITRD=$(INITRD) ADD="$(ADD)" \
		RUN='$(subst ','\'',$(value RUN))' sh harness/make-boot.sh

run: deps
	@$(MAKE) --no-print-directory kernels guest initramfs KERNELS=$(KERNEL)
	@KERNEL=$(KERNEL) INITRD=$(INITRD) DLCHART=$(OUT)/host/dlchart \
		sh harness/run.sh

$(OUT)/bench/bin/%: tests/bench/%.c $(TEST_LIB)
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) $(BENCH_LDFLAGS) -o $@ $< \
		$(filter %.c,$(TEST_LIB)) -lm -lpthread

# Both benchmarks: the component framework's, then SCHED_DEADLINE's.
bench: deps
	@$(MAKE) --no-print-directory kernels initramfs $(OUT)/bench/bin/dlbench
	@INITRD=$(INITRD) sh harness/bench.sh
	@INITRD=$(INITRD) DLBENCH=$(OUT)/bench/bin/dlbench sh harness/bench-dl.sh

bench-dl: deps
	@$(MAKE) --no-print-directory kernels initramfs $(OUT)/bench/bin/dlbench
	@INITRD=$(INITRD) DLBENCH=$(OUT)/bench/bin/dlbench sh harness/bench-dl.sh

# Global EDF's misses and tardiness on several vCPUs, ours against stock
# (medians of the gedf suite's counted runs; issue 5's acceptance).
gedf-compare: deps
	@$(MAKE) --no-print-directory kernels initramfs
	@INITRD=$(INITRD) SMP=$(or $(SMP),2) sh harness/gedf-compare.sh

prof-switch: deps
	@$(MAKE) --no-print-directory kernels initramfs $(OUT)/bench/bin/dlbench
	@INITRD=$(INITRD) DLBENCH=$(OUT)/bench/bin/dlbench sh harness/prof-switch.sh

# The same seeded sequence of scheduling calls on both kernels (one vCPU
# under -icount); the first divergence, shrunk.  harness/fuzz.sh.
fuzz: deps
	@$(MAKE) --no-print-directory kernels initramfs
	@INITRD=$(INITRD) FUZZ_OPS=$(FUZZ_OPS) FUZZ_SEED=$(FUZZ_SEED) \
		sh harness/fuzz.sh

# Hundreds of deadline tasks while CPUs go offline and online and cpuset
# partitions come and go, STRESS_SECONDS of guest time on each kernel
# (the debug variants unless DEBUG=0; SMP=4 unless SMP=).  harness/stress.sh.
stress: deps
	@$(MAKE) --no-print-directory guest initramfs
	@INITRD=$(INITRD) KTAPSUM=$(KTAPSUM) KERNELS="$(KERNELS)" \
		DEBUG=$(if $(filter command line,$(origin DEBUG)),$(DEBUG),1) \
		SMP=$(or $(SMP),4) STRESS_SECONDS=$(STRESS_SECONDS) \
		sh harness/stress.sh

# Each diff of tests/mutants/ applied to ours, built and run against the
# suites its header names: it must fail one.  harness/mutants.sh.
mutants: deps
	@$(MAKE) --no-print-directory kernels guest initramfs KERNELS=ours
	@INITRD=$(INITRD) KTAPSUM=$(KTAPSUM) MUTANTS=$(MUTANTS) \
		MUTANT_JOBS=$(MUTANT_JOBS) MUTANT_BASELINE=$(MUTANT_BASELINE) \
		sh harness/mutants.sh

cover: deps
	@$(MAKE) --no-print-directory kernels
	@sh harness/cover.sh

# The configurations of configs/matrix/, or those MATRIX names.
matrix: tree
	@sh harness/matrix.sh $(subst $(comma), ,$(MATRIX))

check: deps tree
	@BISECT=$(BISECT) sh harness/check.sh

dev-tree: deps
	@sh harness/series.sh dev $(FORCE)

export:
	@sh harness/series.sh export

# The toolkit for this machine, dynamically linked, with its manual pages:
# PREFIX=/usr/local DESTDIR= (tools/Makefile).
install:
	@$(MAKE) --no-print-directory -C tools install

# Debian packages into $(OUT)/deb: the toolkit's, dlk-tools (dpkg-deb,
# checked by lintian: tools/debian/mkdeb.sh), and ours as a kernel
# package, by the tree's bindeb-pkg, from the harness's build of ours in
# its lean configuration, or of KCONFIG=/boot/config-... in a build of
# its own (harness/deb-kernel.sh).
KCONFIG ?=
deb: deb-tools deb-kernel

deb-tools:
	@sh harness/deps.sh deb
	@$(MAKE) --no-print-directory -C tools deb

deb-kernel:
	@sh harness/deps.sh deb
	@$(if $(KCONFIG),$(MAKE) --no-print-directory tree,\
		$(MAKE) --no-print-directory kernels KERNELS=ours DEBUG=0)
	@sh harness/deb-kernel.sh $(abspath $(KCONFIG))

clean:
	rm -rf $(OUT)

distclean: clean
	@sh -c '. "$$0"; echo "removing $$DLK_CACHE"; rm -rf "$$DLK_CACHE"' harness/lib.sh
