# Classify the FUNCs of a "bpftool btf dump file F" (raw format) listing.
# Prints one line per FUNC name:
#   NAME COUNT NPARAMS VARIADIC REFOK
# COUNT    number of BTF FUNC entries with that name (static duplicates)
# NPARAMS  parameters, not counting "..."
# VARIADIC 1 when the prototype ends in "..."
# REFOK    1 when the reference ksnoop's type printer handles every type of
#          the prototype (see tests/host/info.sh for the rules)
# POSIX awk (mawk is enough).

function quoted(s,    a, b) {
	a = index(s, "'")
	b = index(substr(s, a + 1), "'")
	return substr(s, a + 1, b - 1)
}

function attr(s, key,    i, r) {
	i = index(s, " " key "=")
	if (!i)
		return ""
	r = substr(s, i + length(key) + 2)
	sub(/ .*/, "", r)
	return r
}

# The reference strips const/volatile/restrict and every pointer level
# (printing one '*'), then names the base type.  It cannot print
# multi-level pointers, arrays, function pointers, anonymous types, FWDs
# (no "struct" keyword), ENUM64 (no "enum" keyword) or type tags.
function refok(t,    k, ptrs) {
	ptrs = 0
	for (;;) {
		if (t == 0)
			return ptrs <= 1
		k = kind[t]
		if (k == "CONST" || k == "VOLATILE" || k == "RESTRICT") {
			t = ref[t]
		} else if (k == "PTR") {
			ptrs++
			t = ref[t]
		} else {
			break
		}
	}
	if (ptrs > 1 || name[t] == "(anon)")
		return 0
	return k == "INT" || k == "STRUCT" || k == "UNION" || k == "ENUM" ||
	       k == "TYPEDEF" || k == "FLOAT"
}

/^\[/ {
	id = substr($1, 2, length($1) - 2) + 0
	kind[id] = $2
	name[id] = quoted($0)
	r = attr($0, "type_id")
	if (r == "")
		r = attr($0, "ret_type_id")
	ref[id] = r + 0
	if ($2 == "FUNC_PROTO") {
		vlen[id] = attr($0, "vlen") + 0
		np[id] = 0
		cur = id
	} else {
		cur = -1
	}
	if ($2 == "FUNC")
		funcs[++nfuncs] = id
	next
}

/^\t/ {
	if (cur >= 0)
		ptype[cur, np[cur]++] = attr($0, "type_id") + 0
}

END {
	for (i = 1; i <= nfuncs; i++)
		count[name[funcs[i]]]++
	for (i = 1; i <= nfuncs; i++) {
		f = funcs[i]
		n = name[f]
		if (n in done)
			continue
		done[n] = 1
		p = ref[f]
		nparams = vlen[p]
		variadic = nparams > 0 && ptype[p, nparams - 1] == 0
		if (variadic)
			nparams--
		ok = refok(ref[p])
		for (j = 0; j < nparams && ok; j++)
			ok = refok(ptype[p, j])
		print n, count[n], nparams, variadic ? 1 : 0, ok ? 1 : 0
	}
}
