#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Command-line tests of rnic-devices and rnic-devinfo against a fake sysfs
# (RNIC_SYSFS_DIR) without device nodes (RNIC_DEV_DIR): output format,
# messages and exit codes where no kernel is needed. TAP output.
#
# BIN: directory of the binaries; VALGRIND: optional command prefix.

BIN=${BIN:?BIN must name the directory of rnic-devices and rnic-devinfo}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rnic-devinfo-test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
export RNIC_SYSFS_DIR="$TMP/class" RNIC_DEV_DIR="$TMP/dev"
unset RNIC_DEBUG
mkdir "$TMP/dev"

. "$(dirname "$0")/../../lib/tap.sh"
TAB=$(printf '\t')

# run TOOL ARGS...: sets $rc, $out (stdout) and $err (stderr)
run() {
	tool=$1
	shift
	$VALGRIND "$BIN/$tool" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	out=$(cat "$TMP/out")
	err=$(cat "$TMP/err")
}

# expect NAME RC OUT ERR: compare the last run
expect() {
	res=0
	[ "$rc" = "$2" ] || { echo "# exit $rc, expected $2"; res=1; }
	[ "$out" = "$3" ] || { printf '# stdout:\n%s\n# expected:\n%s\n' "$out" "$3"; res=1; }
	[ "$err" = "$4" ] || { printf '# stderr:\n%s\n# expected:\n%s\n' "$err" "$4"; res=1; }
	ok $res "$1"
}

# expect_usage NAME RC STREAM: exit RC, usage text on std$STREAM (out|err)
expect_usage() {
	res=0
	[ "$rc" = "$2" ] || { echo "# exit $rc, expected $2"; res=1; }
	if [ "$3" = out ]; then text=$out; else text=$err; fi
	case $text in
	*Usage:*) ;;
	*) echo "# no usage text on std$3"; res=1 ;;
	esac
	ok $res "$1"
}

add_dev() { # NAME UVERBS GUID
	mkdir -p "$RNIC_SYSFS_DIR/$1"
	echo 1 >"$RNIC_SYSFS_DIR/$1/abi_version"
	echo "$2" >"$RNIC_SYSFS_DIR/$1/uverbs"
	echo "$3" >"$RNIC_SYSFS_DIR/$1/node_guid"
	echo 231:1024 >"$RNIC_SYSFS_DIR/$1/dev"
}

HEADER="    device          ${TAB}   node GUID
    ------          ${TAB}----------------"

# No rnic module: no class directory.
run rnic-devices
expect "rnic-devices without devices: header only" 0 "$HEADER" ""
run rnic-devinfo
expect "rnic-devinfo without devices" 255 "" "No IB devices found"
run rnic-devinfo -l
expect "rnic-devinfo -l without devices" 0 "0 HCAs found:" ""
run rnic-devinfo -d nosuch
expect "rnic-devinfo -d nosuch" 255 "" "IB device 'nosuch' wasn't found"

add_dev rnic1 uverbs1025 0200:00ff:fe00:0002
add_dev rnic0 uverbs1024 0200:00ff:fe00:0001

run rnic-devices
expect "rnic-devices lists two devices" 0 "$HEADER
    rnic0           ${TAB}020000fffe000001
    rnic1           ${TAB}020000fffe000002" ""
run rnic-devinfo -l
expect "rnic-devinfo -l lists two devices" 0 "2 HCAs found:
${TAB}rnic0
${TAB}rnic1" ""
run rnic-devinfo --list
expect "rnic-devinfo --list" 0 "2 HCAs found:
${TAB}rnic0
${TAB}rnic1" ""
run rnic-devinfo -d nosuch
expect "rnic-devinfo -d nosuch with devices" 255 "" \
	"IB device 'nosuch' wasn't found"
run rnic-devinfo -d rnic0
expect "rnic-devinfo -d rnic0 without device node" 1 "" \
	"Failed to open device"
run rnic-devinfo
expect "rnic-devinfo without device nodes" 1 "" "Failed to open device
Failed to open device"

# Usage errors.
run rnic-devinfo -i 0
expect_usage "rnic-devinfo -i 0: usage, exit 1" 1 err
run rnic-devinfo -i 1x
expect_usage "rnic-devinfo -i 1x: usage, exit 1" 1 err
run rnic-devinfo --bogus
expect_usage "rnic-devinfo --bogus: usage, exit 255" 255 err
run rnic-devinfo extra
expect_usage "rnic-devinfo with an argument: usage, exit 255" 255 err
run rnic-devinfo --help
expect_usage "rnic-devinfo --help: usage on stdout, exit 0" 0 out
run rnic-devices extra
expect_usage "rnic-devices with an argument: usage, exit 1" 1 err
run rnic-devices --help
expect_usage "rnic-devices --help: usage on stdout, exit 0" 0 out

# The list itself fails: the class path is not a directory.
rm -rf "$RNIC_SYSFS_DIR"
echo x >"$RNIC_SYSFS_DIR"
run rnic-devices
expect "rnic-devices when the list fails" 1 "" \
	"Failed to get IB devices list: Not a directory"
run rnic-devinfo
expect "rnic-devinfo when the list fails" 255 "" \
	"Failed to get IB devices list: Not a directory"

tap_end
