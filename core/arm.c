// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * arm: name patterns that enable events before they exist (usereventsd's
 * armed patterns, the CLI's -e and -p): a glob over SYSTEM:NAME, or an
 * EventHeader provider with a level and keyword mask, matched against the
 * EventHeader tracepoint name PROVIDER_L<level>K<keyword>[options].
 */
#include <errno.h>
#include <fnmatch.h>
#include <string.h>

#include "core.h"
#include "eventheader.h"
#include "userevents/abi.h"

/* Whether @name is an EventHeader tracepoint name (PROVIDER_L<l>K<k>...) of a provider @pglob names. */
static bool eh_provider_match(const char *pglob, const char *name)
{
	char provider[UE_ARM_MAX_TEXT];
	const char *dot = strrchr(name, '.');
	struct ueh_name n;
	size_t len = strlen(name);

	/* NAME.<hex> of user_events_multi: the name without the suffix. */
	if (dot && !ueh_parse_name(name, len, &n))
		len = (size_t)(dot - name);
	if (!ueh_parse_name(name, len, &n) || n.provider_len >= sizeof(provider))
		return false;
	memcpy(provider, name, n.provider_len);
	provider[n.provider_len] = '\0';
	return fnmatch(pglob, provider, 0) == 0;
}

bool ue_glob_match(const char *glob, const char *system, const char *name)
{
	const char *colon = strchr(glob, ':');
	char part[UE_ARM_MAX_TEXT];
	const char *dot;
	size_t n;

	if (colon) {
		n = (size_t)(colon - glob);
		if (n >= sizeof(part))
			return false;
		memcpy(part, glob, n);
		part[n] = '\0';
		/*
		 * Not the system: PROVIDER:EVENT, as an EventHeader event is shown;
		 * every tracepoint of the provider (EVENT is each record's own name,
		 * for whoever reads records: ue_glob_event_part()).
		 */
		if (fnmatch(part, system, 0) != 0)
			return eh_provider_match(part, name);
		glob = colon + 1;
	} else if (fnmatch(glob, system, 0) == 0) {
		return true;	/* a bare SYSTEM, as trace-cmd takes it */
	}
	if (fnmatch(glob, name, 0) == 0)
		return true;
	/* NAME.<hex> of user_events_multi: the name without the suffix. */
	dot = strrchr(name, '.');
	if (!dot || (size_t)(dot - name) >= sizeof(part))
		return false;
	memcpy(part, name, (size_t)(dot - name));
	part[dot - name] = '\0';
	return fnmatch(glob, part, 0) == 0;
}

const char *ue_glob_event_part(const char *glob, const char *system)
{
	const char *colon = strchr(glob, ':');
	char part[UE_ARM_MAX_TEXT];
	size_t n;

	if (!colon || (n = (size_t)(colon - glob)) >= sizeof(part))
		return NULL;
	memcpy(part, glob, n);
	part[n] = '\0';
	return fnmatch(part, system, 0) == 0 ? NULL : colon + 1;
}

int ue_eventheader_name(const char *name, size_t *ret_provider_len, unsigned int *ret_level,
			uint64_t *ret_keyword)
{
	struct ueh_name n;

	if (!ueh_parse_name(name, strlen(name), &n))
		return -EINVAL;
	*ret_provider_len = n.provider_len;
	*ret_level = n.level;
	*ret_keyword = n.keyword;
	return 0;
}

/* A number of the spec: decimal, 0x hex (or, @hex, bare hex); whole, at most @max. */
static int spec_number(const char *s, size_t len, bool hex, uint64_t max, uint64_t *ret)
{
	uint64_t v = 0;
	size_t i = 0;
	int d;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		hex = true;
		i = 2;
	}
	if (i == len)
		return -EINVAL;
	for (; i < len; i++) {
		char c = s[i] >= 'A' && s[i] <= 'F' ? (char)(s[i] - 'A' + 'a') : s[i];

		d = hex ? ueh_lower_hex(c) : (c >= '0' && c <= '9' ? c - '0' : -1);
		if (d < 0 || v > (max - (uint64_t)d) / (hex ? 16 : 10))
			return -EINVAL;
		v = v * (hex ? 16 : 10) + (uint64_t)d;
	}
	*ret = v;
	return 0;
}

int ue_arm_parse(enum ue_arm_kind kind, const char *text, size_t len, struct ue_arm *ret)
{
	const char *c1, *c2, *end = text + len;
	uint64_t v;

	if (!len || len >= UE_ARM_MAX_TEXT || memchr(text, '\0', len))
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)text[i] <= ' ' || text[i] == 0x7f)
			return -EINVAL;
	memset(ret, 0, sizeof(*ret));
	ret->kind = kind;
	memcpy(ret->text, text, len);
	if (kind == UE_ARM_GLOB) {
		c1 = memchr(text, ':', len);
		/* One colon at most, and a name after it. */
		if (c1 && (c1 == text || c1 + 1 == end || memchr(c1 + 1, ':', (size_t)(end - c1 - 1))))
			return -EINVAL;
		return 0;
	}
	if (kind != UE_ARM_PROVIDER)
		return -EINVAL;
	ret->level = 255;
	ret->keywords = 0;
	c1 = memchr(text, ':', len);
	c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
	if ((c1 ? c1 : end) == text || (c2 && memchr(c2 + 1, ':', (size_t)(end - c2 - 1))))
		return -EINVAL;
	memcpy(ret->provider, text, (size_t)((c1 ? c1 : end) - text));
	if (c1 && (c2 ? c2 : end) > c1 + 1) {
		if (spec_number(c1 + 1, (size_t)((c2 ? c2 : end) - c1 - 1), false, 255, &v) < 0)
			return -EINVAL;
		ret->level = (unsigned int)v;
	}
	if (c2) {
		if (spec_number(c2 + 1, (size_t)(end - c2 - 1), true, UINT64_MAX, &v) < 0)
			return -EINVAL;
		ret->keywords = v;
	}
	return 0;
}

bool ue_arm_match(const struct ue_arm *a, const char *system, const char *name)
{
	char provider[UE_ARM_MAX_TEXT];
	unsigned int level;
	uint64_t keyword;
	size_t plen;

	const char *dot = strrchr(name, '.');
	char base[UE_ARM_MAX_TEXT];

	if (a->kind == UE_ARM_GLOB)
		return ue_glob_match(a->text, system, name);
	/* NAME.<hex> of user_events_multi: the name without the suffix. */
	if (dot && strcmp(system, USER_EVENTS_MULTI_SYSTEM) == 0 &&
	    (size_t)(dot - name) < sizeof(base)) {
		memcpy(base, name, (size_t)(dot - name));
		base[dot - name] = '\0';
		name = base;
	}
	if (ue_eventheader_name(name, &plen, &level, &keyword) < 0 || plen >= sizeof(provider))
		return false;
	memcpy(provider, name, plen);
	provider[plen] = '\0';
	if (fnmatch(a->provider, provider, 0) != 0 || level > a->level)
		return false;
	/* As ETW and EventPipe: a mask of 0 is every keyword, an event of keyword 0 is in every mask. */
	return !a->keywords || !keyword || (keyword & a->keywords);
}
