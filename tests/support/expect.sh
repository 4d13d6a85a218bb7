# SPDX-License-Identifier: GPL-2.0
#
# What the shell tests share (sourced): a temporary folder, failures
# counted, a command's exit status and output checked.
#
#   work=$(mktemp -d ...); . tests/support/expect.sh
#   expect STATUS CMD...   runs CMD, stdout to $work/out, stderr to $work/err
#   contains FILE TEXT     FILE holds TEXT
#   fail MESSAGE           counts a failure, naming it on stderr
#   failures               0 until one is counted
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
expect() {
	local want=$1 status=0
	shift
	"$@" > "$work/out" 2> "$work/err" || status=$?
	[ "$status" = "$want" ] || fail "exit $status, not $want: $*: $(cat "$work/err")"
}
contains() { grep -qF -- "$2" "$1" || fail "$1 lacks \"$2\": $(cat "$1")"; }
