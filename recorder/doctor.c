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

#include "frame_event.h"
#include "frc_escape.h"
#include "plan.h"
#include "recorder.h"
#include "runout.h"
#include "sf_dumpsys.h"
#include "sysfs.h"
#include "target.h"

struct doctor {
	const char *dumpsys; /* --dumpsys: display capture's */
	int fails;
	bool bpf_ok;
	struct probe *probe; /* framerec's own program, loaded by the bpf line */
	struct plan plan;    /* the attach plan a recording of --pid would run */
};

static void line(struct doctor *d, const char *verdict, const char *layer, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void line(struct doctor *d, const char *verdict, const char *layer, const char *fmt, ...)
{
	va_list ap;

	char msg[1024];

	if (strcmp(verdict, "FAIL") == 0)
		d->fails++;
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

static void ignore_frame(void *ctx, const struct frc_record *r)
{
	(void)ctx;
	(void)r;
}

/* The bpf step of the plan: framerec's own program and ring, as a recording loads them. */
static void check_bpf(struct doctor *d)
{
	char err[FRC_MSG_MAX], links[FRC_MSG_MAX];

	if (plan_load_probe(&d->probe, FRAMEREC_RING_KIB_DEFAULT, ignore_frame, NULL, err,
			    sizeof(err))) {
		line(d, "FAIL", "bpf", "%s", plan_reason(err));
		return;
	}
	d->bpf_ok = true;
	/* The links named here are the ones a recording makes (the stop's cost follows). */
	line(d, "PASS", "bpf", "framerec's program and a %u KiB ring buffer loaded; %s",
	     FRAMEREC_RING_KIB_DEFAULT, probe_links_desc(d->probe, links, sizeof(links)));
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

/* The target step (with --pid): what a recording of that PID checks first. */
static void check_target(struct doctor *d)
{
	char err[FRC_MSG_MAX], cmd[256];

	if (d->plan.pid <= 0)
		return;
	if (plan_check_target(&d->plan, err, sizeof(err))) {
		line(d, "FAIL", "target", "%s", plan_reason(err));
		return;
	}
	target_cmdline(d->plan.pid, cmd, sizeof(cmd));
	line(d, "PASS", "target", "PID %d (%s)", (int)d->plan.pid, cmd);
}

static void check_library(struct doctor *d)
{
	struct plan *pl = &d->plan;
	char err[FRC_MSG_MAX];

	if (plan_pick_library(pl, err, sizeof(err))) {
		line(d, "FAIL", "library", "%s", plan_reason(err));
		return;
	}
	if (pl->lib_mapped)
		line(d, "PASS", "library", "PID %d maps %s", (int)pl->pid, pl->lib_shown);
	else if (pl->pid > 0)
		line(d, "WARN", "library", "PID %d maps no %s; using %s", (int)pl->pid,
		     strrchr(pl->lib_shown, '/') ? strrchr(pl->lib_shown, '/') + 1 : pl->lib_shown,
		     pl->lib_shown);
	else
		line(d, "PASS", "library", "%s", pl->lib_shown);
}

/*
 * One line per candidate, in attach order, with its layout (which program reads it) and
 * the Android versions that define it. The batch ones (Surface::queueBuffers) are
 * attached in addition to the single-buffer symbol chosen (their calls never pass through
 * queueBuffer), so they say so; a missing one is a WARN, since a library has one form of
 * each entry point only.
 */
static void check_candidate(struct doctor *d, const struct sym_candidate *c, bool forced)
{
	const char *versions = NULL, *extra = "";

	for (size_t i = 0; i < sym_known_n; i++)
		if (strcmp(c->name, sym_known[i].name) == 0)
			versions = sym_known[i].versions;
	if (c->kind == SYM_KIND_BATCH && !forced)
		extra = ", the batch path, attached in addition";
	if (c->status == SYM_FOUND)
		line(d, "PASS", "symbol", "%s at 0x%llx (%s%s%s%s)", c->name,
		     (unsigned long long)c->offset, sym_kind_str(c->kind),
		     versions ? "; Android " : "", versions ? versions : "", extra);
	else
		line(d, "WARN", "symbol", "%s: %s (%s%s%s)", c->name, sym_status_str(c->status),
		     versions ? "Android " : "", versions ? versions : sym_kind_str(c->kind),
		     c->kind == SYM_KIND_BATCH && !forced ? "; a batch call would not be recorded"
							  : "");
}

/*
 * Surface::connect / disconnect (sym_list.life): a line each (a missing one is a WARN, as
 * for the queue symbols, though a library has one connect form only), then whether
 * lifetime is recorded: not without a connect and the disconnect (no connect records).
 */
static void check_lifetime(struct doctor *d, const struct sym_list *l)
{
	bool connect = false, disconnect = false;

	for (size_t i = 0; i < SYM_LIFETIME_N; i++) {
		const struct sym_candidate *c = &l->life[i];

		if (c->status == SYM_FOUND)
			line(d, "PASS", "lifetime", "%s at 0x%llx (%s; Android %s)", c->name,
			     (unsigned long long)c->offset, sym_kind_str(c->kind),
			     sym_lifetime[i].versions);
		else
			line(d, "WARN", "lifetime", "%s: %s (Android %s)", c->name,
			     sym_status_str(c->status), sym_lifetime[i].versions);
		connect |= c->status == SYM_FOUND && c->kind == SYM_KIND_CONNECT;
		disconnect |= c->status == SYM_FOUND && c->kind == SYM_KIND_DISCONNECT;
	}
	if (connect && disconnect)
		line(d, "PASS", "lifetime",
		     "surface lifetime recorded: the first connect found and disconnect are "
		     "attached in addition");
	else
		line(d, "WARN", "lifetime",
		     "surface lifetime not recorded: no Surface::%s framerec knows; frames, "
		     "geometry and threads still are",
		     connect ? "disconnect" : "connect");
}

/* Surface::setBuffersTimestamp (sym_list.stamp): found, or a WARN saying what is lost. */
static void check_stamp(struct doctor *d, const struct sym_candidate *c)
{
	if (c->status == SYM_FOUND)
		line(d, "PASS", "timestamp",
		     "%s at 0x%llx (%s; Android %s): single-buffer calls' explicit timestamps "
		     "recorded",
		     c->name, (unsigned long long)c->offset, sym_kind_str(c->kind),
		     sym_stamp.versions);
	else
		line(d, "WARN", "timestamp",
		     "%s: %s (Android %s): only batch elements' explicit timestamps recorded",
		     c->name, sym_status_str(c->status), sym_stamp.versions);
}

static void check_symbols(struct doctor *d)
{
	struct plan *pl = &d->plan;
	char err[FRC_MSG_MAX];
	int found = 0, ret;

	if (!pl->lib_path[0]) {
		line(d, "FAIL", "symbols", "not checked: no library");
		return;
	}
	ret = plan_resolve_symbols(pl, err, sizeof(err));
	for (size_t i = 0; i < pl->syms.n; i++) {
		found += pl->syms.v[i].status == SYM_FOUND;
		check_candidate(d, &pl->syms.v[i], pl->syms.forced);
	}
	check_lifetime(d, &pl->syms);
	check_stamp(d, &pl->syms.stamp);
	if (ret)
		line(d, "FAIL", "symbols", "%s", plan_reason(err));
	else
		line(d, "PASS", "symbols",
		     "%d candidate(s); the first single-buffer one that attaches is used, and the "
		     "first batch one as well",
		     found);
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

/* DUMPSYS SurfaceFlinger WHAT [NAME] into out; false (with a WARN line) when it failed. */
static bool doctor_dumpsys(struct doctor *d, const char *what, const char *name, char *out,
			   size_t cap, size_t *len)
{
	char *argv[] = {"dumpsys", "SurfaceFlinger", (char *)what, (char *)name, NULL};
	struct runout ro;
	int err = runout(d->dumpsys, argv, 1500, out, cap, &ro);

	*len = ro.len;
	if (!err && ro.exit_code == 0)
		return true;
	line(d, "WARN", "display", "%s SurfaceFlinger %s: %s; recordings get no presents",
	     d->dumpsys, what, err ? strerror(-err) : "failed (exit status not 0)");
	return false;
}

/* The target's layers in a --list (its argv[0] as the package); the index of the first. */
static size_t doctor_layers(struct doctor *d, const char *list, size_t len, char *pkg,
			    size_t pkg_len, struct sf_layer_name *names, size_t *first)
{
	static struct sf_layer_name all[256];
	size_t n = 0, picked[16], k;

	for (const char *p = list, *end = list + len; p < end && n < 256;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		n += sf_list_line(p, ll, &all[n]);
		p += ll + 1;
	}
	*first = 0;
	if (d->plan.pid <= 0)
		return n;
	target_program(d->plan.pid, pkg, pkg_len);
	k = sf_pick_layers(all, n, pkg, picked, 16);
	if (k)
		*names = all[picked[0]];
	return k;
}

/*
 * Display capture, step by step as a recording runs it: dumpsys there, --list listing
 * layers, the target's buffer layer among them (with --pid), its --latency rows. A WARN,
 * never a FAIL: frames are recorded without it.
 */
static void check_display(struct doctor *d)
{
	static char out[1 << 20];
	static struct sf_latency lat;
	struct sf_layer_name layer;
	char pkg[256] = "";
	size_t len, first, n;
	uint32_t bad;

	if (access(d->dumpsys, X_OK)) {
		line(d, "WARN", "display", "%s: %s: no display capture (not Android?)", d->dumpsys,
		     strerror(errno));
		return;
	}
	if (!doctor_dumpsys(d, "--list", NULL, out, sizeof(out), &len))
		return;
	n = doctor_layers(d, out, len, pkg, sizeof(pkg), &layer, &first);
	if (d->plan.pid <= 0 && n == 0) {
		line(d, "WARN", "display",
		     "dumpsys SurfaceFlinger --list printed no layer (Android 14 QPR2+: setprop "
		     "persist.debug.sf.enable_layer_lifecycle_manager false, reboot)");
		return;
	}
	if (d->plan.pid <= 0) {
		line(d, "PASS", "display", "--list shows %zu layers (--pid PID: its own)", n);
		return;
	}
	if (n == 0) {
		line(d, "WARN", "display", "no buffer layer of %s in --list (on screen? --package)",
		     pkg);
		return;
	}
	if (!doctor_dumpsys(d, "--latency", layer.name, out, sizeof(out), &len))
		return;
	if (sf_latency_parse(out, len, &lat, &bad) || lat.n_rows == 0) {
		line(d, "WARN", "display", "--latency %s: no rows (line %u)", layer.name,
		     lat.n_rows ? bad : 1);
		return;
	}
	line(d, "PASS", "display", "%zu layer%s of %s; %s: %u rows, vsync %lld ns", n,
	     n == 1 ? "" : "s", pkg, layer.name, lat.n_rows, (long long)lat.period_ns);
}

/* The attach step: the recording's own attach, then detached again. */
static void check_attach(struct doctor *d)
{
	struct plan *pl = &d->plan;
	const struct sym_candidate *batch, *conn, *disc, *stamp;
	char err[FRC_MSG_MAX];
	bool have_symbol = false;

	for (size_t i = 0; i < pl->syms.n; i++)
		have_symbol |= pl->syms.v[i].status == SYM_FOUND;
	if (!d->bpf_ok || !have_symbol) {
		line(d, "FAIL", "attach", "not tried: %s",
		     !d->bpf_ok ? "BPF unavailable" : "no symbol");
		return;
	}
	if (plan_attach(pl, d->probe, err, sizeof(err))) {
		line(d, "FAIL", "attach", "%s", plan_reason(err));
		return;
	}
	batch = probe_batch_attached(d->probe, pl->pid);
	probe_lifetime_attached(d->probe, pl->pid, &conn, &disc);
	stamp = probe_stamp_attached(d->probe, pl->pid);
	line(d, "PASS", "attach", "uprobe on %s+0x%llx (%s)%s%s%s%s attached and detached",
	     pl->lib_shown, (unsigned long long)pl->chosen->offset, pl->chosen->name,
	     batch ? " and the batch path " : "", batch ? batch->name : "",
	     conn && disc ? ", Surface::connect and disconnect" : "",
	     stamp ? ", Surface::setBuffersTimestamp" : "");
	if (pl->syms.stamp.status == SYM_ATTACH_FAILED)
		line(d, "WARN", "attach", "timestamp %s: %s", pl->syms.stamp.name,
		     pl->syms.stamp.why);
	for (size_t i = 0; i < SYM_LIFETIME_N; i++)
		if (pl->syms.life[i].status == SYM_ATTACH_FAILED)
			line(d, "WARN", "attach", "lifetime %s: %s", pl->syms.life[i].name,
			     pl->syms.life[i].why);
	for (size_t i = 0; i < pl->syms.n; i++)
		if (pl->syms.v[i].kind == SYM_KIND_BATCH &&
		    pl->syms.v[i].status == SYM_ATTACH_FAILED)
			line(d, "WARN", "attach", "the batch path %s: %s", pl->syms.v[i].name,
			     pl->syms.v[i].why);
	probe_detach(d->probe, pl->pid);
}

static const char doctor_usage[] =
    "Usage: framerec doctor [--pid PID] [--lib PATH] [--symbol NAME] [--dumpsys PATH]\n"
    "Check each layer a recording needs, in the order they fail on Android:\n"
    "kernel, BTF, uprobe PMU, bpf(), ring buffer, capabilities, SELinux,\n"
    "the target, libgui.so, each candidate symbol, the sysfs FPS node, display\n"
    "capture (dumpsys SurfaceFlinger --list, the target's layer, its --latency rows;\n"
    "WARN only: frames are recorded without it), a real attach.\n"
    "The target, library, symbols, bpf and attach lines run the very steps a\n"
    "recording runs (its attach plan), so they fail where a recording would.\n"
    "One PASS/FAIL/WARN line each, with a hint; exit 0 only when a recording\n"
    "can work, 1 when it cannot, 2 on a usage error.\n"
    "\n"
    "  -p, --pid PID      also check that PID as a target, and the libgui.so it maps\n"
    "  -l, --lib PATH     the libgui.so to check (default: " FR_DEFAULT_LIB ")\n"
    "  -s, --symbol NAME  check only this symbol (mangled, or hook|output|legacy|\n"
    "                     impl|sp|sp_input|internal|deprecated|batch|batch_legacy)\n"
    "      --dumpsys PATH display capture's dumpsys (default " FR_DEFAULT_DUMPSYS ")\n"
    "\n"
    "Examples:\n"
    "  framerec doctor\n"
    "  framerec doctor --pid $(pidof com.example.game)\n"
    "  framerec doctor --lib build/standin/libgui.so   # the Linux stand-in\n";

/* "12abc" or "99999999999" is not PID 12 or a wrapped one. */
static int parse_pid(const char *arg, pid_t *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v <= 0 || v > 0x7fffffff) {
		fprintf(stderr,
			"framerec doctor: --pid: '%s' is not a process id (1..2147483647)\n", arg);
		return -EINVAL;
	}
	*out = (pid_t)v;
	return 0;
}

/* Options into d->plan; 0, 1 (--help printed) or -EINVAL (usage error, said). */
static int parse_args(struct doctor *d, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"pid", required_argument, NULL, 'p'},    {"lib", required_argument, NULL, 'l'},
	    {"symbol", required_argument, NULL, 's'}, {"dumpsys", required_argument, NULL, 'D'},
	    {"help", no_argument, NULL, 'h'},	      {NULL, 0, NULL, 0},
	};
	int c;

	/* ":" and opterr = 0: our own messages, named "framerec doctor:" like the others. */
	opterr = 0;
	d->dumpsys = FR_DEFAULT_DUMPSYS;
	while ((c = getopt_long(argc, argv, ":p:l:s:D:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_pid(optarg, &d->plan.pid))
				return -EINVAL;
			break;
		case 'l':
			d->plan.lib = optarg;
			break;
		case 's':
			d->plan.symbol = optarg;
			break;
		case 'D':
			d->dumpsys = optarg;
			break;
		case 'h':
			fputs(doctor_usage, stdout);
			return 1;
		case ':':
			fprintf(stderr, "framerec doctor: %s needs a value\n", argv[optind - 1]);
			fputs("Try 'framerec doctor --help'.\n", stderr);
			return -EINVAL;
		default:
			fprintf(stderr, "framerec doctor: unknown option '%s'\n", argv[optind - 1]);
			fputs("Try 'framerec doctor --help'.\n", stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "framerec doctor: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

int doctor_main(int argc, char **argv)
{
	struct doctor d = {0};
	int ret;

	d.plan.pid = -1; /* without --pid: every process, as a uprobe by path */
	ret = parse_args(&d, argc, argv);
	if (ret)
		return ret > 0 ? 0 : 2;
	check_kernel(&d);
	check_btf(&d);
	check_uprobe_pmu(&d);
	check_bpf(&d);
	check_ringbuf(&d);
	check_caps(&d);
	check_selinux(&d);
	check_target(&d);
	check_library(&d);
	check_symbols(&d);
	check_sysfs(&d);
	check_display(&d);
	check_attach(&d);
	plan_free(&d.plan);
	probe_close(d.probe);
	printf("%s\n", d.fails ? "doctor: recording cannot work here (see FAIL lines)"
			       : "doctor: recording can work");
	return d.fails ? 1 : 0;
}
