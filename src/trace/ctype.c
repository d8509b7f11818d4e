// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "trace/ctype.h"

/* Integer types by the words C spells them with, as vmlinux's BTF names them. */
static const char *int_name(int nr_long, bool is_unsigned, bool is_signed, bool has_char,
			    bool has_short)
{
	if (has_char)
		return is_unsigned ? "unsigned char" : is_signed ? "signed char" : "char";
	if (has_short)
		return is_unsigned ? "short unsigned int" : "short int";
	if (nr_long >= 2)
		return is_unsigned ? "long long unsigned int" : "long long int";
	if (nr_long == 1)
		return is_unsigned ? "long unsigned int" : "long int";
	return is_unsigned ? "unsigned int" : "int";
}

struct type_words {
	char name[128]; /* a typedef or tag name, or "" */
	int kind;	/* BTF_KIND_STRUCT/UNION/ENUM for a tag, else 0 */
	int nr_long, stars;
	bool is_unsigned, is_signed, has_char, has_short, has_int, has_void, has_bool, has_float;
};

static bool is_word(const char *w, size_t len, const char *name)
{
	return strlen(name) == len && !strncmp(w, name, len);
}

/* Sorts the words of decl into t; false when it is no type C would take. */
static bool read_words(const char *decl, struct type_words *t)
{
	const char *s = decl;

	memset(t, 0, sizeof(*t));
	while (*s) {
		const char *w = s;
		size_t len;

		if (*s == '*' || *s == ' ' || *s == '\t') {
			t->stars += *s++ == '*';
			continue;
		}
		while (*s && *s != '*' && *s != ' ' && *s != '\t')
			s++;
		len = s - w;
		if (t->stars)
			return false; /* "char * const" and the like */
		if (is_word(w, len, "const") || is_word(w, len, "volatile") ||
		    is_word(w, len, "restrict"))
			continue;
		if (is_word(w, len, "struct") || is_word(w, len, "union") ||
		    is_word(w, len, "enum")) {
			t->kind = *w == 's'   ? BTF_KIND_STRUCT
				  : *w == 'u' ? BTF_KIND_UNION
					      : BTF_KIND_ENUM;
			continue;
		}
		t->nr_long += is_word(w, len, "long");
		t->is_unsigned |= is_word(w, len, "unsigned");
		t->is_signed |= is_word(w, len, "signed");
		t->has_char |= is_word(w, len, "char");
		t->has_short |= is_word(w, len, "short");
		t->has_int |= is_word(w, len, "int");
		t->has_void |= is_word(w, len, "void");
		t->has_bool |= is_word(w, len, "_Bool") || is_word(w, len, "bool");
		t->has_float |= is_word(w, len, "float") || is_word(w, len, "double");
		if (is_word(w, len, "long") || is_word(w, len, "unsigned") ||
		    is_word(w, len, "signed") || is_word(w, len, "char") ||
		    is_word(w, len, "short") || is_word(w, len, "int") || is_word(w, len, "void") ||
		    is_word(w, len, "_Bool") || is_word(w, len, "bool") ||
		    is_word(w, len, "float") || is_word(w, len, "double"))
			continue;
		if (t->name[0] || len >= sizeof(t->name))
			return false;
		memcpy(t->name, w, len);
		t->name[len] = '\0';
	}
	return true;
}

/* The id of t's base type (before its stars) in btf: 0 is void; -errno. */
static int base_type(const struct btf *btf, const struct type_words *t)
{
	int id;

	if (t->kind)
		return t->name[0] ? btf__find_by_name_kind(btf, t->name, t->kind) : -EINVAL;
	if (t->name[0]) {
		id = btf__find_by_name_kind(btf, t->name, BTF_KIND_TYPEDEF);
		return id > 0 ? id : btf__find_by_name_kind(btf, t->name, BTF_KIND_INT);
	}
	if (t->has_float)
		return -EOPNOTSUPP;
	if (t->has_void)
		return 0;
	if (t->has_bool)
		return btf__find_by_name_kind(btf, "_Bool", BTF_KIND_INT);
	return btf__find_by_name_kind(
		btf, int_name(t->nr_long, t->is_unsigned, t->is_signed, t->has_char, t->has_short),
		BTF_KIND_INT);
}

int ctype_read(const struct btf *btf, const char *decl, struct ctype *out)
{
	struct type_words t;
	int id;

	memset(out, 0, sizeof(*out));
	if (!read_words(decl, &t))
		return -EINVAL;
	memcpy(out->name, t.name, sizeof(out->name));
	out->stars = t.stars;
	id = base_type(btf, &t);
	return id < 0 && id != -EOPNOTSUPP && id != -EINVAL ? -ENOENT : id;
}

int ctype_add_ptrs(struct btf *btf, int id, int stars)
{
	int i;

	for (i = 0; i < stars && id >= 0; i++)
		id = btf__add_ptr(btf, id);
	return id;
}
