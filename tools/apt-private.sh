#!/bin/bash
# A private apt configuration under the build tree, sourced by
# tools/fetch-qemu10.sh and tools/fetch-linux.sh: one suite of the mirror
# that this machine's own Debian apt source uses (read from
# /etc/apt/sources.list{,.d}; no host name is written into the project),
# its own lists and cache, and no system source leaking in. Root is not
# needed; signatures are still checked against the machine's keyring.
#
#   . tools/apt-private.sh
#   apt_private_source              "URI SIGNED_BY" of the release's source
#   apt_private_setup DIR SUITE     fills the array apt_opts, runs update
#
# Callers set prog (the name their messages start with) first; APT_ETC (a
# variable for testing the parser) says where the machine's apt sources
# are.

apt_etc="${APT_ETC:-/etc/apt}"

die() {
	echo "$prog: $*" >&2
	exit 1
}
say() { echo "$prog: $*" >&2; }
# shellcheck disable=SC1091 # a system file, read at run time
apt_codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")

apt_private_tools() {
	local tool
	for tool in apt-get apt-cache dpkg dpkg-deb; do
		command -v "$tool" >/dev/null || die "'$tool' not found: this needs a Debian system (package: apt, dpkg)"
	done
}

# Prints "URI SIGNED_BY" for the first enabled Debian source of the
# release. One-line (.list) and deb822 (.sources) formats are both read;
# SIGNED_BY is "-" when the entry names no keyring file (apt then uses
# trusted.gpg.d).
apt_private_source() {
	local f files=()
	[ -f "$apt_etc/sources.list" ] && files+=("$apt_etc/sources.list")
	for f in "$apt_etc"/sources.list.d/*.list "$apt_etc"/sources.list.d/*.sources; do
		[ -f "$f" ] && files+=("$f")
	done
	for f in "${files[@]}"; do
		case "$f" in
		*.sources)
			# deb822: stanzas separated by blank lines; a stanza is
			# ours when it is enabled, of type deb, lists the
			# release's own suite and its URI serves it.
			awk -v want="$apt_codename" '
				function flush() {
					if (types ~ /(^| )deb( |$)/ && enabled != "no" &&
					    (" " suites " ") ~ (" " want " ") && uri != "")
						{ print uri, (kr == "" ? "-" : kr); found = 1; exit }
					types = suites = uri = kr = enabled = ""
				}
				/^[ \t]*#/ { next }
				/^[ \t]*$/ { flush(); next }
				{
					key = tolower($1); sub(/:$/, "", key)
					val = $0; sub(/^[^:]*:[ \t]*/, "", val)
					if (key == "types") types = val
					else if (key == "suites") suites = val
					else if (key == "uris") { split(val, u, " "); uri = u[1] }
					else if (key == "enabled") enabled = tolower(val)
					else if (key == "signed-by" && val ~ /^\//) kr = val
				}
				END { if (!found) flush() }' "$f"
			;;
		*)
			# deb [opt=val ...] URI SUITE COMPONENT...
			awk -v want="$apt_codename" '
				$1 != "deb" { next }
				{
					kr = "-"; i = 2
					if ($2 ~ /^\[/) {
						while (i <= NF) {
							o = $i; gsub(/[\[\]]/, "", o)
							if (o ~ /^signed-by=\//) { kr = o; sub(/^signed-by=/, "", kr) }
							if ($i ~ /\]$/) { i++; break }
							i++
						}
					}
					if ($(i + 1) == want) { print $i, kr; exit }
				}' "$f"
			;;
		esac
	done | head -n 1
}

# apt_private_setup DIR SUITE: the configuration in DIR (lists, cache,
# sources.list naming SUITE only), apt_opts set for apt-get and apt-cache,
# and the suite's lists fetched.
apt_private_setup() {
	local dir=$1 suite=$2 src uri keyring
	src=$(apt_private_source)
	[ -n "$src" ] || die "no enabled apt source for Debian '$apt_codename' found in $apt_etc/sources.list{,.d}: add one ($suite is looked up on the same mirror)"
	uri=${src%% *}
	keyring=${src#* }
	say "using this machine's Debian mirror for $suite"
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/parts.d"
	if [ "$keyring" = "-" ]; then
		echo "deb $uri $suite main" >"$dir/sources.list"
	else
		echo "deb [signed-by=$keyring] $uri $suite main" >"$dir/sources.list"
	fi
	apt_opts=(
		-o "Dir::Etc::SourceList=$dir/sources.list"
		-o "Dir::Etc::SourceParts=$dir/parts.d"
		-o "Dir::State::Lists=$dir/lists"
		-o "Dir::Cache=$dir/cache"
		-o "APT::Get::List-Cleanup=false"
	)
	if [ "$(id -u)" = 0 ]; then
		# apt drops to the _apt user for downloads; that user may not be
		# able to write into a build tree in someone's home, so keep root
		# here (the files are still verified against the keyring).
		apt_opts+=(-o "APT::Sandbox::User=root")
	fi
	say "apt-get update ($suite only, private lists in ${dir#"$root"/})"
	apt-get "${apt_opts[@]}" -q update >"$dir/update.log" 2>&1 ||
		{ cat "$dir/update.log" >&2; die "apt-get update failed (see above)"; }
}
