# Sourced by the experiment scripts, after $harness is set: which kernel
# that binary runs, and a patch's version for that kernel's series.
#
#   kernel_version   "Linux 5.10.262" (the Version line of `kernel info`)
#   kernel_series    "5.10"
#   series_patch F   F itself on a 6.1 build (the patches beside the
#                    experiments are against 6.1); on another series S,
#                    its port DIR/S/NAME beside F (thermal/patches/5.10/...),
#                    or a message naming the missing port and status 2
kernel_version=$("$harness" kernel info | sed -n 's/^Version  *//p')
if [[ ! $kernel_version =~ ^Linux\ ([0-9]+\.[0-9]+) ]]; then
	echo "$0: '$harness kernel info' names no kernel version" >&2
	exit 1
fi
kernel_series=${BASH_REMATCH[1]}
patches_series=6.1

series_patch() {
	local patch=$1 port
	if [ "$kernel_series" = "$patches_series" ]; then
		echo "$patch"
		return
	fi
	port=$(dirname "$patch")/$kernel_series/$(basename "$patch")
	if [ -f "$port" ]; then
		echo "$port"
		return
	fi
	echo "$0: $harness runs $kernel_version, and $patch is against $patches_series: it has no port to $kernel_series ($port)" >&2
	return 2
}
