#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# End-to-end tests of rnic-perf, as root inside the VM with rnic.ko loaded:
#   tools/dev/vm/run -- selftests/run perf
# Every test once on rnic (server and client on one device over lo), the
# table and --json checked, the options that change the data path (-e,
# --poll, -q, -a, -D, -I), a mismatch between the sides; then the
# rdma-core build on rdma_rxe (skipped if rdma_rxe cannot be loaded).
# Option checks are in cli.sh, on the host. Leaves no device behind. TAP.

# $PERF and $prog may be a command with arguments (env -u ...).
# shellcheck disable=SC2086

PERF=${PERF:-rnic-perf}
top=${RNIC_TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
PERF_RDMA_CORE=${PERF_RDMA_CORE:-$top/build/rdma-core/rnic-perf}
dev=perf0
rxe=perfrxe0
tmp=$(mktemp -d) || exit 1

n=0
failed=0

cleanup() {
	rnic link del $dev 2>/dev/null
	rdma link del $rxe 2>/dev/null
	ip link del perfa 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

last=$(date +%s)
result() {
	n=$((n + 1))
	now=$(date +%s)
	if [ -z "$1" ]; then
		echo "ok $n - $2"
		echo "# $((now - last)) s"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
		echo "# $1"
		for f in "$tmp/srv.out" "$tmp/srv.err" "$tmp/cli.out" \
			 "$tmp/cli.err"; do
			[ -s "$f" ] && sed "s|^|# ${f##*/}: |" "$f"
		done
	fi
	last=$now
}

# The rows of a table: the lines between the column titles and the rule.
rows() {
	awk '/#bytes/ { on = 1; next } /^---/ { on = 0 } on' "$1"
}

# check_rows FILE KIND SIZES ITERS: every row has the columns of KIND (bw
# or lat), positive numbers, the expected sizes in order and, unless
# ITERS is "any", that many iterations. Prints what is wrong.
check_rows() {
	rows "$1" | awk -v kind="$2" -v sizes="$3" -v iters="$4" '
		BEGIN { want = split(sizes, s, " ") }
		{
			got++
			cols = kind == "bw" ? 5 : 9
			if (NF != cols) { print "row " got ": " NF " columns"; exit }
			if ($1 != s[got]) { print "row " got ": size " $1; exit }
			if (iters != "any" && $2 != iters) {
				print "row " got ": " $2 " iterations"; exit
			}
			for (i = 2; i <= NF; i++)
				if (!($i + 0 > 0)) {
					print "row " got ": column " i " is " $i
					exit
				}
			# t_min <= t_typical <= t_max, t_min <= p99 <= p99.9
			if (kind == "lat" && !($3 <= $5 && $5 <= $4 &&
			    $3 <= $8 && $8 <= $9 && $9 <= $4)) {
				print "row " got ": latencies out of order"
				exit
			}
		}
		END { if (got != want) print got " rows, want " want }'
}

# pair [-x PROG] ARGS...: run PROG (default rnic-perf) ARGS as server and
# PROG ARGS HOST as client. Sets $why to what went wrong.
host=127.0.0.1
pair() {
	prog=$PERF
	if [ "$1" = -x ]; then
		prog=$2
		shift 2
	fi
	timeout 120 $prog "$@" >"$tmp/srv.out" 2>"$tmp/srv.err" &
	spid=$!
	timeout 120 $prog "$@" $host >"$tmp/cli.out" 2>"$tmp/cli.err"
	crc=$?
	wait $spid
	src=$?
	why=
	[ $crc -eq 0 ] || why="client exit $crc"
	[ $src -eq 0 ] || why="$why; server exit $src"
}

# perf_test NAME KIND SIZES ITERS ARGS...: a run whose tables must hold
# the expected rows, the same on both sides.
perf_test() {
	name=$1 kind=$2 sizes=$3 iters=$4
	shift 4
	pair "$@"
	if [ -z "$why" ]; then
		why=$(check_rows "$tmp/cli.out" "$kind" "$sizes" "$iters")
		rows "$tmp/cli.out" >"$tmp/cli.rows"
		rows "$tmp/srv.out" >"$tmp/srv.rows"
		cmp -s "$tmp/cli.rows" "$tmp/srv.rows" ||
			why="$why; the server's rows differ"
	fi
	result "$why" "$name"
}

# fails NAME STATUS STDERR_REGEX ARGS...: rnic-perf ARGS exits STATUS at
# once, saying STDERR_REGEX.
fails() {
	name=$1 want=$2 pat=$3
	shift 3
	timeout 20 $PERF "$@" >"$tmp/cli.out" 2>"$tmp/cli.err"
	got=$?
	why=
	[ $got -eq "$want" ] || why="exit $got, want $want"
	grep -q -e "$pat" "$tmp/cli.err" || why="$why; stderr lacks '$pat'"
	: >"$tmp/srv.out"
	: >"$tmp/srv.err"
	result "$why" "$name"
}

ip link set lo up
rnic link add $dev netdev lo || { echo "Bail out! rnic link add $dev"; exit 1; }

perf_test "write_bw" bw 65536 200 write_bw -d $dev -n 200 \
	--json "$tmp/bw.json"
perf_test "write_lat" lat 2 100 write_lat -d $dev -n 100
perf_test "read_bw" bw 65536 200 read_bw -d $dev -n 200
perf_test "read_lat" lat 2 100 read_lat -d $dev -n 100
perf_test "send_bw" bw 65536 200 send_bw -d $dev -n 200
perf_test "send_lat" lat 2 100 send_lat -d $dev -n 100 --json "$tmp/lat.json"
perf_test "atomic_lat" lat 8 100 atomic_lat -d $dev -n 100
perf_test "send_bw -e" bw 4096 300 send_bw -d $dev -n 300 -s 4096 -e
perf_test "send_lat -e" lat 64 100 send_lat -d $dev -n 100 -s 64 -e
perf_test "write_bw --poll" bw 65536 200 write_bw -d $dev -n 200 --poll
perf_test "write_lat --poll -I 64" lat 32 100 \
	write_lat -d $dev -n 100 -s 32 --poll -I 64
perf_test "write_bw -q 2" bw 8192 300 write_bw -d $dev -n 300 -s 8192 -q 2
perf_test "read_bw -D 1" bw 65536 any read_bw -d $dev -D 1
# start_at NAME DELAY [STATUS]: a send_bw client given --start-at now +
# DELAY s (DELAY < 0: a time long past) runs its rows, not before that
# time, and says if it was ready only after it; or, with STATUS 1 (a time
# beyond what a server waits for), fails at once, saying why, and so
# does its server.
start_at() {
	name=$1 want=${3:-0}
	timeout 120 $PERF send_bw -d $dev -n 200 >"$tmp/srv.out" 2>"$tmp/srv.err" &
	spid=$!
	at=$(awk -v t="$(date +%s.%N)" -v d="$2" \
		'BEGIN { printf "%.3f", d < 0 ? 1 : t + d }')
	timeout 120 $PERF send_bw -d $dev -n 200 --start-at "$at" $host \
		>"$tmp/cli.out" 2>"$tmp/cli.err"
	crc=$?
	ended=$(date +%s.%N)
	wait $spid
	src=$?
	why=
	[ $crc -eq "$want" ] || why="client exit $crc, want $want"
	[ $src -eq "$want" ] || why="$why; server exit $src, want $want"
	if [ "$want" != 0 ]; then
		grep -q 'start-at is [0-9.]* s ahead, more than the 20 s a server waits' \
			"$tmp/cli.err" || why="$why; no word of the limit"
	elif [ -z "$why" ]; then
		why=$(check_rows "$tmp/cli.out" bw 65536 200)
		awk -v a="$at" -v e="$ended" 'BEGIN { exit !(e >= a) }' ||
			why="$why; ended at $ended, before $at"
		if [ "$2" -lt 0 ]; then
			grep -q 'ready [0-9.]* s after --start-at' "$tmp/cli.err" ||
				why="$why; no word of starting late"
		elif [ -s "$tmp/cli.err" ]; then
			why="$why; stderr: $(cat "$tmp/cli.err")"
		fi
	fi
	result "$why" "$name"
}
start_at "send_bw --start-at in 3 s" 3
start_at "send_bw --start-at long past" -1
start_at "send_bw --start-at in 60 s: refused" 60 1

all=$(awk 'BEGIN { for (s = 2; s <= 8388608; s *= 2) printf "%d ", s }')
perf_test "write_lat -a" lat "$all" 3 write_lat -d $dev -a -n 3

# The --json files of write_bw and send_lat (one python3: it starts slowly
# under TCG).
python3 - "$tmp/bw.json" "$tmp/lat.json" >"$tmp/py.out" 2>&1 <<'EOF'
import json, sys

def check(path, test, size, iters, keys):
    try:
        rows = json.load(open(path))
        assert len(rows) == 1, rows
        r = rows[0]
        assert set(r) == {"test", "size", "iterations"} | set(keys), r
        assert (r["test"], r["size"], r["iterations"]) == (test, size, iters), r
        assert all(r[k] > 0 for k in keys), r
        return r, ""
    except (OSError, ValueError, AssertionError) as e:
        return None, "%s: %r" % (path, e)

r, why = check(sys.argv[1], "write_bw", 65536, 200,
               ["bw_peak", "bw_avg", "msg_rate"])
if r and not r["bw_peak"] >= r["bw_avg"]:
    why = "peak below average: %r" % r
print(why)
r, why = check(sys.argv[2], "send_lat", 2, 100,
               ["t_min", "t_max", "t_typical", "t_avg", "t_stdev", "p99",
                "p99_9"])
if r and not r["t_min"] <= r["t_typical"] <= r["p99"] <= r["t_max"]:
    why = "latencies out of order: %r" % r
print(why)
EOF
result "$(sed -n 1p "$tmp/py.out")" "write_bw --json"
result "$(sed -n '2,$p' "$tmp/py.out")" "send_lat --json"

# Both sides must be given the same test.
timeout 60 $PERF write_bw -d $dev -n 10 >"$tmp/srv.out" 2>"$tmp/srv.err" &
spid=$!
timeout 60 $PERF write_bw -d $dev -n 20 $host >"$tmp/cli.out" 2>"$tmp/cli.err"
crc=$?
wait $spid
src=$?
why=
[ $crc -eq 1 ] && [ $src -eq 1 ] || why="exit $crc/$src, want 1/1"
grep -q disagree "$tmp/cli.err" || why="$why; client does not say why"
result "$why" "server and client disagree: both fail"

# The option checks are tested on the host (cli.sh); one here.
fails "unknown test" 2 "unknown test 'write_bwx'" write_bwx

# The rdma-core build, on rdma_rxe.
if ! modprobe rdma_rxe 2>/dev/null; then
	for t in "rdma-core write_bw on rxe" "rdma-core write_lat on rxe"; do
		n=$((n + 1))
		echo "ok $n - $t # SKIP rdma_rxe cannot be loaded"
	done
else
	ip link add perfa type veth peer name perfb &&
	ip addr add 10.9.9.1/24 dev perfa &&
	ip link set perfa up && ip link set perfb up &&
	rdma link add $rxe type rxe netdev perfa ||
		echo "# cannot set up $rxe"
	host=10.9.9.1
	PERF="env -u LD_LIBRARY_PATH $PERF_RDMA_CORE"
	perf_test "rdma-core write_bw on rxe" bw 65536 40 \
		write_bw -d $rxe -n 40
	perf_test "rdma-core write_lat on rxe" lat 2 50 \
		write_lat -d $rxe -n 50
fi

echo "1..$n"
[ $failed -eq 0 ]
