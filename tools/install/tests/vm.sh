#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The VM half of the staged install test (make check; or by hand:
# make install-check && tools/dev/vm/run -- selftests/run install): the staged
# rnic tool creates a device, the verbs program built against the staged
# librnic runs on it with the staged library, rnic-devinfo from the stage
# lists it, and udevadm test shows what the staged udev rule does.
# TAP output; exit status 1 if any test failed.

top=${RNIC_TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
stage=$top/build/install/stage
prog=$top/build/install/staged
dev=rnicinst0
rule=$stage/lib/udev/rules.d/60-rnic.rules

n=0
failed=0
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
notok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	[ -s /tmp/rnic-install.out ] && sed 's/^/# /' /tmp/rnic-install.out
}
# t NAME COMMAND...: one test.
t() {
	name=$1
	shift
	if "$@" >/tmp/rnic-install.out 2>&1; then ok "$name"; else notok "$name"; fi
}

if [ ! -x "$prog" ] || [ ! -d "$stage" ]; then
	echo "not ok 1 - staged install present (run make install-check first)"
	exit 1
fi

# Only the stage: not the build tree's library or tools.
staged() {
	LD_LIBRARY_PATH=$stage/usr/lib PATH=$stage/usr/sbin:$stage/usr/bin:/usr/bin:/bin "$@"
}

uses_stage() {
	staged ldd "$prog" | grep -q "librnic\.so\.1 => $stage/usr/lib/librnic\.so\.1"
}

run_program() {
	staged "$prog" "$dev" && grep -q "RDMA WRITE of 4096 bytes verified" /tmp/rnic-install.out
}

# udevadm test applies the staged rule (from /run/udev/rules.d, the VM's
# tmpfs) to the device: mode 0666 and the by-ibdev link, as rdma-core's
# devices get; a device of another subsystem does not match.
udev_rule() {
	mkdir -p /run/udev/rules.d && cp "$rule" /run/udev/rules.d/ &&
		udevadm test --action=add "/sys/class/rnic/$dev" >/tmp/rnic-udev.out 2>&1
	st=$?
	rm -f /run/udev/rules.d/60-rnic.rules
	uv=$(cat "/sys/class/rnic/$dev/uverbs")
	[ $st -eq 0 ] &&
		grep -q "60-rnic.rules:[0-9]* MODE 0666" /tmp/rnic-udev.out &&
		grep -qx "DEVNAME=/dev/infiniband/$uv" /tmp/rnic-udev.out &&
		grep -qx "DEVMODE=0666" /tmp/rnic-udev.out &&
		grep -q "DEVLINKS=.*/dev/infiniband/by-ibdev/uverbs-$dev" /tmp/rnic-udev.out &&
		[ "$(stat -c %a "/dev/infiniband/$uv")" = 666 ] ||
		{ tail -n 20 /tmp/rnic-udev.out; return 1; }
}

udev_other() {
	mkdir -p /run/udev/rules.d && cp "$rule" /run/udev/rules.d/ &&
		udevadm test --action=add /sys/class/mem/null >/tmp/rnic-udev.out 2>&1
	st=$?
	rm -f /run/udev/rules.d/60-rnic.rules
	# The rule was read, and none of its lines applied.
	[ $st -eq 0 ] && grep -q "rules file: .*/60-rnic.rules" /tmp/rnic-udev.out &&
		! grep -q "60-rnic.rules:[0-9]" /tmp/rnic-udev.out ||
		{ tail -n 20 /tmp/rnic-udev.out; return 1; }
}

t "staged rnic link add $dev" staged rnic link add "$dev"
t "the program resolves librnic.so.1 to the stage" uses_stage
t "staged verbs program: open, query, PD, MR, CQ, RC QP, RDMA WRITE verified" run_program
t "staged rnic-devinfo lists $dev" sh -c "LD_LIBRARY_PATH=$stage/usr/lib $stage/usr/bin/rnic-devinfo -d $dev | grep -q 'hca_id:.*$dev'"
if command -v udevadm >/dev/null; then
	t "udev rule: $dev's node gets mode 0666 and its by-ibdev link" udev_rule
	t "udev rule: another subsystem's device does not match" udev_other
else
	ok "udev rule # SKIP no udevadm"
fi
t "staged rnic link del $dev" staged rnic link del "$dev"
echo "1..$n"
[ $failed -eq 0 ]
