#!/usr/bin/env bash
# Fetches a Debian kernel source package (or a guest image) that the
# machine's own suites do not carry, with apt's own client and a private
# sources list in the cache: the system's sources are never edited.
#
# usage: fetch-kernel.sh [--guest] SERIES[=VERSION]
#   SERIES    7.3, 5.10, 7.2 ... (the package linux-source-SERIES)
#   VERSION   a Debian version of it (7.3~rc7-1~exp1): by default the newest
#             release the archive serves; a release candidate only when named
#   --guest   the amd64 kernel image of the same version instead (the
#             -unsigned package where the archive has one, else the signed)
# Prints the path of what it fetched on stdout:
#   the tarball   $CACHE/trees/linux-source-SERIES_VERSION/usr/src/linux-source-SERIES.tar.xz
#   the guest     $CACHE/guests/PACKAGE_VERSION/ (the package extracted, with
#                 the parts 7.x splits off: the kernel at boot/vmlinuz-* or
#                 usr/lib/modules/ABI/vmlinuz, its config beside it)
# where CACHE is $SCHED_HARNESS_CACHE, else $XDG_CACHE_HOME/sched-harness,
# else ~/.cache/sched-harness. A second call with the same arguments
# fetches nothing.
set -euo pipefail

guest=0
if [ "${1:-}" = --guest ]; then guest=1; shift; fi
if [ $# -ne 1 ] || [[ ! $1 =~ ^[0-9]+\.[0-9]+(=.+)?$ ]]; then
	echo "usage: scripts/fetch-kernel.sh [--guest] SERIES[=VERSION]   (e.g. 7.3, 5.10, 7.3=7.3~rc7-1~exp1)" >&2
	exit 2
fi
series=${1%%=*}
want=""
[[ $1 == *=* ]] && want=${1#*=}

cache=${SCHED_HARNESS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sched-harness}
apt_dir=$cache/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/debs"

# The archive's addresses, as this machine's own sources name them: the
# main archive and its security archive (deb822 .sources or one-line .list).
uris=$( {
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]\+\).*/\2/p'
	cat /etc/apt/sources.list.d/*.sources 2>/dev/null | sed -n 's/^URIs:[[:space:]]*//p' | tr ' ' '\n'
} | sed 's:/*$::' | sort -u)
archive=$(grep -E '/debian$' <<<"$uris" | head -1 || true)
security=$(grep -E '/debian-security$' <<<"$uris" | head -1 || true)
if [ -z "$archive" ]; then
	echo "fetch-kernel: this machine's apt sources name no Debian archive (a URI ending in /debian)" >&2
	exit 1
fi
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
{
	# the suites that carry the series the harness brings up, and their
	# neighbours: stable's backports, testing, unstable, experimental, and
	# the old stable releases with their security updates
	for suite in trixie trixie-updates trixie-backports forky sid experimental \
		bookworm-backports bullseye bullseye-updates; do
		echo "deb [signed-by=$keyring] $archive $suite main"
	done
	if [ -n "$security" ]; then
		for suite in bullseye-security bookworm-security trixie-security; do
			echo "deb [signed-by=$keyring] $security $suite main"
		done
	fi
} > "$apt_dir/sources.list.$$"
# in place at once: the guest tests ask for the tree's version in parallel
mv "$apt_dir/sources.list.$$" "$apt_dir/sources.list"

apt_opts=(
	-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o "Dir::Etc::sourceparts=-"
	-o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
	-o "Dir::Cache::archives=$apt_dir/archives" -o "APT::Get::List-Cleanup=0"
	-o "Debug::NoLocking=1" -o "Acquire::Languages=none")
# as root, apt would hand the download to its _apt user, who cannot write
# into a cache under /root
[ "$(id -u)" -ne 0 ] || apt_opts+=(-o "APT::Sandbox::User=root")
mkdir -p "$apt_dir/cache"
# the lists once a day
stamp=$apt_dir/lists/.updated
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +1440)" ]; then
	echo "fetch-kernel: reading the archive's package lists into $apt_dir" >&2
	# a suite the archive no longer serves is a warning, not a stop
	if ! apt-get "${apt_opts[@]}" update -q >"$apt_dir/update.log" 2>&1; then
		grep -E '^(E|W):' "$apt_dir/update.log" >&2 || true
	fi
	touch "$stamp"
fi

source_pkg=linux-source-$series
# the versions the archive serves, newest first
versions=$(apt-cache "${apt_opts[@]}" madison "$source_pkg" 2>/dev/null |
	awk -F'|' '{gsub(/ /, "", $2); print $2}' | sort -u | sort -rV)
if [ -z "$versions" ]; then
	have=$(apt-cache "${apt_opts[@]}" pkgnames linux-source- 2>/dev/null | sort -V | tr '\n' ' ')
	echo "fetch-kernel: the archive serves no $source_pkg; it has: ${have:-nothing}" >&2
	exit 1
fi
if [ -n "$want" ]; then
	if ! grep -qxF "$want" <<<"$versions"; then
		echo "fetch-kernel: the archive serves no $source_pkg $want; it has: $(echo $versions)" >&2
		exit 1
	fi
	version=$want
else	# the newest release (a version without ~rc)
	version=$(grep -v '~rc' <<<"$versions" | head -1 || true)
	if [ -z "$version" ]; then
		echo "fetch-kernel: the archive serves only release candidates of $source_pkg: $(echo $versions); name one as $series=VERSION" >&2
		exit 1
	fi
fi

fetch() {	# package version destination
	local package=$1 v=$2 dest=$3
	if [ -f "$dest/.fetched" ]; then return 0; fi
	local deb
	(cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" download -q "$package=$v" >&2) || {
		echo "fetch-kernel: apt-get download $package=$v failed" >&2
		exit 1
	}
	deb=$(ls -t "$apt_dir/debs/${package}_"*.deb | head -1)
	rm -rf "$dest.partial"
	mkdir -p "$dest.partial"
	dpkg-deb -x "$deb" "$dest.partial"
	rm -f "$deb"
	touch "$dest.partial/.fetched"
	rm -rf "$dest"
	mv "$dest.partial" "$dest"
}

if [ $guest -eq 0 ]; then
	dest=$cache/trees/${source_pkg}_$version
	fetch "$source_pkg" "$version" "$dest"
	tarball=$dest/usr/src/$source_pkg.tar.xz
	if [ ! -f "$tarball" ]; then
		echo "fetch-kernel: $source_pkg $version holds no usr/src/$source_pkg.tar.xz" >&2
		exit 1
	fi
	echo "fetch-kernel: $source_pkg $version" >&2
	echo "$tarball"
	exit 0
fi

# The guest: the amd64 image built from the same source version. Its
# package names the ABI (linux-image-7.3.4+deb13-amd64); find the one whose
# source is linux at this version.
source_version=$(apt-cache "${apt_opts[@]}" show "$source_pkg=$version" 2>/dev/null |
	sed -n 's/^Source: linux (\(.*\))$/\1/p' | head -1)
source_version=${source_version:-$version}
image=""
series_re=${series//./\\.}
for kind in -unsigned ""; do
	mapfile -t candidates < <(apt-cache "${apt_opts[@]}" pkgnames "linux-image-$series" 2>/dev/null |
		grep -E "^linux-image-$series_re[-.0-9a-z+~]*-amd64$kind\$" | grep -v -e '-rt-' -e '-cloud-' || true)
	[ ${#candidates[@]} -gt 0 ] || continue
	image=$(apt-cache "${apt_opts[@]}" madison "${candidates[@]}" 2>/dev/null |
		awk -F' *[|] *' -v v="$source_version" '$2 == v && !p { p = $1 } END { print p }')
	[ -n "$image" ] && break
done
if [ -z "$image" ]; then
	echo "fetch-kernel: the archive serves no amd64 image of linux $source_version" >&2
	exit 1
fi
dest=$cache/guests/${image}_$source_version
fetch "$image" "$source_version" "$dest"
# From 7.x Debian splits the image: the kernel is in linux-binary-ABI
# (usr/lib/modules/ABI/vmlinuz), its config in linux-base-ABI; the image
# package depends on both, at its version.
for part in $(apt-cache "${apt_opts[@]}" show "$image=$source_version" 2>/dev/null |
	sed -n 's/^Depends: //p' | head -1 | tr ',' '\n' | sed -n 's/^ *\(linux-\(binary\|base\)-[^ ]*\).*/\1/p'); do
	fetch "$part" "$source_version" "$dest.$part"
	cp -a "$dest.$part"/usr "$dest"/ 2>/dev/null || true
done
kernel=$(find "$dest" \( -path '*/boot/vmlinuz-*' -o -path '*/usr/lib/modules/*/vmlinuz' \) | head -1)
if [ -z "$kernel" ]; then
	echo "fetch-kernel: $image $source_version holds no kernel (boot/vmlinuz-*, or its linux-binary package's)" >&2
	exit 1
fi
echo "fetch-kernel: $image $source_version" >&2
echo "$dest"
