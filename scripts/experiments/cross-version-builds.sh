# Sourced by the cross-version scripts: the builds they compare, in
# builds[]: those given, else those of build-5.10/, build/, build-6.12/ and
# build-7.3/ that are built (scripts/test.sh makes them), oldest first.
if [ $# -gt 0 ]; then
	builds=("$@")
else
	builds=()
	for b in build-5.10 build build-6.12 build-7.3; do
		[ -x "$b/harness/sched-harness" ] && builds+=("$b")
	done
fi
