# SPDX-License-Identifier: GPL-2.0
#
# rnic - software RDMA NIC. One entry point for everything:
#
#   make          build the module, librnic, the tools and the selftests
#   make run      install what is missing, build, boot the VM and demo rnic
#   make check    install what is missing, static checks, unit tests and
#                 every kselftest in the VM; ends with "N passed, N failed"
#   make fuzz     the ioctl/ring fuzzer in the VM: SEED=, ITERS= (default
#                 the short pass of make check), REPLAY=seed:worker:chunk
#   make clean
#
# KDIR=    kernel build tree (default: headers of the kernel the VM boots,
#          picked by tools/kver; never the running host kernel)

TOP := $(CURDIR)
BUILD := $(TOP)/build
KVER ?= $(shell $(TOP)/tools/kver)
KDIR ?= /lib/modules/$(KVER)/build

export BUILD

.PHONY: all module userspace tools selftests deps run check clean fuzz

all: module userspace tools selftests

module:
	$(MAKE) -C $(KDIR) M=$(TOP) $(if $(W),W=$(W)) $(if $(C),C=$(C)) modules

userspace:
	$(MAKE) -C userspace

tools: userspace
	$(MAKE) -C tools

selftests: userspace tools
	$(MAKE) -C selftests

deps:
	$(TOP)/tools/deps

run: deps
	$(MAKE) all
	$(TOP)/tools/vm/run -- $(TOP)/tools/demo

check: deps
	$(TOP)/tools/check

# One million operations take about 15 minutes under TCG.
fuzz: all
	$(TOP)/tools/vm/run --timeout $(or $(FUZZ_TIMEOUT),3600) -- env \
		$(if $(SEED),RNIC_FUZZ_SEED=$(SEED)) \
		$(if $(ITERS),RNIC_FUZZ_ITERS=$(ITERS)) \
		$(if $(REPLAY),RNIC_FUZZ_REPLAY=$(REPLAY)) \
		$(BUILD)/selftests/fuzz

clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) clean
	$(MAKE) -C userspace clean
	$(MAKE) -C tools clean
	$(MAKE) -C selftests clean
	rm -rf $(BUILD)
