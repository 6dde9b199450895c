# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# TAP for the shell tests of the tools and the selftests, sourced as
# . "$(dirname "$0")/../../lib/tap.sh" from tools/NAME/tests/ (or with the
# path from the top of the tree). Counts in $n and $failed; a test script
# ends with tap_end, which prints the plan and is its exit status.

n=0
failed=0

# ok STATUS NAME: test NAME passed if STATUS is 0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

# skip NAME WHY: test NAME did not run, for WHY
skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

# check_run NAME CONDITION...: test NAME passed if the shell condition
# (evaluated) holds; else the last run's $rc, $out and $err are shown
check_run() {
	local name=$1
	shift
	if eval "$*"; then
		ok 0 "$name"
	else
		printf '# rc=%s\n# stdout: %s\n# stderr: %s\n' "$rc" "$out" "$err"
		ok 1 "$name"
	fi
}

# tap_end: the plan; status 1 if a test failed
tap_end() {
	echo "1..$n"
	[ "$failed" = 0 ]
}
