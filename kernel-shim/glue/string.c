// SPDX-License-Identifier: GPL-2.0
/*
 * lib/string.c and the user-copy helpers lib/bitmap.c links against. libc
 * provides the classic string functions (DESIGN.md: the overlap is fine);
 * these are the kernel-only ones. Parsing bitmaps from user space
 * (bitmap_parse_user() and friends) has no user space here: reaching it
 * stops the run.
 */
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/ctype.h>
#include <linux/string.h>
#include <linux/version.h>
#include <kshim/kernel-version.h>

#include "shim.h"

char *strnchrnul(const char *s, size_t count, int c)
{
	while (count-- && *s && *s != (char)c)
		s++;
	return (char *)s;
}

char *strchrnul(const char *s, int c)
{
	while (*s && *s != (char)c)
		s++;
	return (char *)s;
}

void *memdup_user_nul(const void __user *src, size_t len)
{
	shim_fatal("memdup_user_nul(): there is no user space in sched-harness");
}

ssize_t memory_read_from_buffer(void *to, size_t count, loff_t *ppos, const void *from,
				size_t available)
{
	shim_fatal("memory_read_from_buffer(): sysfs does not exist in sched-harness");
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
int __devm_add_action(struct device *dev, void (*action)(void *), void *data, const char *name)
#else
int devm_add_action(struct device *dev, void (*action)(void *), void *data)
#endif
{
	shim_fatal("devm_add_action(): managed device resources are not modelled");
}

/* lib/string.c */
int match_string(const char * const *array, size_t n, const char *string)
{
	size_t index;

	for (index = 0; index < n; index++) {
		if (!array[index])
			break;
		if (!strcmp(array[index], string))
			return index;
	}
	return -EINVAL;
}

/* lib/string.c's strscpy(): -E2BIG when truncated, always terminated.
 * Since 6.8 strscpy() is a macro over sized_strscpy(). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
ssize_t sized_strscpy(char *dest, const char *src, size_t count)
#else
ssize_t strscpy(char *dest, const char *src, size_t count)
#endif
{
	size_t len;

	if (!count)
		return -E2BIG;
	len = strnlen(src, count);
	if (len == count) {
		memcpy(dest, src, count - 1);
		dest[count - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dest, src, len + 1);
	return len;
}

#if KSHIM_KERNEL_LT(6, 1, 0)
/* lib/string.c's strlcpy(), which 5.10.262's fair.c and thermal_core.c
 * call (6.1's strscpy() instead): the length of src, a truncated copy */
size_t strlcpy(char *dest, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len >= size ? size - 1 : len;

		memcpy(dest, src, n);
		dest[n] = '\0';
	}
	return len;
}
#endif

/* lib/string_helpers.c / lib/string.c */
char *skip_spaces(const char *str)
{
	while (isspace(*str))
		++str;
	return (char *)str;
}

char *strim(char *s)
{
	size_t size = strlen(s);
	char *end;

	if (!size)
		return s;
	end = s + size - 1;
	while (end >= s && isspace(*end))
		end--;
	*(end + 1) = '\0';
	return skip_spaces(s);
}

/*
 * lib/vsprintf.c's simple_strtoull() and simple_strtol(), for lib/cmdline.c:
 * libc's strtoull()/strtol() parse the same digits and base prefixes; they
 * also skip leading blanks, which the kernel's do not (lib/cmdline.c's
 * callers pass none).
 */
unsigned long long strtoull(const char *nptr, char **endptr, int base);
long strtol(const char *nptr, char **endptr, int base);

unsigned long long simple_strtoull(const char *cp, char **endp, unsigned int base)
{
	return strtoull(cp, endp, base);
}

long simple_strtol(const char *cp, char **endp, unsigned int base)
{
	return strtol(cp, endp, base);
}
