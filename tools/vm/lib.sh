# Shared helpers for the VM lab scripts (sourced, bash).
# Exit codes follow mmbench: 0 pass, 1 fail, 2 usage/bad input, 4 skip.

vm_prog=${vm_prog:-$(basename "$0")}
VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_TOP=$(cd "$VM_DIR/../.." && pwd)

vm_log() { echo "$vm_prog: $*" >&2; }
vm_die() { echo "$vm_prog: $*" >&2; exit 1; }
vm_usage_die() { echo "$vm_prog: $*" >&2; exit 2; }

# Cache root: $XDG_CACHE_HOME/mmbench, else ~/.cache/mmbench.
vm_cache_dir()
{
	local home=${HOME:-}

	[ -n "$home" ] || home=$(getent passwd "$(id -u)" | cut -d: -f6)
	echo "${XDG_CACHE_HOME:-$home/.cache}/mmbench"
}

# Parse a size like 512M, 1G, 1024 (MiB when no suffix) into MiB.
vm_size_mb()
{
	local s=$1 n unit

	if [[ ! $s =~ ^([0-9]+)([KkMmGg]?)(i?[Bb])?$ ]]; then
		return 1
	fi
	n=${BASH_REMATCH[1]}
	unit=${BASH_REMATCH[2]}
	case "$unit" in
	K|k) n=$((n / 1024)) ;;
	G|g) n=$((n * 1024)) ;;
	esac
	[ "$n" -gt 0 ] || return 1
	echo "$n"
}

# The release string of a bzImage: the boot protocol's setup header has
# "HdrS" at 0x202 and, at 0x20e, the offset (minus 0x200) of a string that
# starts with the kernel release ("6.1.0-28-amd64 (debian-kernel@...) #1 ...").
vm_bzimage_release()
{
	local f=$1 magic off

	magic=$(dd if="$f" bs=1 skip=514 count=4 status=none 2>/dev/null) || return 1
	[ "$magic" = HdrS ] || return 1
	off=$(od -An -tu2 -j 526 -N2 "$f" 2>/dev/null | tr -d ' ') || return 1
	[ -n "$off" ] && [ "$off" -gt 0 ] || return 1
	dd if="$f" bs=1 skip=$((off + 512)) count=200 status=none 2>/dev/null |
		tr '\0' '\n' | head -n1 | cut -d' ' -f1
}


