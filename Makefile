# SPDX-License-Identifier: GPL-2.0
#
# rnic - software RDMA NIC. One entry point for everything:
#
#   make          build the module, librnic, the tools, the selftests and
#                 the verbs man pages (installs nothing; stops with "run
#                 make deps" if linux-source-6.1 is missing)
#   make run      install what is missing, build, boot the VM and demo rnic;
#                 then two VMs (two hosts) with rnic talking over a link
#   make check    install what is missing, static checks, unit tests and
#                 every kselftest in the VM; ends with "N passed, N failed"
#   make fuzz     the ioctl/ring fuzzer in the VM: SEED=, ITERS= (default
#                 the short pass of make check), REPLAY=seed:worker:chunk;
#                 MODE=wire: the wire fuzzer instead (mutated RoCEv2
#                 packets from a raw socket), SEED=, PKTS= (default the
#                 short pass of make check)
#                 MODE=cm: the CM char device's fuzzer (SEED=, ITERS=,
#                 REPLAY=); MODE=cm-wire: CM MADs from a raw socket, the
#                 mutation pass PKTS= long (SEED=)
#   make bench    build, then rnic against rdma_rxe in one VM boot: prints the
#                 table, writes bench/results/latest.{md,json}
#                 (tools/dev/bench)
#   make interop  rnic against rdma_rxe and rdma-core's programs over the
#                 wire in the VM (selftests/interop.sh); PARTS= picks parts
#   make stress   the long passes in the VM (fuzzer 1M, kill storm 1000,
#                 churn 10000; tools/dev/stress), under 60 minutes
#   make clean
#   make install  install everything (below); make uninstall removes it
#                 DESTDIR= staging root, PREFIX= (default /usr/local), finer:
#                 bindir sbindir libdir includedir mandir udevdir
#                 INSTALL_MOD_PATH INSTALL_MOD_DIR (tools/install/install)
#   make install-check  staged install, then a verbs program built with
#                 nothing but pkg-config against the stage (make check runs it)
#   make man      only the verbs man pages (man3), from the header's kernel-doc
#   make docs     HTML documentation with Sphinx into build/docs
#   make doc-check  every public function has its kernel-doc comment
#   make dkms-install  rnic.ko for every installed kernel through DKMS;
#                 make dkms-uninstall removes it (tools/install/dkms)
#   make dkms-check  dkms add/build against KVER's headers, in build/dkms
#
# KDIR=    kernel build tree (default: headers of the kernel the VM boots,
#          picked by tools/dev/kver; never the running host kernel)

TOP := $(CURDIR)
BUILD := $(TOP)/build
KVER ?= $(shell $(TOP)/tools/dev/kver)
KDIR ?= /lib/modules/$(KVER)/build

# Files taken from the kernel source (see $(KSRC_STAMP) below). Goals that
# need them stop at once when they are not there and cannot be.
KSRC_STAMP := $(BUILD)/kernel-src/.stamp
KSRC_TAR := $(wildcard /usr/src/linux-source-6.1.tar.*)
KSRC_GOALS := all selftests man docs doc-check install install-check
ifneq ($(filter $(KSRC_GOALS),$(or $(MAKECMDGOALS),all)),)
ifeq ($(wildcard $(KSRC_STAMP))$(KSRC_TAR),)
$(error /usr/src/linux-source-6.1.tar.* is missing: run make deps)
endif
endif

export BUILD

.PHONY: all module userspace tools selftests deps run check bench clean stress
.PHONY: install uninstall install-check man docs doc-check dkms-check
.PHONY: dkms-install dkms-uninstall fuzz interop

all: module userspace tools selftests

module:
	$(MAKE) -C $(KDIR) M=$(TOP) $(if $(W),W=$(W)) $(if $(C),C=$(C)) modules

userspace:
	$(MAKE) -C userspace

tools: userspace
	$(MAKE) -C tools

selftests: userspace tools $(KSRC_STAMP)
	$(MAKE) -C selftests

deps:
	$(TOP)/tools/dev/deps

run: deps
	$(MAKE) all
	$(TOP)/tools/dev/vm/run -- $(TOP)/tools/dev/demo
	@printf '\n# two hosts: tools/dev/vm/run --hosts 2, rnic on each eth0\n'
	$(TOP)/tools/dev/vm/run --hosts 2 -- $(TOP)/tools/dev/demo

check: deps
	$(TOP)/tools/dev/check

# One million operations take 9 to 15 minutes under TCG.
ifeq ($(MODE),cm)
fuzz: all
	$(TOP)/tools/dev/vm/run --timeout $(or $(FUZZ_TIMEOUT),3600) -- env \
		$(if $(SEED),RNIC_CM_FUZZ_SEED=$(SEED)) \
		$(if $(ITERS),RNIC_CM_FUZZ_ITERS=$(ITERS)) \
		$(if $(REPLAY),RNIC_CM_FUZZ_REPLAY=$(REPLAY)) \
		$(BUILD)/selftests/cm_fuzz
else ifeq ($(MODE),cm-wire)
fuzz: all
	$(TOP)/tools/dev/vm/run --timeout $(or $(FUZZ_TIMEOUT),3600) -- env \
		$(if $(SEED),RNIC_CM_WIRE_SEED=$(SEED)) \
		$(if $(PKTS),RNIC_CM_WIRE_PKTS=$(PKTS)) \
		$(BUILD)/selftests/cm_wire
else ifeq ($(MODE),wire)
fuzz: all
	$(TOP)/tools/dev/vm/run --timeout $(or $(FUZZ_TIMEOUT),3600) -- env \
		$(if $(SEED),RNIC_WIRE_FUZZ_SEED=$(SEED)) \
		$(if $(PKTS),RNIC_WIRE_FUZZ_PKTS=$(PKTS)) \
		$(BUILD)/selftests/wire_fuzz
else
fuzz: all
	$(TOP)/tools/dev/vm/run --timeout $(or $(FUZZ_TIMEOUT),3600) -- env \
		$(if $(SEED),RNIC_FUZZ_SEED=$(SEED)) \
		$(if $(ITERS),RNIC_FUZZ_ITERS=$(ITERS)) \
		$(if $(REPLAY),RNIC_FUZZ_REPLAY=$(REPLAY)) \
		$(BUILD)/selftests/fuzz
endif

interop: deps
	$(MAKE) all
	$(TOP)/tools/dev/vm/run --timeout 3000 -- env \
		$(if $(PARTS),INTEROP_PARTS="$(PARTS)") $(TOP)/selftests/run interop

bench: deps
	$(MAKE) all
	$(TOP)/tools/dev/bench/run

stress: deps
	$(MAKE) all
	$(TOP)/tools/dev/stress

# Installation (tools/install): the script reads these from the environment
# (only those that are set: an empty one would hide librnic's defaults).
PREFIX ?= /usr/local
INSTALL_VARS := DESTDIR PREFIX bindir sbindir libdir includedir mandir \
	udevdir INSTALL_MOD_PATH INSTALL_MOD_DIR
$(foreach v,$(INSTALL_VARS),$(if $(value $(v)),$(eval export $(v))))

install: all
	$(TOP)/tools/install/install install

uninstall:
	$(TOP)/tools/install/install uninstall

install-check: all
	$(TOP)/tools/install/check

# Files from the kernel source: kselftest_harness.h for the selftests,
# scripts/kernel-doc for the man pages and the verbs reference. make
# extracts them (tools/dev/kernel-src, once, about 20 s) but never installs
# a package: without linux-source-6.1 it stops at once with "run make deps".
KERNEL_DOC := $(BUILD)/kernel-src/scripts/kernel-doc
$(KSRC_STAMP): $(KSRC_TAR) $(TOP)/tools/dev/kernel-src
	$(TOP)/tools/dev/kernel-src
	touch $@

# Built by make (as the user), so that sudo make install writes nothing here.
all: man
PUBLIC_HEADERS := $(wildcard $(TOP)/userspace/include/*/*.h)
man: $(BUILD)/man/man3/.stamp
$(BUILD)/man/man3/.stamp: $(PUBLIC_HEADERS) $(TOP)/tools/install/man3 \
		$(TOP)/userspace/Makefile $(KSRC_STAMP)
	$(TOP)/tools/install/man3 $(@D) $(PUBLIC_HEADERS)
	touch $@

docs: $(KSRC_STAMP)
	sphinx-build -q -W --keep-going -b html -d $(BUILD)/docs/.doctrees \
		$(TOP)/Documentation $(BUILD)/docs

doc-check: userspace $(KSRC_STAMP)
	$(TOP)/tools/install/doc-check $(KERNEL_DOC) \
		$(BUILD)/lib/librnic.so.1 $(PUBLIC_HEADERS)

dkms-install:
	$(TOP)/tools/install/dkms install

dkms-uninstall:
	$(TOP)/tools/install/dkms uninstall

dkms-check: module
	$(TOP)/tools/install/dkms-check

clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) clean
	$(MAKE) -C userspace clean
	$(MAKE) -C tools clean
	$(MAKE) -C selftests clean
	rm -rf $(BUILD)
