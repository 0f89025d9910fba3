# shellcheck shell=bash
# Shared helpers for the VM lab scripts (sourced, bash).
# Exit codes follow mmbench: 0 pass, 1 fail, 2 usage/bad input, 4 skip.

vm_prog=${vm_prog:-$(basename "$0")}
VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_TOP=$(cd "$VM_DIR/../.." && pwd)
# Messages, --help, the suite rule, the build step and the run options:
# the front door's library (tools/lib/front.sh); the vm_* names stay.
front_prog=$vm_prog
. "$VM_TOP/tools/lib/front.sh"

vm_log() { msg "$@"; }
vm_die() { die 1 "$@"; }
vm_usage_die() { usage_die "$@"; }

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

# Unpack the ELF vmlinux inside a bzImage to OUT, and succeed only if it
# carries the PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY, CONFIG_PVH): QEMU
# then loads it directly and the guest skips decompressing itself, which
# under TCG is emulated code (seconds for an xz'd Debian kernel). The
# compressed payload's place is in the boot protocol header (2.08+):
# setup_sects at 0x1f1, payload_offset at 0x248, payload_length at 0x24c.
vm_extract_vmlinux()
{
	local in=$1 out=$2 sects off len magic tmp=$2.tmp.$$

	sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$in" | tr -d ' ')
	[ "$sects" = 0 ] && sects=4
	off=$(od -An -tu4 -j $((0x248)) -N4 "$in" | tr -d ' ')
	len=$(od -An -tu4 -j $((0x24c)) -N4 "$in" | tr -d ' ')
	[ -n "$off" ] && [ -n "$len" ] && [ "$len" -gt 0 ] || return 1
	off=$(((sects + 1) * 512 + off))
	magic=$(od -An -tx1 -j "$off" -N6 "$in" | tr -d ' ')
	# The kernel appends the uncompressed size after the stream, hence
	# --single-stream and the tolerated zstd complaint about trailing data.
	case "$magic" in
	1f8b*) tail -c +$((off + 1)) "$in" | head -c "$len" | gzip -dc >"$tmp" 2>/dev/null ;;
	fd377a585a00) tail -c +$((off + 1)) "$in" | head -c "$len" | xz -dc --single-stream >"$tmp" 2>/dev/null ;;
	28b52ffd*) tail -c +$((off + 1)) "$in" | head -c "$len" | zstd -dc >"$tmp" 2>/dev/null ;;
	*) return 1 ;;
	esac
	if [ "$(head -c4 "$tmp" 2>/dev/null | od -An -tx1 | tr -d ' ')" = 7f454c46 ] &&
		readelf -n "$tmp" 2>/dev/null | grep -q 'Xen.*0x00000012'; then
		mv "$tmp" "$out"
		return 0
	fi
	rm -f "$tmp"
	return 1
}

# --help: the comment block at the top of the script.
vm_help() { show_help; }
