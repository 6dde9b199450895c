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
has "$tmp/t.md" '^\| write_bw \| 65536 \| MB/s \| 400 \| 25.0 \| 16.0 \| 44% \| MISS '
ok $? "write_bw 64K row: medians, ratios, memcpy goal missed"
has "$tmp/t.md" '^\| write_lat \| 8 \| usec \| 11.00 \| 500 \| 0.02 \| - \| PASS '
ok $? "write_lat 8 row: t_typical medians, goal met"
has "$tmp/t.md" '^\| send_bw \| 64 \| Mpps \| 0.250 \| 0.050 \| 5.00 \| 16% \| PASS '
ok $? "send_bw 64 row: Mpps, compared with memcpy as bytes/s"
has "$tmp/t.md" '^\| read_bw \| 65536 \| MB/s \| 225 \| 15.0 \| 15.0 .* \[figures from rnic 2, rxe 2 of 3 runs\]'
ok $? "read_bw row: median of the runs that worked, and says so"
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
has "$tmp/t.md" '^Goals: 5 PASS, 3 MISS\.$'
ok $? "goal summary, wire rows included"
has "$tmp/t.md" '^- CPU model: max,erms=off$'
ok $? "VM configuration listed"
python3 - "$tmp/t.json" <<'PY'
import json, sys
d = {(r["test"], r["size"], r["stack"]): (r["value"], r["unit"]) for r in json.load(open(sys.argv[1]))}
assert d[("write_bw", 65536, "rnic")] == (400, "MB/s"), d
assert d[("write_bw", 65536, "memcpy")] == (900, "MB/s"), d
assert d[("send_bw", 64, "rxe")] == (0.05, "Mpps"), d
assert d[("write_lat", 8, "rxe")] == (500, "usec"), d
assert d[("null_syscall", 0, "syscall")] == (0.2, "usec"), d
assert ("write_lat", 8, "memcpy") not in d
assert d[("write_bw", 65536, "wire-rnic")] == (250, "MB/s"), d
assert d[("write_bw", 65536, "wire-rnic-rxe")] == (70, "MB/s"), d
assert d[("send_bw", 64, "wire-rxe")] == (0.04, "Mpps"), d
assert ("send_bw", 64, "wire-rnic-rxe") not in d
assert len(d) == 22, len(d)
PY
ok $? "JSON records: values, units, one memcpy per bandwidth row, the syscall, the wire stacks"

# all rxe read_bw runs failed: the row has no rxe figure, exit status 1
sed 's/^\(BENCH run rxe read_bw 65536 [0-9]\) .*/\1 []/' "$dir/sample.raw" >"$tmp/fail.raw"
"$report" --raw "$tmp/fail.raw" --md "$tmp/f.md" --json "$tmp/f.json" >/dev/null 2>&1
[ $? = 1 ]
ok $? "report exits 1 when a test has no figure on a stack"
has "$tmp/f.md" '^\| read_bw \| 65536 \| MB/s \| 225 \| - \| - \| 25% \| MISS '
ok $? "... and shows the missing figure as - and the goal as missed"

printf 'BENCH run rnic write_bw x 1 []\n' >"$tmp/bad.raw"
"$report" --raw "$tmp/bad.raw" --md "$tmp/b.md" --json "$tmp/b.json" >/dev/null 2>&1
[ $? = 1 ]
ok $? "report rejects a malformed raw line"

# --check on broken files
bad() {
	printf '%s\n' "$2" >"$tmp/bad.json"
	"$report" --check "$tmp/bad.json" >/dev/null 2>"$tmp/err"
	st=$?
	[ $st = 1 ] && has "$tmp/err" "$3"
	ok $? "--check rejects $1"
}
good='{"test": "write_bw", "size": 65536, "stack": "rnic", "value": 1.5, "unit": "MB/s"}'
rest=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(json.dumps(d[1:]))' "$tmp/t.json")
rest=${rest#[}
bad "a file that is not a list" '{}' 'not a non-empty JSON list'
bad "a missing key" "[{\"test\": \"write_bw\", \"size\": 1, \"stack\": \"rnic\", \"value\": 1}, $rest" 'keys'
bad "a wrong unit" "[{\"test\": \"send_bw\", \"size\": 64, \"stack\": \"rnic\", \"value\": 1, \"unit\": \"MB/s\"}, $rest" "unit 'MB/s' for send_bw"
bad "an unknown stack" "[{\"test\": \"write_bw\", \"size\": 1, \"stack\": \"siw\", \"value\": 1, \"unit\": \"MB/s\"}, $rest" "stack 'siw'"
bad "a string value" "[{\"test\": \"write_bw\", \"size\": 1, \"stack\": \"rnic\", \"value\": \"1\", \"unit\": \"MB/s\"}, $rest" 'value'
bad "a duplicate record" "[$good, $good, $rest" 'twice'
bad "a file without a goal row" "[$good]" 'no rnic figure for the goal row write_lat 8'
nowire=$(python3 -c 'import json, sys; print(json.dumps([r for r in json.load(open(sys.argv[1])) if not r["stack"].startswith("wire-")]))' "$tmp/t.json")
bad "a file without the wire rows" "$nowire" 'no wire-rnic figure for the wire goal row send_bw 64'

tap_end
