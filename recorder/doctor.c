// SPDX-License-Identifier: MIT
/*
 * doctor.c - `framerec doctor`: can a recording work here, and if not, which layer fails?
 *
 * The layers are checked in the order the Android eBPF notes (seed 003) debug them:
 * the kernel (version, BTF, uprobe PMU), the BPF syscall and the map type we need,
 * permissions (capabilities, SELinux), then the user-space side (library, symbols), the
 * sysfs node, and finally a real attach. One line per layer: PASS / WARN / FAIL + hint.
 * Exit 0 only when nothing FAILed.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "framerec.skel.h"
#include "frc_escape.h"
#include "recorder.h"

struct doctor {
	int fails;
	bool bpf_ok;
	char lib[4096]; /* path to open */
	char lib_shown[4096];
	bool lib_ok;
	pid_t pid;
	const char *lib_opt, *symbol;
	struct sym_list syms;
};

static void line(struct doctor *d, const char *verdict, const char *layer, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void line(struct doctor *d, const char *verdict, const char *layer, const char *fmt, ...)
{
	va_list ap;

	if (strcmp(verdict, "FAIL") == 0)
		d->fails++;
	char msg[1024];

	printf("%-4s  %-12s ", verdict, layer);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/*
	 * The values come from the target and the device (symbol names from the library,
	 * process names, paths from /proc, sysfs bytes): escaped, never sent raw to the
	 * terminal. The fixed text has no byte that escaping would change.
	 */
	frc_escape_write(stdout, msg, strlen(msg), FRC_ESCAPE_TEXT);
	putchar('\n');
}

static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	return ok;
}

static void check_kernel(struct doctor *d)
{
	struct utsname u;
	unsigned maj = 0, min = 0;

	if (uname(&u) || sscanf(u.release, "%u.%u", &maj, &min) != 2) {
		line(d, "WARN", "kernel", "cannot read the kernel version");
		return;
	}
	if (maj > 5 || (maj == 5 && min >= 8))
		line(d, "PASS", "kernel", "%s %s (>= 5.8: BPF ring buffer, uprobes)", u.release,
		     u.machine);
	else
		line(d, "FAIL", "kernel", "%s: BPF ring buffer needs Linux 5.8 or later",
		     u.release);
}

static void check_btf(struct doctor *d)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK) == 0)
		line(d, "PASS", "btf", "/sys/kernel/btf/vmlinux present");
	else
		line(d, "WARN", "btf",
		     "no /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF); framerec does not "
		     "need it (no CO-RE), other BPF tools may");
}

static void check_uprobe_pmu(struct doctor *d)
{
	char type[32];

	if (read_line("/sys/bus/event_source/devices/uprobe/type", type, sizeof(type)))
		line(d, "PASS", "uprobe",
		     "uprobe PMU /sys/bus/event_source/devices/uprobe (type %s)", type);
	else if (access("/sys/kernel/tracing/uprobe_events", F_OK) == 0 ||
		 access("/sys/kernel/debug/tracing/uprobe_events", F_OK) == 0)
		line(d, "WARN", "uprobe",
		     "no uprobe PMU, only tracefs uprobe_events (legacy attach path)");
	else
		line(d, "FAIL", "uprobe",
		     "no uprobe support: kernel needs CONFIG_UPROBES and CONFIG_UPROBE_EVENTS");
}

static void check_bpf_syscall(struct doctor *d)
{
	/* r0 = 0; exit: the smallest program the verifier accepts. */
	struct bpf_insn insns[2] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "frc_doctor", "GPL", insns, 2, NULL);
	int err = fd < 0 ? -fd : 0;

	if (fd >= 0) {
		close(fd);
		d->bpf_ok = true;
		line(d, "PASS", "bpf", "bpf() loaded a trivial kprobe program");
	} else if (err == ENOSYS) {
		line(d, "FAIL", "bpf",
		     "bpf() not implemented (ENOSYS): kernel without CONFIG_BPF_SYSCALL, or an "
		     "emulator such as qemu-user");
	} else if (err == EPERM || err == EACCES) {
		line(d, "FAIL", "bpf",
		     "bpf() not permitted (%s): run as root or with CAP_BPF+CAP_PERFMON+"
		     "CAP_SYS_ADMIN; SELinux may deny it (see below)",
		     strerror(err));
	} else {
		line(d, "FAIL", "bpf", "loading a trivial program failed: %s", strerror(err));
	}
}

static void check_ringbuf(struct doctor *d)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd;

	if (!d->bpf_ok) {
		line(d, "FAIL", "ringbuf", "not checked: the bpf() syscall failed");
		return;
	}
	fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "frc_doctor", 0, 0,
			    (unsigned)(page > 0 ? page : 4096), NULL);
	if (fd >= 0) {
		close(fd);
		line(d, "PASS", "ringbuf", "BPF_MAP_TYPE_RINGBUF created");
	} else {
		line(d, "FAIL", "ringbuf", "BPF_MAP_TYPE_RINGBUF refused (%s): needs Linux 5.8+",
		     strerror(-fd));
	}
}

static void check_caps(struct doctor *d)
{
	char buf[256];
	unsigned long long eff = 0;
	FILE *f = fopen("/proc/self/status", "re");
	bool found = false;

	while (f && fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "CapEff: %llx", &eff) == 1) {
			found = true;
			break;
		}
	if (f)
		fclose(f);
	if (!found) {
		line(d, "WARN", "capabilities", "cannot read CapEff from /proc/self/status");
		return;
	}
	/* CAP_SYS_ADMIN = 21 alone, or CAP_BPF = 39 with CAP_PERFMON = 38 (Linux 5.8+). */
	if (eff & (1ull << 21))
		line(d, "PASS", "capabilities", "CAP_SYS_ADMIN (CapEff %llx)", eff);
	else if ((eff & (1ull << 39)) && (eff & (1ull << 38)))
		line(d, "PASS", "capabilities", "CAP_BPF + CAP_PERFMON (CapEff %llx)", eff);
	else
		line(d, "FAIL", "capabilities",
		     "CapEff %llx lacks CAP_SYS_ADMIN or CAP_BPF+CAP_PERFMON: run as root "
		     "(adb shell su -c ...)",
		     eff);
}

static void check_selinux(struct doctor *d)
{
	char mode[16];

	if (!read_line("/sys/fs/selinux/enforce", mode, sizeof(mode)))
		line(d, "PASS", "selinux", "not enabled");
	else if (strcmp(mode, "0") == 0)
		line(d, "PASS", "selinux", "permissive");
	else
		line(d, "WARN", "selinux",
		     "enforcing: bpf/perf_event may be denied for your domain; look for avc "
		     "denials (dmesg, logcat) and try 'setenforce 0' for the session");
}

static void check_library(struct doctor *d)
{
	const char *want = d->lib_opt ? d->lib_opt : FR_DEFAULT_LIB;

	if (d->pid > 0) {
		char base[4096], comm[64];
		const char *b;

		if (!target_alive(d->pid)) {
			line(d, "FAIL", "target", "no process with PID %d", (int)d->pid);
		} else if (target_tgid(d->pid) && target_tgid(d->pid) != d->pid) {
			line(d, "FAIL", "target", "PID %d is a thread of process %d: use --pid %d",
			     (int)d->pid, (int)target_tgid(d->pid), (int)target_tgid(d->pid));
		} else if (target_is_kthread(d->pid, comm, sizeof(comm))) {
			line(d, "FAIL", "target",
			     "PID %d (%s) is a kernel thread: it runs no user code to probe",
			     (int)d->pid, comm);
		} else if (target_is_32bit(d->pid) == 1) {
			line(d, "FAIL", "target",
			     "PID %d is 32-bit: framerec records 64-bit processes only for now",
			     (int)d->pid);
		} else {
			snprintf(base, sizeof(base), "%s", want);
			b = strrchr(base, '/') ? strrchr(base, '/') + 1 : base;
			if (target_mapped_lib(d->pid, b, d->lib_shown, sizeof(d->lib_shown), d->lib,
					      sizeof(d->lib)) == 0) {
				d->lib_ok = true;
				line(d, "PASS", "library", "PID %d maps %s", (int)d->pid,
				     d->lib_shown);
				return;
			}
			line(d, "WARN", "library", "PID %d maps no %s; trying %s", (int)d->pid, b,
			     want);
		}
	}
	if (access(want, R_OK) == 0) {
		snprintf(d->lib, sizeof(d->lib), "%s", want);
		snprintf(d->lib_shown, sizeof(d->lib_shown), "%s", want);
		d->lib_ok = true;
		line(d, "PASS", "library", "%s", want);
	} else {
		line(d, "FAIL", "library", "%s: %s (name the library with --lib PATH)", want,
		     strerror(errno));
	}
}

static void check_symbols(struct doctor *d)
{
	char err[FR_ERRLEN];
	int found = 0;

	if (!d->lib_ok) {
		line(d, "FAIL", "symbols", "not checked: no library");
		return;
	}
	if (sym_resolve(d->lib, d->symbol, &d->syms, err, sizeof(err))) {
		line(d, "FAIL", "symbols", "%s", err);
		return;
	}
	for (size_t i = 0; i < d->syms.n; i++) {
		const struct sym_candidate *c = &d->syms.v[i];

		if (c->status == SYM_FOUND) {
			found++;
			line(d, "PASS", "symbol", "%s at 0x%llx%s", c->name,
			     (unsigned long long)c->offset, c->sp ? " (sp<GraphicBuffer>&)" : "");
		} else {
			line(d, "WARN", "symbol", "%s: %s", c->name, sym_status_str(c->status));
		}
	}
	if (found)
		line(d, "PASS", "symbols", "%d candidate(s); the first one that attaches is used",
		     found);
	else
		line(d, "FAIL", "symbols",
		     "no queueBuffer symbol in %s (use --symbol NAME or --lib PATH)", d->lib_shown);
}

static void check_sysfs(struct doctor *d)
{
	const char *node = sysfs_detect();
	struct frc_sysfs s;

	if (!node) {
		line(d, "WARN", "sysfs",
		     "no display FPS node of Auriya's list; the FPS comes from eBPF frame "
		     "deltas only");
		return;
	}
	sysfs_sample(node, &s);
	while (s.len && (s.raw[s.len - 1] == '\n' || s.raw[s.len - 1] == ' '))
		s.len--;
	line(d, "PASS", "sysfs", "%s = \"%.*s\"", node, (int)s.len, (const char *)s.raw);
}

/* The real thing: load framerec's program and attach it to the first symbol found. */
static void check_attach(struct doctor *d)
{
	struct framerec *skel;
	struct bpf_link *link = NULL;
	const struct sym_candidate *c = NULL;
	int err;

	for (size_t i = 0; i < d->syms.n && !c; i++)
		if (d->syms.v[i].status == SYM_FOUND)
			c = &d->syms.v[i];
	if (!d->bpf_ok || !c) {
		line(d, "FAIL", "attach", "not tried: %s",
		     !d->bpf_ok ? "BPF unavailable" : "no symbol");
		return;
	}
	skel = framerec__open_and_load();
	if (!skel) {
		line(d, "FAIL", "attach", "loading framerec's program failed: %s (-v for details)",
		     strerror(errno));
		return;
	}
	link = bpf_program__attach_uprobe_opts(
	    c->sp ? skel->progs.queue_buffer_sp : skel->progs.queue_buffer,
	    d->pid > 0 ? d->pid : -1, d->lib, (size_t)c->offset, NULL);
	err = link ? 0 : errno;
	if (link)
		line(d, "PASS", "attach", "uprobe on %s+0x%llx attached and detached", d->lib_shown,
		     (unsigned long long)c->offset);
	else
		line(d, "FAIL", "attach", "uprobe on %s+0x%llx: %s (%s)", d->lib_shown,
		     (unsigned long long)c->offset, strerror(err), probe_attach_hint(err));
	bpf_link__destroy(link);
	framerec__destroy(skel);
}

int doctor_main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"pid", required_argument, NULL, 'p'},
	    {"lib", required_argument, NULL, 'l'},
	    {"symbol", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct doctor d = {0};
	int c;

	while ((c = getopt_long(argc, argv, "p:l:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			d.pid = (pid_t)v;
			/* "12abc" or "99999999999" is not PID 12 or a wrapped one. */
			if (errno || end == optarg || *end || v <= 0 || v > 0x7fffffff) {
				fprintf(stderr,
					"framerec doctor: --pid: '%s' is not a process id"
					" (1..2147483647)\n",
					optarg);
				return 2;
			}
			break;
		}
		case 'l':
			d.lib_opt = optarg;
			break;
		case 's':
			d.symbol = optarg;
			break;
		case 'h':
			printf(
			    "Usage: framerec doctor [--pid PID] [--lib PATH] [--symbol NAME]\n"
			    "Check each layer a recording needs, in the order they fail on "
			    "Android:\n"
			    "kernel, BTF, uprobe PMU, bpf(), ring buffer, capabilities, SELinux,\n"
			    "libgui.so, each candidate symbol, the sysfs FPS node, a real attach.\n"
			    "One PASS/FAIL/WARN line each, with a hint; exit 0 only when a "
			    "recording\n"
			    "can work, 1 when it cannot, 2 on a usage error.\n"
			    "\n"
			    "  -p, --pid PID      also check the libgui.so PID maps, and its "
			    "symbols\n"
			    "  -l, --lib PATH     the libgui.so to check (default: "
			    "/system/lib64/libgui.so)\n"
			    "  -s, --symbol NAME  check only this symbol (mangled, or "
			    "hook|internal|\n"
			    "                     legacy|output|sp|sp_output)\n"
			    "\n"
			    "Examples:\n"
			    "  framerec doctor\n"
			    "  framerec doctor --pid $(pidof com.example.game)\n"
			    "  framerec doctor --lib build/standin/libgui.so   # the Linux "
			    "stand-in\n");
			return 0;
		default:
			fputs("Try 'framerec doctor --help'.\n", stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "framerec doctor: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	check_kernel(&d);
	check_btf(&d);
	check_uprobe_pmu(&d);
	check_bpf_syscall(&d);
	check_ringbuf(&d);
	check_caps(&d);
	check_selinux(&d);
	check_library(&d);
	check_symbols(&d);
	check_sysfs(&d);
	check_attach(&d);
	sym_list_free(&d.syms);
	printf("%s\n", d.fails ? "doctor: recording cannot work here (see FAIL lines)"
			       : "doctor: recording can work");
	return d.fails ? 1 : 0;
}
