// SPDX-License-Identifier: GPL-2.0
/*
 * printk, WARN and panic. Messages are formatted here (libc's conversions
 * plus the kernel's %p extensions the compiled files use) and handed to the
 * C++ runtime, which captures them (shown with --verbose) and turns WARN
 * and BUG into failures naming file and line.
 */
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/bug.h>
#include <linux/of.h>
#include <linux/cpumask.h>
#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/device.h>
#include <linux/ctype.h>
#include <linux/slab.h>

#include <kshim/compat/panic.h>
#include <linux/reboot.h>
#include <linux/version.h>
#include <linux/sched/debug.h>
#include <linux/seq_file.h>
#include <kshim/compat/reboot.h>

#include "shim.h"

/* %*pbl: "0-3,6", the cpulist format of bitmap_print_to_pagebuf(). */
static int format_bitmap_list(char *buf, size_t size, const unsigned long *bits, int nbits)
{
	int len = 0;
	unsigned int start, end;

	buf[0] = '\0';
	/* each run of set bits [start, end), with what every tree has */
	for (start = find_first_bit(bits, nbits); start < (unsigned int)nbits;
	     start = find_next_bit(bits, nbits, end)) {
		end = find_next_zero_bit(bits, nbits, start);
		if (end - 1 == start)
			len += snprintf(buf + len, size - len, "%s%u", len ? "," : "", start);
		else
			len += snprintf(buf + len, size - len, "%s%u-%u", len ? "," : "", start, end - 1);
		if (len >= (int)size)
			return size - 1;
	}
	return len;
}

/*
 * Formats one kernel %p extension at *fmt (just after "%p" or "%*p") into
 * buf; returns the number of format characters consumed.
 */
static int format_pointer(char *buf, size_t size, const char *fmt, void *ptr,
			  int width, int *written)
{
	if (fmt[0] == 'O' && fmt[1] == 'F') {
		const struct device_node *np = ptr;

		if (fmt[2] == 'n') {	/* node name without unit address */
			const char *name = np ? kbasename(np->full_name) : "(null)";

			*written = snprintf(buf, size, "%.*s", (int)(strchrnul(name, '@') - name), name);
			return 3;
		}
		*written = kshim_of_path(np, buf, size);
		return fmt[2] == 'f' || fmt[2] == 'p' ? 3 : 2;
	}
	if (fmt[0] == 'b' && fmt[1] == 'l') {
		*written = format_bitmap_list(buf, size, ptr, width);
		return 2;
	}
	if (fmt[0] == 'e') {
		*written = snprintf(buf, size, "%ld", PTR_ERR(ptr));
		return 1;
	}
	if (fmt[0] == 's' || fmt[0] == 'S' || fmt[0] == 'B') {
		*written = snprintf(buf, size, "%p", ptr);
		return 1;
	}
	*written = snprintf(buf, size, "%p", ptr);
	return 0;
}

int kshim_vformat(char *buf, size_t size, const char *fmt, va_list args)
{
	size_t len = 0;
	char spec[32];

	while (*fmt && len + 1 < size) {
		const char *start = fmt;
		int star = 0, written = 0;
		size_t n;

		if (*fmt != '%') {
			buf[len++] = *fmt++;
			continue;
		}
		if (fmt[1] == '%') {
			buf[len++] = '%';
			fmt += 2;
			continue;
		}
		/* flags, width, precision (either may be '*'), length, conversion */
		fmt++;
		while (*fmt && strchr("-+ #0", *fmt))
			fmt++;
		while (*fmt && (isdigit(*fmt) || *fmt == '.' || *fmt == '*')) {
			if (*fmt == '*')
				star++;
			fmt++;
		}
		while (*fmt && strchr("hlzjtL", *fmt))
			fmt++;
		if (!*fmt)
			break;
		if (*fmt == 'p') {
			int width = -1;
			void *ptr;

			while (star--)
				width = va_arg(args, int);
			ptr = va_arg(args, void *);

			fmt++;
			fmt += format_pointer(buf + len, size - len, fmt, ptr, width, &written);
		} else {
			va_list copy;

			n = fmt - start + 1;
			if (n >= sizeof(spec))
				n = sizeof(spec) - 1;
			memcpy(spec, start, n);
			spec[n] = '\0';
			va_copy(copy, args);
			written = vsnprintf(buf + len, size - len, spec, copy);
			va_end(copy);
			/* consume the arguments the conversion used */
			while (star--)
				(void)va_arg(args, int);
			switch (*fmt) {
			case 's':
				(void)va_arg(args, char *);
				break;
			case 'f': case 'e': case 'g':
				(void)va_arg(args, double);
				break;
			default:
				if (strstr(spec, "ll") || strchr(spec, 'z') || strchr(spec, 'l') ||
				    strchr(spec, 'j') || strchr(spec, 't'))
					(void)va_arg(args, long long);
				else
					(void)va_arg(args, int);
			}
			fmt++;
		}
		if (written > 0)
			len += min_t(size_t, written, size - len - 1);
	}
	buf[len] = '\0';
	return len;
}

static void emit(const char *fmt, va_list args)
{
	char text[1024];
	int level = -1;

	if (fmt[0] == KERN_SOH_ASCII && fmt[1]) {
		if (fmt[1] >= '0' && fmt[1] <= '7')
			level = fmt[1] - '0';
		else if (fmt[1] == KERN_CONT[1])
			level = KSHIM_LOG_CONT;
		fmt += 2;
	}
	kshim_vformat(text, sizeof(text), fmt, args);
	shim_log(level, text);
}

asmlinkage __visible int _printk(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	emit(fmt, args);
	va_end(args);
	return 0;
}
EXPORT_SYMBOL(_printk);

#if KSHIM_KERNEL_LT(5, 15, 0)
/* printk() is the function itself before 5.15 (commit 337015573718,
 * "printk: Userspace format indexing support"), _printk() under a macro
 * since */
asmlinkage __visible int printk(const char *fmt, ...) __alias(_printk);
#endif

void warn_slowpath_fmt(const char *file, int line, unsigned int taint, const char *fmt, ...)
{
	char text[512] = "";
	va_list args;

	if (fmt) {
		va_start(args, fmt);
		kshim_vformat(text, sizeof(text), fmt, args);
		va_end(args);
	}
	shim_warn(file, line, __builtin_return_address(0), text);
}

int vscnprintf(char *buf, size_t size, const char *fmt, va_list args)
{
	if (!size)
		return 0;
	return kshim_vformat(buf, size, fmt, args);
}

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list args;
	int len;

	va_start(args, fmt);
	len = vscnprintf(buf, size, fmt, args);
	va_end(args);
	return len;
}

char *kvasprintf(gfp_t gfp, const char *fmt, va_list args)
{
	char *text = kmalloc(1024, gfp);

	if (text)
		kshim_vformat(text, 1024, fmt, args);
	return text;
}

char *kasprintf(gfp_t gfp, const char *fmt, ...)
{
	va_list args;
	char *text;

	va_start(args, fmt);
	text = kvasprintf(gfp, fmt, args);
	va_end(args);
	return text;
}

void panic(const char *fmt, ...)
{
	char text[512];
	va_list args;

	va_start(args, fmt);
	kshim_vformat(text, sizeof(text), fmt, args);
	va_end(args);
	shim_fatal(text);
}

/*
 * kernel/reboot.c: the board protects itself by powering off (a thermal
 * zone's critical trip). The simulation cannot go on: it ends as a fault
 * naming the reason.
 */
KSHIM_HW_PROTECTION_ENTRY(reason, ms_until_forced)
{
	char text[256];

	snprintf(text, sizeof(text), "hw_protection_shutdown(): the board powers off: %s", reason);
	shim_fatal(text);
}

#if KSHIM_KERNEL_LT(6, 1, 0)
/* thermal_core.c's critical trip before hw_protection_shutdown() (in 6.1,
 * not in 5.10.262; bracketed), after it logged the zone and temperature */
void orderly_poweroff(bool force)
{
	shim_fatal("orderly_poweroff(): the board powers off (a thermal zone's critical trip)");
}
#endif

/* dev_printk(): "cpu4: message", the device named as the kernel names CPU devices. */
static void dev_emit(int level, const struct device *dev, const char *fmt, va_list args)
{
	char text[768];
	int len = 0;

	if (dev && dev->bus && dev->bus->dev_name)
		len = snprintf(text, sizeof(text), "%s%u: ", dev->bus->dev_name, dev->id);
	else if (dev && dev_name(dev))
		len = snprintf(text, sizeof(text), "%s: ", dev_name(dev));
	kshim_vformat(text + len, sizeof(text) - len, fmt, args);
	shim_log(level, text);
}

#define DEFINE_DEV_PRINTK(name, level)					\
void name(const struct device *dev, const char *fmt, ...)		\
{									\
	va_list args;							\
									\
	va_start(args, fmt);						\
	dev_emit(level, dev, fmt, args);				\
	va_end(args);							\
}

DEFINE_DEV_PRINTK(_dev_emerg, LOGLEVEL_EMERG)
DEFINE_DEV_PRINTK(_dev_crit, LOGLEVEL_CRIT)
DEFINE_DEV_PRINTK(_dev_err, LOGLEVEL_ERR)
DEFINE_DEV_PRINTK(_dev_warn, LOGLEVEL_WARNING)
DEFINE_DEV_PRINTK(_dev_info, LOGLEVEL_INFO)

/* printk_deferred() is printk() here: there is no console to defer for. */
asmlinkage __visible int _printk_deferred(const char *fmt, ...) __alias(_printk);
#if KSHIM_KERNEL_LT(5, 15, 0)
asmlinkage __visible int printk_deferred(const char *fmt, ...) __alias(_printk);
#endif

/* Every message counts: no rate limit hides one from the log. */
int __printk_ratelimit(const char *func)
{
	return 1;
}

/* A WARN already names file, line and function (shim_warn()); there are
 * no registers or kernel stack to dump. */
asmlinkage __visible void dump_stack(void)
{
}

void show_regs(struct pt_regs *regs)
{
}

void show_stack(struct task_struct *task, unsigned long *sp, const char *loglvl)
{
}

int oops_in_progress;

void add_taint(unsigned flag, enum lockdep_ok lockdep_ok)
{
}

/* panic_on_warn is never set: a WARN fails the run, it does not stop it. */
void check_panic_on_warn(const char *origin)
{
}

/* seq_file output is only for debugfs/procfs files, which do not exist. */
void seq_printf(struct seq_file *m, const char *fmt, ...)
{
	shim_fatal("seq_printf(): no procfs or debugfs file exists here");
}
