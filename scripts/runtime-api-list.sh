#!/bin/sh
# runtime-api-list.sh cuda|hip HEADER... : the functions a runtime's public
# headers declare, as the X-macro list runtime-stub/api_<runtime>.def the
# stub's stand-in libcudart / libamdhip64 is built from:
#
#   API_ERR(name)      returns the runtime's error code
#   API_STR(name)      returns const char *
#   API_INT(name)      returns int (not an error code)
#   API_CHANNEL(name)  returns a channel format descriptor by value
#
# CUDA's per-thread default-stream variants (#define cudaX
# __CUDART_API_PTDS(cudaX)) are listed too, as cudaX_ptds / cudaX_ptsz,
# and so are the versioned names HIP maps its functions to (#define
# hipGetDeviceProperties hipGetDevicePropertiesR0600).
# A declaration whose return type is none of these stops the script: the
# list is complete or it is not written.  POSIX sh, sed and awk only.
#
#   API_SOURCE="CUDA 13.0" scripts/runtime-api-list.sh cuda \
#       /usr/local/cuda/include/cuda_runtime_api.h ... >runtime-stub/api_cuda.def
# (docs/offstub-api.md gives the exact header lists.)
set -eu
[ $# -ge 2 ] || { echo "usage: $0 cuda|hip HEADER..." >&2; exit 2; }
runtime=$1
shift
case $runtime in
cuda | hip) ;;
*) echo "$0: runtime must be cuda or hip, not '$runtime'" >&2; exit 2 ;;
esac
for h in "$@"; do
	[ -r "$h" ] || { echo "$0: cannot read $h" >&2; exit 1; }
done

tmp=${TMPDIR:-/tmp}/runtime-api-list.$$

# One awk program over all headers: comments and preprocessor lines out
# (the per-thread #defines noted first), then the text split into
# statements at ';', '{' and '}', each statement that declares a
# <runtime>[A-Z]... function classified by what precedes its name.
awk -v rt="$runtime" '
function classify(ret) {
	gsub(/HIP_DEPRECATED *\([^)]*\)/, " ", ret)
	gsub(/__attribute__ *\(\([^)]*\)\)/, " ", ret)
	ret = " " ret " "
	gsub(/ /, "  ", ret)   # every token between two spaces of its own
	gsub(/ (extern|"C"|__host__|__device__|__cudart_builtin__|CUDARTAPI|__CUDA_DEPRECATED|HIP_PUBLIC_API) /, " ", ret)
	gsub(/  +/, " ", ret); sub(/^ /, "", ret); sub(/ $/, "", ret)
	if (ret ~ /^(cudaError_t|hipError_t|enum cudaError|enum hipError_t)$/) return "ERR"
	if (ret ~ /^const char ?\*$/) return "STR"
	if (ret ~ /^int$/) return "INT"
	if (ret ~ /^(struct )?(cudaChannelFormatDesc|hipChannelFormatDesc)$/) return "CHANNEL"
	return ""
}
function statement(s,    m, name, pre, k) {
	gsub(/[ \t\r\n]+/, " ", s)
	sub(/^ /, "", s)
	if (s !~ ("(^|[ *])" rt "[A-Z][A-Za-z0-9_]* ?\\(")) return
	if (s ~ /(^| )(static|inline|template|typedef|return|operator|using)( |$|<)/) return
	if (s ~ /=/ && s !~ /\(.*=.*\)/) return
	m = match(s, rt "[A-Z][A-Za-z0-9_]* ?\\(")
	pre = substr(s, 1, m - 1)
	name = substr(s, m, RLENGTH)
	sub(/ ?\($/, "", name)
	if (pre ~ /\(/ && pre !~ /(HIP_DEPRECATED|__attribute__) *\(/) return
	if (pre ~ /^ *$/) return   # a call (inside an inline helper), not a declaration
	k = classify(pre)
	if (k == "") {
		printf "runtime-api-list.sh: %s: unknown return type \"%s\"\n", name, pre > "/dev/stderr"
		bad = 1
		return
	}
	if (!(name in kind)) order[n++] = name
	kind[name] = k
}
{
	line = $0
	# per-thread default stream variants
	if (line ~ /^[ \t]*#[ \t]*define[ \t]+cuda[A-Za-z0-9_]+[ \t]+__CUDART_API_PT(DS|SZ)\(/) {
		split(line, f, /[ \t(),]+/)
		for (i = 1; i in f; i++) if (f[i] ~ /^__CUDART_API_PT/) {
			ptvar[f[i + 1] (f[i] ~ /PTDS$/ ? "_ptds" : "_ptsz")] = f[i + 1]
			break
		}
	}
	# a name the header maps to a versioned one (#define hipGetDeviceProperties
	# hipGetDevicePropertiesR0600): programs call the versioned name
	if (line ~ ("^[ \t]*#[ \t]*define[ \t]+" rt "[A-Z][A-Za-z0-9_]*[ \t]+" rt "[A-Z][A-Za-z0-9_]*[ \t]*$")) {
		split(line, f, /[ \t]+/)
		for (i = 1; i in f; i++) if (f[i] ~ /define$/) { renamed[f[i + 2]] = f[i + 1]; break }
	}
	# comments
	out = ""
	while (line != "") {
		if (incomment) {
			e = index(line, "*/")
			if (!e) { line = ""; break }
			line = substr(line, e + 2); incomment = 0
			continue
		}
		b = index(line, "/*"); c = index(line, "//")
		if (c && (!b || c < b)) { out = out substr(line, 1, c - 1); line = ""; break }
		if (!b) { out = out line; line = ""; break }
		out = out substr(line, 1, b - 1) " "
		line = substr(line, b + 2); incomment = 1
	}
	if (out ~ /^[ \t]*#/) {
		# a continued preprocessor line continues to be skipped
		skipping = (out ~ /\\[ \t]*$/)
		next
	}
	if (skipping) { skipping = (out ~ /\\[ \t]*$/); next }
	text = text " " out
	while ((p = match(text, /[;{}]/))) {
		statement(substr(text, 1, p - 1))
		text = substr(text, p + 1)
	}
}
END {
	if (bad) exit 1
	for (v in ptvar) if (ptvar[v] in kind) { order[n++] = v; kind[v] = kind[ptvar[v]] }
	for (v in renamed) if ((renamed[v] in kind) && !(v in kind)) { order[n++] = v; kind[v] = kind[renamed[v]] }
	for (i = 0; i < n; i++) print "API_" kind[order[i]] "(" order[i] ")"
}' "$@" >"$tmp.raw" || { rm -f "$tmp.raw"; exit 1; }
LC_ALL=C sort -t'(' -k2 "$tmp.raw" >"$tmp"
rm -f "$tmp.raw"
{
	echo "/* The $runtime runtime API: every function its public headers declare,"
	echo " * as X-macros (runtime-stub/api_calls.c says what each expands to)."
	echo " * Generated by scripts/runtime-api-list.sh from${API_SOURCE:+ the headers of $API_SOURCE}:"
	for h in "$@"; do echo " *   $(basename "$h")"; done
	echo " * Do not edit: scripts/update-runtime-api.sh regenerates it. */"
	cat "$tmp"
}
rm -f "$tmp"
