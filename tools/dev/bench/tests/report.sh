#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host test of tools/dev/bench/report (make -C tools test): the table and the
# JSON file made from a canned run (sample.raw: made-up figures in the
# format tools/dev/bench/guest prints), and --check on good and bad files.
# TAP output; exit status 1 if a test failed.

dir=$(cd "$(dirname "$0")" && pwd)
report=$dir/../report
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$dir/../../../lib/tap.sh"

# has FILE REGEX: FILE has a line matching REGEX
has() { grep -qE -- "$2" "$1"; }

"$report" --raw "$dir/sample.raw" --md "$tmp/t.md" --json "$tmp/t.json" \
	--info reps=3 --info "cpu_model=max,erms=off" >"$tmp/out" 2>"$tmp/err"
ok $? "report exits 0 when every test has figures on both stacks"
cmp -s "$tmp/out" "$tmp/t.md"
ok $? "the printed table is the markdown file"
"$report" --check "$tmp/t.json" 2>"$tmp/err"
ok $? "the JSON file it writes passes --check"

# medians of 3 runs: write_bw 64K rnic 400,300,500 rxe 30,20,25; memcpy 800,900,1000
has "$tmp/t.md" '^\| write_bw \| 65536 \| MB/s \| 400 \| 25.0 \| 16.0 \| 44% \|  \|$'
ok $? "write_bw 64K row: medians, ratios"
has "$tmp/t.md" '^\| write_lat \| 8 \| usec \| 11.00 \| 500 \| 0.02 \| - \|  \|$'
ok $? "write_lat 8 row: t_typical medians"
has "$tmp/t.md" '^\| send_bw \| 64 \| Mpps \| 0.250 \| 0.050 \| 5.00 \| 16% \|  \|$'
ok $? "send_bw 64 row: Mpps, compared with memcpy as bytes/s"
has "$tmp/t.md" '^\| read_bw \| 65536 \| MB/s \| 225 \| 15.0 \| 15.0 \| 25% \| \[figures from rnic 2, rxe 2 of 3 runs\] \|$'
ok $? "read_bw row: median of the runs that worked, and says so"
has "$tmp/t.md" '^\| write_bw \| 4096 \| MB/s \| 350 \| 20.0 \| 17.5 \| 58% \|  \|$'
ok $? "write_bw 4K row, against memcpy at 4096"
# two clients of 2 QPs each: rnic rounds 0.2 Mpps (one ran 0.5 s after the
# other), 0.3, 0.2273 (0.2 s apart); the sum of the clients' rates would be
# 0.25, 0.3, 0.25. rxe: the second round lost a client, 0.04 and 0.06
has "$tmp/t.md" '^\| send_bw_2procs_2qps \| 64 \| Mpps \| 0.227 \| 0.050 \| 4.55 \| - \| \[figures from rnic 3, rxe 2 of 3 runs\] \|$'
ok $? "2 processes x 2 QPs row: messages over the span of both clients, a failed client drops its round"
has "$tmp/t.md" 'the clients ran together 82% of it on rnic'
ok $? "... and the share of the span in which both ran (median)"
# (Slab + VmallocUsed) / 500: rnic 60, 62, 58; rxe 93, 92, 94
has "$tmp/t.md" '^\| qp_kmem \| 500 \| KiB/QP \| 60.0 \| 93.0 \| 0.65 \| - \|  \|$'
ok $? "qp_kmem row: KiB per QP of Slab and vmalloc growth"

# the goal table (null syscall: 3, 4, 5 usec)
has "$tmp/t.md" '^\| 1 \| write_lat 8 B, t_typical \| null syscalls \| 2.75 \| 125.00 \| 0.02 \| ≤ 3.0 null syscalls, ≤ 0.25× rxe \| PASS \|$'
ok $? "goal 1: write_lat in null syscalls (11 / 4), met"
has "$tmp/t.md" '^\| 2 \| send_bw 64 B, messages per null-syscall time \| messages \| 1.000 \| 0.200 \| 5.00 \| ≥ 0.3 messages, ≥ 10× rxe \| MISS \|$'
ok $? "goal 2: Mpps x null syscall (0.25 x 4); missed at 5x rxe"
has "$tmp/t.md" '^\| 3 \| write_bw 64 KiB, share of the memcpy ceiling \| share of memcpy \| 44% \| 2.8% \| 16.0 \| ≥ 90% of memcpy \| MISS \|$'
ok $? "goal 3: write_bw 64K share of memcpy, missed"
has "$tmp/t.md" '^\| 4 \| write_bw 4 KiB, share of the memcpy ceiling \| share of memcpy \| 58% \| 3.3% \| 17.5 \| ≥ 50% of memcpy \| PASS \|$'
ok $? "goal 4: write_bw 4K share of memcpy, met"
has "$tmp/t.md" '^\| 5 \| aggregate send_bw 64 B, 4 QP pairs in 2 processes vs 1 pair \| × 1 pair \| 0.91 \| 1.00 \| - \| ≥ 1.0× 1 pair \| MISS \|$'
ok $? "goal 5: 2 processes x 2 QPs over one pair (0.2273 / 0.25), missed"
has "$tmp/t.md" '^\| 6 \| kernel memory per idle RC QP \(default caps\) \| KiB/QP \| 60.0 \| 93.0 \| 0.65 \| ≤ rxe \| PASS \|$'
ok $? "goal 6: KiB per idle QP against rxe's, met"
# wire rows: rnic<->rnic 300,200,250 against rxe<->rxe 40,50,45; rnic->rxe
# 60,-,80 is information
has "$tmp/t.md" '^\| write_bw \| 65536 \| MB/s \| 250 \| 45.0 \| 5.56 \| 28% \| 70.0 \| PASS \(≥ 5× rxe, ≥ 25% of memcpy\) \|$'
ok $? "wire write_bw row: medians, ratios, rnic->rxe, the wire goal met"
has "$tmp/t.md" '^\| read_bw \| 65536 \| MB/s \| 100 \| 10.0 \| 10.0 \| 11% \| - \| MISS '
ok $? "wire read_bw row: 25% of memcpy missed; no rnic->rxe figure, no failure"
has "$tmp/t.md" '^\| send_bw \| 64 \| Mpps \| 0.110 \| 0.040 \| 2.75 \| .* \| MISS \(≥ 3× rxe\) \|$'
ok $? "wire send_bw row: the wire goal (3x) missed"
has "$tmp/t.md" '^\| write_lat \| 8 \| usec \| 45.00 \| 90.00 \| 0.50 \| - \| 60.00 \| PASS \(≤ 0.5× rxe\) \|$'
ok $? "wire write_lat row: at the goal is a pass"
# the wire's ceiling: UDP 1040 B 0.5, 0.4, 0.3 Mpps (390.625 MB/s of 1024 B
# payloads); 80 B 0.2, 0.3, 0.22
has "$tmp/t.md" "^The wire's ceiling: .* 1040-byte datagrams \(a RoCE packet at path MTU 1024\) 0.400 Mpps, 391 MB/s of 1024-byte payloads; 80-byte datagrams \(a 64 B SEND\) 0.220 Mpps\. rnic↔rnic reaches write_bw 65536 B 64% of it \(the goal, 5× rxe, is 58% of it\), send_bw 64 B 50% of it \(the goal, 3× rxe, is 55% of it\)\.\$"
ok $? "the wire's ceiling: the kernel's UDP path, and the wire rows' share of it"
sed '/ udp /d' "$dir/sample.raw" >"$tmp/noudp.raw"
"$report" --raw "$tmp/noudp.raw" --md "$tmp/n.md" --json "$tmp/n.json" >/dev/null 2>&1 &&
	! has "$tmp/n.md" "wire's ceiling"
ok $? "a run without the UDP ceiling (older raw files) has no such sentence"
has "$tmp/t.md" '^Goals: 3 PASS, 3 MISS; wire goals: 2 PASS, 2 MISS\.$'
ok $? "goal summary, the wire goals apart"
has "$tmp/t.md" '^- CPU model: max,erms=off$'
ok $? "VM configuration listed"
# rnic's floors: doorbell 10, 12, 8 usec; write8 30, 36, 40 usec; null
# syscall 4 usec
has "$tmp/t.md" "^rnic's own floors in this boot: a doorbell \(RNIC_IOCTL_RING_SQ on an RC QP in RTS, nothing to send\) 10.00 usec = 2.50 null syscalls \(of which the system call alone, an ioctl no driver handles: ENOTTY from /dev/null, 5.00 usec = 1.25 null syscalls\); one signaled 8 B WRITE posted and polled on a QP pair of one process \(the whole engine on the local link, no peer\) 36.00 usec = 9.00 null syscalls\. "
ok $? "floors: medians in usec and in null syscalls"
has "$tmp/t.md" 'write_lat 8 B is at least about one doorbell \(2.50 null syscalls\) and send_bw 64 B at most one message per doorbell \(0.400 messages per null-syscall time\)\. '
ok $? "floors: the bounds a doorbell puts on goal rows 1 and 2"
# memcpy medians 900 (65536 B) and 600 MB/s (4096 B): 69.44 usec of copy
# x (1/0.9 - 1) and 6.51 usec x (1/0.5 - 1), over 4 usec
has "$tmp/t.md" 'At the write_bw goals, a message may take beyond its copy at the memcpy ceiling 65536 B 1.93, 4096 B 1.63 null syscalls, for its doorbell and the whole engine\.$'
ok $? "floors: what the goals of rows 3 and 4 leave for the doorbell and the engine"
[ "$(grep -A1 '^Null system call' "$tmp/t.md" | tail -n 1 | cut -c1-22)" = "rnic's own floors in t" ]
ok $? "floors: right after the null system call"
python3 - "$tmp/t.json" <<'PY'
import json, sys
d = {(r["test"], r["size"], r["stack"]): (r["value"], r["unit"]) for r in json.load(open(sys.argv[1]))["figures"]}
assert d[("write_bw", 65536, "rnic")] == (400, "MB/s"), d
assert d[("write_bw", 65536, "memcpy")] == (900, "MB/s"), d
assert d[("send_bw", 64, "rxe")] == (0.05, "Mpps"), d
assert d[("write_lat", 8, "rxe")] == (500, "usec"), d
assert d[("null_syscall", 0, "syscall")] == (4, "usec"), d
assert ("write_lat", 8, "memcpy") not in d
assert d[("write_bw", 65536, "wire-rnic")] == (250, "MB/s"), d
assert d[("write_bw", 65536, "wire-rnic-rxe")] == (70, "MB/s"), d
assert d[("send_bw", 64, "wire-rxe")] == (0.04, "Mpps"), d
assert ("send_bw", 64, "wire-rnic-rxe") not in d
assert d[("write_bw", 4096, "memcpy")] == (600, "MB/s"), d
assert d[("send_bw_2procs_2qps", 64, "rnic")] == (0.2273, "Mpps"), d
assert d[("send_bw_2procs_2qps", 64, "rxe")] == (0.05, "Mpps"), d
assert d[("qp_kmem", 500, "rnic")] == (60, "KiB/QP"), d
assert d[("qp_kmem", 500, "rxe")] == (93, "KiB/QP"), d
assert d[("udp", 1040, "udp")] == (0.4, "Mpps"), d
assert d[("udp", 80, "udp")] == (0.22, "Mpps"), d
assert d[("doorbell", 0, "floor")] == (10, "usec"), d
assert d[("write8", 8, "floor")] == (36, "usec"), d
assert d[("ioctl", 0, "floor")] == (5, "usec"), d
assert len(d) == 34, len(d)
PY
ok $? "JSON figures: values, units, one memcpy per bandwidth row, the syscall, the floors, the wire stacks, the UDP ceiling"
python3 - "$tmp/t.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["goals"]
got = [(r["row"], r["unit"], r["rnic"], r["rxe"], r["rnic_vs_rxe"], r["result"]) for r in g]
want = [(1, "null syscalls", 2.75, 125, 0.022, "PASS"),
        (2, "messages", 1, 0.2, 5, "MISS"),
        (3, "share of memcpy", 0.4444, 0.0278, 16, "MISS"),
        (4, "share of memcpy", 0.5833, 0.0333, 17.5, "PASS"),
        (5, "× 1 pair", 0.9091, 1, None, "MISS"),
        (6, "KiB/QP", 60, 93, 0.6452, "PASS")]
assert got == want, got
assert g[0]["goal"] == "≤ 3.0 null syscalls, ≤ 0.25× rxe", g[0]
PY
ok $? "JSON goals: the six rows with their values, ratios and results"

# goal_result RAW N: the result of goal row N in the table made from RAW
goal_result() {
	"$report" --raw "$1" --md "$tmp/g.md" --json "$tmp/g.json" >/dev/null 2>&1
	sed -n "s/^| $2 | .* | \([A-Z]*\) |\$/\1/p" "$tmp/g.md"
}
# variant NAME SED: sample.raw edited by SED, into $tmp/NAME.raw
variant() { sed "$2" "$dir/sample.raw" >"$tmp/$1.raw"; }

variant slowsys 's/^\(BENCH ceiling [0-9] syscall 0\) .*/\1 1.0/'
[ "$(goal_result "$tmp/slowsys.raw" 1)$(goal_result "$tmp/slowsys.raw" 2)" = MISSMISS ]
ok $? "goals 1 and 2 in null-syscall units: 11 of 1 usec misses 3.0, 0.25 x 1 misses 0.3"
variant rxelat 's/"t_typical": \(500\|600\|400\)/"t_typical": 40/'
[ "$(goal_result "$tmp/rxelat.raw" 1)" = MISS ]
ok $? "goal 1 misses at 0.275x rxe though under 3 null syscalls"
variant rxesend '/BENCH run rxe send_bw/s/"msg_rate": 0.0[456]/"msg_rate": 0.025/'
[ "$(goal_result "$tmp/rxesend.raw" 2)" = PASS ]
ok $? "goal 2 passes at exactly 10x rxe"
variant fastcopy 's/^\(BENCH ceiling [0-9] memcpy 65536\) .*/\1 400.0/'
[ "$(goal_result "$tmp/fastcopy.raw" 3)" = PASS ]
ok $? "goal 3 passes at 100% of memcpy"
variant slowcopy 's/^\(BENCH ceiling [0-9] memcpy 4096\) .*/\1 800.0/'
[ "$(goal_result "$tmp/slowcopy.raw" 4)" = MISS ]
ok $? "goal 4 misses at 44% of memcpy"
variant together 's/^\(BENCH procs rnic send_bw 64 3 2x2\) 3000.2000/\1 3000.0000/'
[ "$(goal_result "$tmp/together.raw" 5)" = PASS ]
ok $? "goal 5 passes at 1.0x when the clients of every round ran together"
variant fatqp 's/^\(BENCH qpmem rnic [0-9] 500\) [0-9]*/\1 40000/'
[ "$(goal_result "$tmp/fatqp.raw" 6)" = MISS ]
ok $? "goal 6 misses at 100 KiB per rnic QP against rxe's 93"

# a run from before rnic-bench-floor: no floors, nothing else changes
variant nofloor '/^BENCH floor /d'
"$report" --raw "$tmp/nofloor.raw" --md "$tmp/n.md" --json "$tmp/n.json" \
	--info reps=3 --info "cpu_model=max,erms=off" >/dev/null 2>&1
ok $? "report exits 0 on a run without floor lines"
! has "$tmp/n.md" "floor" && diff -u "$tmp/t.md" "$tmp/n.md" | grep -q '^-rnic'"'"'s own floors' &&
	[ "$(diff "$tmp/t.md" "$tmp/n.md" | grep -c '^[<>]')" = 1 ]
ok $? "... and its table lacks only the floors line"
"$report" --check "$tmp/n.json" 2>/dev/null &&
	python3 -c 'import json, sys; assert not [r for r in json.load(open(sys.argv[1]))["figures"] if r["stack"] == "floor"]' "$tmp/n.json"
ok $? "... and its JSON file, without floor figures, passes --check"
# every write8 run failed: the doorbell alone, the WRITE as -
variant nowrite8 '/^BENCH floor [0-9] write8 /d'
"$report" --raw "$tmp/nowrite8.raw" --md "$tmp/w.md" --json "$tmp/w.json" >/dev/null 2>&1
ok $? "report exits 0 when a floor has no figure"
has "$tmp/w.md" 'nothing to send\) 10.00 usec = 2.50 null syscalls \(of which .*\); .* no peer\) -\. '
ok $? "... and shows it as -"

# all rxe read_bw runs failed: the row has no rxe figure, exit status 1
sed 's/^\(BENCH run rxe read_bw 65536 [0-9]\) .*/\1 []/' "$dir/sample.raw" >"$tmp/fail.raw"
"$report" --raw "$tmp/fail.raw" --md "$tmp/f.md" --json "$tmp/f.json" >/dev/null 2>&1
[ $? = 1 ]
ok $? "report exits 1 when a test has no figure on a stack"
has "$tmp/f.md" '^\| read_bw \| 65536 \| MB/s \| 225 \| - \| - \| 25% \|  \|$'
ok $? "... and shows the missing figure as -"
# every rnic QP memory run failed (the guest prints 0 0)
sed 's/^\(BENCH qpmem rnic [0-9] 500\) .*/\1 0 0/' "$dir/sample.raw" >"$tmp/fail.raw"
"$report" --raw "$tmp/fail.raw" --md "$tmp/f.md" --json "$tmp/f.json" >/dev/null 2>&1
[ $? = 1 ]
ok $? "report exits 1 when a goal row has no rnic figure"
has "$tmp/f.md" '^\| 6 \| kernel memory per idle RC QP \(default caps\) \| KiB/QP \| - \| 93.0 \| - \| ≤ rxe \| MISS \|$'
ok $? "... and shows it as - and the goal as missed"

printf 'BENCH run rnic write_bw x 1 []\n' >"$tmp/bad.raw"
"$report" --raw "$tmp/bad.raw" --md "$tmp/b.md" --json "$tmp/b.json" >/dev/null 2>&1
[ $? = 1 ]
ok $? "report rejects a malformed raw line"
variant badfloor 's/^\(BENCH floor 2 doorbell 0\) .*/\1/'
"$report" --raw "$tmp/badfloor.raw" --md "$tmp/b.md" --json "$tmp/b.json" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && has "$tmp/err" 'badfloor.raw:48: bad line'
ok $? "report rejects a floor line without its figure"

# --check on broken files
bad() {
	printf '%s\n' "$2" >"$tmp/bad.json"
	"$report" --check "$tmp/bad.json" >/dev/null 2>"$tmp/err"
	st=$?
	[ $st = 1 ] && has "$tmp/err" "$3"
	ok $? "--check rejects $1"
}
# edit PYTHON: the good JSON file after PYTHON changed d (its object)
edit() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); exec(sys.argv[2]); print(json.dumps(d))' "$tmp/t.json" "$1"
}
good='{"test": "write_bw", "size": 65536, "stack": "rnic", "value": 1.5, "unit": "MB/s"}'
bad "a file that is not an object" '[]' 'not a JSON object with "goals" and "figures"'
bad "a missing key" "$(edit 'del d["figures"][0]["unit"]')" 'figures\[0\]: keys'
bad "a wrong unit" "$(edit 'd["figures"][0] = {"test": "send_bw", "size": 64, "stack": "rnic", "value": 1, "unit": "MB/s"}')" "unit 'MB/s' for send_bw"
bad "a wrong unit for a floor" "$(edit 'd["figures"][0] = {"test": "doorbell", "size": 0, "stack": "floor", "value": 1, "unit": "MB/s"}')" "unit 'MB/s' for doorbell on floor"
bad "a wrong unit for the QP memory" "$(edit 'd["figures"][0] = {"test": "qp_kmem", "size": 9, "stack": "rnic", "value": 1, "unit": "MB/s"}')" "unit 'MB/s' for qp_kmem"
bad "an unknown stack" "$(edit 'd["figures"][0]["stack"] = "siw"')" "stack 'siw'"
bad "a string value" "$(edit 'd["figures"][0]["value"] = "1"')" 'value'
bad "a duplicate record" "$(edit 'd["figures"].append(d["figures"][0])')" 'twice'
bad "a file without a goal row's figure" "$(edit 'd["figures"] = [r for r in d["figures"] if r["test"] != "qp_kmem"]')" 'no rnic figure qp_kmem for goal row 6'
bad "a file without the wire rows" "$(edit 'd["figures"] = [r for r in d["figures"] if not r["stack"].startswith("wire-")]')" 'no wire-rnic figure for the wire goal row send_bw 64'
bad "a missing goal row" "$(edit 'd["goals"].pop()')" 'goals: not a list of 6'
bad "goal rows out of order" "$(edit 'd["goals"][0], d["goals"][1] = d["goals"][1], d["goals"][0]')" 'goals\[0\]: not goal row 1'
bad "a result that is neither PASS nor MISS" "$(edit 'd["goals"][2]["result"] = "OK"')" "goals\[2\]: result 'OK'"
bad "a goal value that is not a number" "$(edit 'd["goals"][5]["rnic"] = "60"')" 'goals\[5\]: a value'

tap_end
