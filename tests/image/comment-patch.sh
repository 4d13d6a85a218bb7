# Sourced by the image cache's shell tests: a patch of one object that
# compiles in seconds, a comment put at the top of arch_topology.c.
#   comment_patch TREE WORK COMMENT   writes WORK/patch (-p1, as git gives)
comment_patch() {
	local tree=$1 work=$2 comment=$3 file=drivers/base/arch_topology.c
	mkdir -p "$work/a/${file%/*}" "$work/b/${file%/*}"
	cp "$tree/$file" "$work/a/$file"
	{ echo "/* $comment */"; cat "$tree/$file"; } >"$work/b/$file"
	if (cd "$work" && diff -u "a/$file" "b/$file" >patch); then
		echo "FAIL: the patch of $file is empty"
		exit 1
	fi
}
