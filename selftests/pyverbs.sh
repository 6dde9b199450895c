#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rdma-core's own test suite (Debian's python3-pyverbs ships it in
# /usr/share/doc/rdma-core/tests) on rnic0 under rnic-run, then on rxe0,
# in the same VM boot (tools/dev/vm/run -- selftests/run pyverbs).
#
# rnic0 and rxe0 are bound to the two ends of a veth pair in the initial
# namespace (rxe's socket lives there). Each suite talks to its own device
# (the tests connect a device to itself), rnic's through rnic's compat
# libibverbs.so.1, rxe's through Debian's libibverbs and its rxe provider.
#
# The suite finds a device's IP address through sysfs
# (/sys/class/infiniband/DEV/device/net/), which only a PCI NIC has; without
# it every rdmacm test (test_rdmacm) skips with "Device DEV doesn't have
# net interface". pyverbs_netdevs.py runs run_tests.py with that one
# discovery step answered from PYVERBS_NETDEVS (rnic0=pv1 rxe0=pv0, the
# netdevs they are bound to), the test code unchanged; so pyverbs' cmid
# module talks to rnic's compat librdmacm.so.1 under rnic-run, and to
# Debian's librdmacm and the kernel's rdma_cm on rxe0.
#
# TAP, three lines:
#   1. rnic0: ok when no test fails or errs but those named in KNOWN below,
#      each explained in Documentation/userspace-guide.rst ("rdma-core's
#      test suite"); the counts are printed next to rxe's.
#   2. no test that passes on rxe0 fails on rnic0 (such tests are named).
#   3. rxe0: informational; rxe's own failures do not fail this script
#      (it is the yardstick, not the subject), its counts are printed.
# Skips are fine: a test skips for a feature the device does not have.
# PYVERBS_FILTER="test_mr test_qp" runs only those modules (run_tests.py
# takes module or test names); PYVERBS_SHOW=1 prints rnic0's whole log
# (else its last 40 lines when it failed). Exit status 1 if the rnic0
# suite failed.

export LC_ALL=C	# one collation for sort, comm and join
dir=$(cd "$(dirname "$0")" && pwd)
top=${RNIC_TOP:-$(cd "$dir/.." && pwd)}
suite=/usr/share/doc/rdma-core/tests
py=/usr/bin/python3
rnic_run=$top/build/bin/rnic-run
# seconds a suite may run (the whole of it takes about 60 s on a device
# under TCG, test_rdmacm 13 s of it)
limit=${PYVERBS_LIMIT:-600}
# Failures of rnic0 that are understood (module.Class.test): none today.
KNOWN=""
tmp=$(mktemp -d) || exit 1
. "$top/tools/lib/tap.sh"

cleanup() {
	rdma link del rxe0 2>/dev/null
	rnic link del rnic0 2>/dev/null
	ip link del pv0 2>/dev/null
	[ -n "${rxe_loaded_here:-}" ] && modprobe -r rdma_rxe 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# result NAME [WHY]: test NAME, failed with WHY if WHY is not empty
result() {
	ok "$([ -z "${2:-}" ]; echo $?)" "$1"
	[ -z "${2:-}" ] || echo "# $2"
}

# results LOG: "module.Class.test RESULT" for each test of a unittest -v
# log, sorted by name. unittest prints "NAME (ID) ... RESULT", or, for a
# test with a docstring, "NAME (ID)" and the result after the docstring's
# first line. What a test's processes print comes between the " ... " and
# the result (the rdmacm tests print "Player passive got: ..." and then
# ERROR on a line of its own), so the result is the first text after the
# " ... " that is one.
results() {
	awk 'function result(r) {
		if (r ~ /^(ok|FAIL|ERROR|expected failure|unexpected success)$/ ||
		    r ~ /^skipped /) {
			print id, r; id = ""; wait = 0; return 1 }
		return 0 }
	     wait && result($0) { next }
	     /^test[^ ]* \([^)]*\)/ { id = $2; gsub(/[()]/, "", id); wait = 0 }
	     / \.\.\. / && id != "" {
		r = $0; sub(/.* \.\.\. /, "", r); if (!result(r)) wait = 1 }' \
		"$1" | sort -k1,1
}

# counts RESULTS: "P passed, F failed, E errors, S skipped"
counts() {
	awk '$2 == "ok" { p++ } $2 == "FAIL" { f++ } $2 == "ERROR" { e++ }
	     $2 == "skipped" { s++ }
	     END { printf "%d passed, %d failed, %d errors, %d skipped\n",
		   p, f, e, s }' "$1"
}

# named RESULTS WORD...: the tests whose result is one of WORDs
named() {
	f=$1
	shift
	for w in "$@"; do
		awk -v w="$w" '$2 == w { print $1 }' "$f"
	done | sort -u
}

# run_suite DEV LOG [WRAPPER]: the suite on DEV, its -v output in LOG
run_suite() {
	(cd "$tmp" && PYVERBS_NETDEVS="rnic0=pv1 rxe0=pv0" timeout $limit $3 \
		$py "$dir/pyverbs_netdevs.py" tests/run_tests.py -v --dev "$1" \
		${PYVERBS_FILTER:-}) >"$2" 2>&1
}

echo "TAP version 13"
if [ ! -f $suite/run_tests.py ] || ! $py -c 'import pyverbs' 2>/dev/null; then
	echo "1..0 # SKIP python3-pyverbs is not installed (make deps)"
	exit 0
fi

# The suite as a package: Debian compresses the larger modules.
cp -r $suite "$tmp/tests" && gunzip -q "$tmp"/tests/*.gz || {
	echo "not ok 1 - copy rdma-core's test suite"
	exit 1
}

[ -d /sys/module/rdma_rxe ] || rxe_loaded_here=1
if ! ip link add pv0 type veth peer name pv1 ||
	! ip addr add 10.79.0.1/24 dev pv0 ||
	! ip addr add 10.79.0.2/24 dev pv1 ||
	! ip link set pv0 up || ! ip link set pv1 up ||
	! modprobe rdma_rxe ||
	! rdma link add rxe0 type rxe netdev pv0 ||
	! rnic link add rnic0 netdev pv1; then
	echo "not ok 1 - set up rnic0 and rxe0 on a veth pair"
	exit 1
fi
# until rxe0 has the IPv4 address's GID (the suite picks a RoCEv2 GID;
# rnic0 has its GIDs when rnic link add returns)
for i in $(seq 50); do
	grep -qs ':0a4f:' /sys/class/infiniband/rxe0/ports/1/gids/* && break
	sleep 0.1
done

start=$(date +%s)
run_suite rnic0 "$tmp/rnic.log" "$rnic_run"
rnic_rc=$?
rnic_s=$(($(date +%s) - start))
start=$(date +%s)
run_suite rxe0 "$tmp/rxe.log"
rxe_rc=$?
rxe_s=$(($(date +%s) - start))

results "$tmp/rnic.log" >"$tmp/rnic.all"
results "$tmp/rxe.log" >"$tmp/rxe.all"
echo "# rnic0: $(counts "$tmp/rnic.all") in $rnic_s s (status $rnic_rc)"
echo "# rxe0:  $(counts "$tmp/rxe.all") in $rxe_s s (status $rxe_rc)"

named "$tmp/rnic.all" FAIL ERROR >"$tmp/bad"
unexplained=
for t in $(cat "$tmp/bad"); do
	case " $KNOWN " in
	*" $t "*) echo "# known: $t" ;;
	*) unexplained="$unexplained $t" ;;
	esac
done
why=
if [ $rnic_rc -ne 0 ] && [ ! -s "$tmp/bad" ]; then
	why="the suite ended with status $rnic_rc"
elif [ -n "$unexplained" ]; then
	why="failed:$unexplained"
elif ! grep -q '^Ran [1-9]' "$tmp/rnic.log"; then
	why="the suite ran no test"
fi
result "rdma-core's test suite on rnic0: $(counts "$tmp/rnic.all")" "$why"
if [ -n "${PYVERBS_SHOW:-}" ]; then
	sed "s/^/# rnic.log: /" "$tmp/rnic.log"
elif [ -n "$why" ]; then
	tail -n 40 "$tmp/rnic.log" | sed "s/^/# rnic.log: /"
fi

# what rxe passes and rnic fails
named "$tmp/rxe.all" ok >"$tmp/rxe.ok"
worse=$(comm -12 "$tmp/rxe.ok" "$tmp/bad" | tr '\n' ' ')
result "no test that passes on rxe0 fails on rnic0" "${worse:+failed: $worse}"

# what rxe passes and rnic does not (skips), with rnic's outcome
join "$tmp/rnic.all" "$tmp/rxe.ok" | grep -v '^[^ ]* ok$' |
	sed 's/^/# passes on rxe0, on rnic0: /'

# why rnic0 skips, the ten most frequent reasons
awk '$2 == "skipped" { $1 = $2 = ""; print substr($0, 3, 70) }' \
	"$tmp/rnic.all" | sort | uniq -c | sort -rn | head -n 10 |
	sed 's/^/# rnic0 skips: /'

# the yardstick, for the record: rxe's failures are named, not counted
named "$tmp/rxe.all" FAIL ERROR | sed 's/^/# rxe0 fails: /'
ok 0 "rdma-core's test suite on rxe0: $(counts "$tmp/rxe.all")"
tap_end
