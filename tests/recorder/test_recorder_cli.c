/* SPDX-License-Identifier: MIT */
/*
 * test_recorder_cli.c - framerec where no BPF probe is needed: its command line and usage
 * messages, the refusals it makes before it loads BPF (an output that exists, cannot be
 * created or is a special file, a missing --sysfs node), --sysfs-only recordings and
 * --force's publication, and doctor's user-space lines.
 *
 * These run as any user, on any kernel, and under the sanitizers (scripts/test.sh runs
 * recorder_cli.* in build-asan); the end-to-end tests with the probe are test_recorder.c.
 *
 * Run one test: test_recorder_cli NAME (CTest registers each as recorder_cli.NAME).
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frc.h"
#include "frc_case.h"
#include "rectest.h"

START_TEST(refuse_overwrite)
{
	const char *cap = tmp("existing.frc"), *log = tmp("framerec.log");
	FILE *f = fopen(cap, "w");
	ck_assert_ptr_nonnull(f);
	fputs("precious\n", f);
	fclose(f);
	pid_t game = idle_game();
	pid_t rec = start_framerec(log, "--pid", pidstr(game), "-o", cap, NULL);
	assert_refused(rec, log, cap);
	ck_assert_str_eq(slurp(cap), "precious\n");
}
END_TEST

START_TEST(unwritable_path)
{
	const char *cap = tmp("no-such-dir/cap.frc"), *log = tmp("framerec.log");
	pid_t game = idle_game();
	pid_t rec = start_framerec(log, "--pid", pidstr(game), "-o", cap, NULL);
	assert_refused(rec, log, cap);
	ck_assert_int_ne(access(cap, F_OK), 0);
}
END_TEST

/*
 * -d 1 with --tick-ms 500: the ticks due at 0.5 s and at 1.0 s are both written; the
 * one due at the same instant as the end used to be dropped (so -d 1 with the default
 * tick gave no reading at all), and with it the sysfs sample taken right before it.
 */
START_TEST(duration_last_tick)
{
	const char *cap = tmp("cap.frc"), *log = tmp("framerec.log"), *node = tmp("fps");
	write_file(node, "60\n");
	pid_t rec = start_framerec(log, "--sysfs-only", "--sysfs", node, "-d", "1", "--tick-ms",
				   "500", "--sysfs-ms", "250", "-o", cap, NULL);
	assert_exit(wait_exit(rec, 10000), 0, log);

	struct capture c;
	read_capture(cap, &c);
	ck_assert_str_eq(frc_status_name(c.st.status), "complete");
	ck_assert_uint_eq(count_rec(&c, FRC_TICK, 0), 2);
	/* The end tick reads the node right before it, like every tick. */
	long last_tick = find_rec(&c, FRC_TICK, 0, 1);
	ck_assert_int_gt(last_tick, 0);
	ck_assert_uint_eq(c.r[last_tick - 1].type, FRC_SYSFS);
	/* 0, .25, .5, .75, 1 s; a late wakeup under load may merge the .75 one into the end. */
	ck_assert_uint_ge(count_rec(&c, FRC_SYSFS, 0), 4);
	ck_assert_uint_le(count_rec(&c, FRC_SYSFS, 0), 5);
	free_capture(&c);
}
END_TEST

/* --sysfs naming a node that does not exist is refused before anything is created. */
START_TEST(sysfs_missing_node)
{
	const char *cap = tmp("cap.frc"), *log = tmp("framerec.log"), *node = tmp("no-such-node");
	pid_t rec =
	    start_framerec(log, "--sysfs-only", "--sysfs", node, "-d", "1", "-o", cap, NULL);
	assert_refused(rec, log, node);
	ck_assert_msg(access(cap, F_OK) != 0, "%s was created", cap);
}
END_TEST

/*
 * --force replaces a regular file or a symlink, never a device, FIFO or directory: as
 * root, "--force -o /dev/null" used to unlink /dev/null and put a capture in its place.
 * A FIFO in the scratch directory stands in for the device.
 */
START_TEST(force_special_file)
{
	const char *fifo = tmp("fifo.frc"), *log = tmp("framerec.log"), *node = tmp("fps");
	struct stat st;
	write_file(node, "60\n");
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	pid_t rec = start_framerec(log, "--sysfs-only", "--sysfs", node, "-d", "0.3", "--force",
				   "-o", fifo, NULL);
	assert_refused(rec, log, fifo);
	ck_assert_msg(strstr(slurp(log), "FIFO"), "the message does not say what it is: %s",
		      slurp(log));
	ck_assert_int_eq(lstat(fifo, &st), 0);
	ck_assert_msg(S_ISFIFO(st.st_mode), "%s was replaced (mode 0%o)", fifo, st.st_mode);
}
END_TEST

/*
 * Bad command lines: exit 2, and the first line of stderr is "framerec: ..." naming the
 * option (getopt's own messages used to start with framerec's full path, and an empty
 * -o or --package value went on as a file or process named ""). A number out of range
 * is told the range.
 */
START_TEST(usage_errors)
{
	const char *cap = tmp("cap.frc"), *log = tmp("framerec.log");
	static const struct {
		const char *args[4];
		const char *needle;
	} bad[] = {
	    {{"--ring-kib", "0"}, "--ring-kib"},
	    {{"--ring-kib", "3"}, "--ring-kib"},
	    {{"--ring-kib", "99999999999999999999"}, "--ring-kib"},
	    /* out of range: the message states the range */
	    {{"--tick-ms", "0"}, "--tick-ms: '0' is not in [10, 3600000]"},
	    {{"--sysfs-ms", "9"}, "--sysfs-ms: '9' is not in [10, 3600000]"},
	    {{"-d", "0"}, "-d: '0' is not a number of seconds in (0, 10000000]"},
	    {{"-d", "-1"}, "-d"},
	    {{"-d", "abc"}, "-d"},
	    {{"--pid", "abc"}, "--pid"},
	    {{"--pid", "2147483648"}, "--pid: '2147483648' is not a process id (1..2147483647)"},
	    {{"--bogus"}, "--bogus"},
	    {{"-x"}, "-x"},
	    {{"--quiet=1"}, "--quiet takes no value"},
	    {{"--sysfs-only=yes"}, "--sysfs-only takes no value"},
	    {{"--p", "1"}, "ambiguous option '--p'"}, /* --pid or --package */
	    {{"--package", ""}, "--package"},
	    {{"--lib", ""}, "--lib"},
	    {{"--sysfs-only", "--sysfs"}, "--sysfs"}, /* no value: last option */
	    /* --sysfs-only records no process: what it would ignore is refused, by name */
	    {{"--sysfs-only", "--pid", "1"}, "--sysfs-only and --pid cannot be combined"},
	    {{"--pid", "1", "--sysfs-only"}, "--sysfs-only and --pid cannot be combined"},
	    {{"--sysfs-only", "--package", "x"}, "--sysfs-only and --package cannot"},
	    {{"--sysfs-only", "--", "/bin/true"}, "--sysfs-only and -- COMMAND cannot"},
	    {{"--sysfs-only", "--lib", "/x.so"}, "--sysfs-only and --lib cannot"},
	    {{"--sysfs-only", "--symbol", "hook"}, "--sysfs-only and --symbol cannot"},
	    {{"--sysfs-only", "--ring-kib", "64"}, "--sysfs-only and --ring-kib cannot"},
	    /* an unknown meter: the message lists the known ones (issue 21) */
	    {{"--meter", "auriya"},
	     "--meter: unknown meter 'auriya' (known: auriya-10fe7c6, auriya-ccafd78, frc-window)"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct args a = {.n = 0};
		add(&a, "framerec");
		add(&a, "-o");
		add(&a, "%s", cap);
		for (int k = 0; k < 4 && bad[i].args[k]; k++)
			add(&a, "%s", bad[i].args[k]);
		pid_t rec = spawn(FRAMEREC, a.v, log);
		assert_exit(wait_exit(rec, 5000), 2, log);
		const char *out = slurp(log);
		const char *hit = strstr(out, bad[i].needle); /* NULL compared below 0x1... */
		ck_assert_msg(strncmp(out, "framerec: ", 10) == 0 && hit && hit < strchr(out, '\n'),
			      "case %zu: the first line does not start with 'framerec: ' and name "
			      "'%s': %s",
			      i, bad[i].needle, out);
		ck_assert_msg(access(cap, F_OK) != 0, "case %zu: %s was created", i, cap);
	}
	/* Without -o, and with an empty one. */
	char *no_o[] = {"framerec", "--pid", "1", NULL};
	assert_exit(wait_exit(spawn(FRAMEREC, no_o, log), 5000), 2, log);
	ck_assert_msg(strstr(slurp(log), "-o FILE.frc is required"), "%s", slurp(log));
	char *empty_o[] = {"framerec", "--pid", "1", "-o", "", NULL};
	assert_exit(wait_exit(spawn(FRAMEREC, empty_o, log), 5000), 2, log);
	ck_assert_msg(strstr(slurp(log), "--output: empty value"), "%s", slurp(log));
	/* doctor: the same, named "framerec doctor: " (getopt used to say "doctor: ..."). */
	static const struct {
		const char *arg, *needle;
	} dbad[] = {
	    {"--bogus", "framerec doctor: unknown option '--bogus'"},
	    {"-x", "framerec doctor: unknown option '-x'"},
	    {"--pid", "framerec doctor: --pid needs a value"},
	    {"--pid=0", "framerec doctor: --pid: '0' is not a process id"},
	};
	for (size_t i = 0; i < sizeof(dbad) / sizeof(dbad[0]); i++) {
		char *dargv[] = {"framerec", "doctor", (char *)dbad[i].arg, NULL};
		assert_exit(wait_exit(spawn(FRAMEREC, dargv, log), 5000), 2, log);
		ck_assert_msg(strncmp(slurp(log), dbad[i].needle, strlen(dbad[i].needle)) == 0,
			      "doctor %s: %s", dbad[i].arg, slurp(log));
	}
}
END_TEST

/*
 * doctor prints values that come from the target and the device (symbol names, library
 * paths, sysfs bytes): ESC, C1 controls (U+009B is CSI) and bytes that are not UTF-8
 * are shown as \xHH, never sent raw to the terminal (they were, through vprintf).
 */
START_TEST(doctor_escapes_untrusted)
{
	const char *log = tmp("doctor.log");
	char *argv[] = {"framerec",  "doctor",	 "--lib",
			STANDIN_LIB, "--symbol", "evil\x1b[2J\xc2\x9b\xff",
			NULL};
	const char *out;

	assert_exit(wait_exit(spawn(FRAMEREC, argv, log), 30000), 1, log);
	out = slurp(log);
	ck_assert_msg(strstr(out, "evil\\x1b[2J\\xc2\\x9b\\xff: not in"), "%s", out);
	for (const unsigned char *p = (const unsigned char *)out; *p; p++)
		ck_assert_msg(*p != 0x1b && *p < 0x80, "raw byte 0x%02x in: %s", *p, out);
}
END_TEST

/*
 * How many of the --force temporary files next to cap (cap.tmp-XXXXXX) hold a capture
 * header already (its first 4 bytes are the header's skippable-frame magic 5a 2a 4d 18):
 * a framerec that has created its capture and is recording into it.
 */
static int recording_tmp_files(const char *cap)
{
	static const unsigned char magic[4] = {0x5a, 0x2a, 0x4d, 0x18};
	const char *base = strrchr(cap, '/') + 1;
	char prefix[PATH_MAX], path[PATH_MAX];
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	snprintf(prefix, sizeof(prefix), "%s.tmp-", base);
	while ((e = readdir(d))) {
		unsigned char head[4];
		int fd;

		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmpdir, e->d_name);
		fd = open(path, O_RDONLY);
		if (fd >= 0 && read(fd, head, 4) == 4 && memcmp(head, magic, 4) == 0)
			n++;
		if (fd >= 0)
			close(fd);
	}
	closedir(d);
	return n;
}

/* pid has not exited yet (it is not reaped: a later wait_exit still sees its status). */
static bool running(pid_t pid)
{
	siginfo_t si = {0};

	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == 0;
}

/*
 * --force writes a new file and renames it over -o when the recording stops: meanwhile -o
 * keeps the old file, and of two concurrent --force runs each publishes a whole capture
 * (the one that stops last is what -o holds). framerec used to unlink -o at the start:
 * the second run unlinked the first one's new file, which went on recording into nothing.
 * The test first waits for the moment both are recording at once (two temporary captures
 * with their header written, both framerecs running) and checks that -o is still the old
 * file, whole, right then.
 */
START_TEST(force_replaces_at_stop)
{
	const char *cap = tmp("cap.frc"), *node = tmp("fps"), *la = tmp("a.log"),
		   *lb = tmp("b.log");
	char cmd[600];
	int both = 0;

	write_file(node, "60\n");
	write_file(cap, "old\n");
	pid_t a = start_framerec(la, "--sysfs-only", "--sysfs", node, "-d", "2", "--tick-ms", "400",
				 "--force", "-o", cap, NULL);
	pid_t b = start_framerec(lb, "--sysfs-only", "--sysfs", node, "-d", "1", "--tick-ms", "300",
				 "--force", "-o", cap, NULL);
	for (int waited = 0; waited < 5000 && both < 2; waited += 5) {
		both = running(a) && running(b) ? recording_tmp_files(cap) : -1;
		if (both < 0)
			break;
		usleep(5000);
	}
	ck_assert_msg(both == 2, "never saw both recording at once (%s); a: %s b: %s",
		      both < 0 ? "one stopped first" : "no two temporary captures", slurp(la),
		      slurp(lb));
	/* -o is still the old file, whole, while both record */
	ck_assert_str_eq(slurp(cap), "old\n");
	assert_exit(wait_exit(b, 10000), 0, lb);
	ck_assert_uint_eq(capture_tick_ms(cap), 300);
	ck_assert_msg(running(a) && recording_tmp_files(cap) == 1,
		      "a stopped with b or lost its temporary capture: %s", slurp(la));
	assert_exit(wait_exit(a, 10000), 0, la);
	ck_assert_uint_eq(capture_tick_ms(cap), 400);
	/* no temporary file is left next to it */
	ck_assert_int_eq(recording_tmp_files(cap), 0);
	snprintf(cmd, sizeof(cmd), "ls '%s' | grep -q 'cap\\.frc\\.tmp'", tmpdir);
	ck_assert_int_ne(system(cmd), 0);
}
END_TEST

/* doctor's output line that starts with prefix and contains needle, or NULL. */
static const char *doctor_line(const char *out, const char *prefix, const char *needle)
{
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *end = strchr(l, '\n');
		const char *hit = strstr(l, needle);

		if (strncmp(l, prefix, strlen(prefix)) == 0 && hit && (!end || hit < end))
			return l;
	}
	return NULL;
}

/* Run framerec doctor with args (NULL-terminated); its output, static storage. */
static const char *run_doctor(const char *log, const char *const *args)
{
	struct args a = {.n = 0};

	add(&a, "framerec");
	add(&a, "doctor");
	for (size_t i = 0; args[i]; i++)
		add(&a, "%s", args[i]);
	int st = wait_exit(spawn(FRAMEREC, a.v, log), 30000);
	/* 0 with BPF here, 1 without (its bpf line FAILs): either way it listed the symbols */
	ck_assert_msg(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) <= 1, "doctor: status 0x%x: %s",
		      st, slurp(log));
	return slurp(log);
}

/*
 * doctor lists every candidate, one line each, in attach order (hook_queueBuffer first):
 * every entry point of Android 11-16 and later the stand-in exports, PASS with its file
 * offset and its argument layout; the two forms of the batch path Surface::queueBuffers,
 * which a recording attaches in addition to the symbol it chooses, say so; WARN when the
 * library does not define one; only the forced one with --symbol.
 */
/*
 * doctor's display line: the stand-in game with its SurfaceFlinger (--compositor), asked
 * through standin-dumpsys, gives a PASS naming its (BLAST) layer and rows; a dumpsys that
 * is not there is a WARN (display capture is optional), never a FAIL.
 */
START_TEST(doctor_display)
{
	const char *log = tmp("doctor.log"), *sock = tmp("sf.sock"), *out, *l;
	char sockc[128], pid[16];
	const char *const missing[] = {"--lib", STANDIN_LIB, "--dumpsys", "/nonexistent/dumpsys",
				       NULL};

	snprintf(sockc, sizeof(sockc), "%s", sock);
	setenv("STANDIN_SF_SOCKET", sockc, 1);
	char *argv[] = {"standin-game", "--fps",	"60",  "--frames",
			"600",		"--compositor", sockc, NULL};
	pid_t game = spawn(STANDIN_GAME, argv, NULL);
	usleep(1000000); /* its layer made and some frames presented */
	snprintf(pid, sizeof(pid), "%d", (int)game);
	const char *const with[] = {"--pid",	     pid, "--lib", STANDIN_LIB, "--dumpsys",
				    STANDIN_DUMPSYS, NULL};
	out = run_doctor(log, with);
	l = doctor_line(out, "PASS  display",
			"SurfaceView[standin-game/standin-game.MainActivity]"
			"(BLAST)#");
	ck_assert_msg(l && strstr(l, "vsync 16666666 ns"), "%s", out);
	kill(game, SIGTERM);
	wait_exit(game, 10000);
	out = run_doctor(log, missing);
	ck_assert_msg(doctor_line(out, "WARN  display", "/nonexistent/dumpsys: No such file"), "%s",
		      out);
	ck_assert_msg(!doctor_line(out, "FAIL  display", ""), "%s", out);
}
END_TEST

START_TEST(doctor_lists_candidates)
{
	const char *log = tmp("doctor.log"), *out;
	const char *const with[] = {"--lib", STANDIN_LIB, NULL};
	const char *const without[] = {"--lib", "/bin/true", NULL};
	const char *const forced[] = {"--lib", STANDIN_LIB, "--symbol", "hook", NULL};
	const char *const batch[] = {BATCH_SYMBOL, BATCH_LEGACY_SYMBOL};
	const char *l, *first = NULL;
	char want[512];

	out = run_doctor(log, with);
	for (int v = 0; v < N_VARIANTS; v++) {
		snprintf(want, sizeof(want), "%s at 0x", variant_symbol[v]);
		l = doctor_line(out, "PASS  symbol", want);
		ck_assert_msg(l, "no PASS line for %s: %s", variant_name[v], out);
		/* The layout: the static hooks get the native pointers, members `this`. */
		ck_assert_msg(strstr(l, v <= V_DEPRECATED ? "static: ANativeWindow*" : "this + 16"),
			      "%s", l);
		if (v == V_HOOK)
			first = l;
		ck_assert(l >= first);
	}
	for (int i = 0; i < 2; i++) {
		snprintf(want, sizeof(want), "%s at 0x", batch[i]);
		l = doctor_line(out, "PASS  symbol", want);
		ck_assert_msg(l, "no PASS line with the batch symbol's offset: %s", out);
		ck_assert_msg(strstr(l, "batch path"), "the line does not say what it is: %s", l);
	}
	/* GCC's NAME.cold pieces (.symtab) are no entry point: no candidate. */
	ck_assert_msg(!strstr(out, ".cold"), "%s", out);
	out = run_doctor(log, without);
	for (int i = 0; i < 2; i++) {
		snprintf(want, sizeof(want), "%s: not in", batch[i]);
		ck_assert_msg(doctor_line(out, "WARN  symbol", want), "%s", out);
	}
	/* Surface lifetime: the stand-in defines 11-15's connect worker and disconnect. */
	out = run_doctor(log, with);
	ck_assert_msg(
	    doctor_line(out, "PASS  lifetime",
			"_ZN7android7Surface7connectEiRKNS_2spINS_17IProducerListenerEEEb at "
			"0x"),
	    "%s", out);
	ck_assert_msg(doctor_line(out, "PASS  lifetime",
				  "_ZN7android7Surface10disconnectEiNS_22IGraphicBufferProducer14"
				  "DisconnectModeE at 0x"),
		      "%s", out);
	ck_assert_msg(
	    doctor_line(out, "WARN  lifetime",
			"_ZN7android7Surface7connectEiRKNS_2spINS_15SurfaceListenerEEEb: not in"),
	    "%s", out);
	ck_assert_msg(doctor_line(out, "PASS  lifetime", "surface lifetime recorded"), "%s", out);
	out = run_doctor(log, without);
	ck_assert_msg(doctor_line(out, "WARN  lifetime", "surface lifetime not recorded"), "%s",
		      out);
	out = run_doctor(log, forced);
	ck_assert_msg(doctor_line(out, "PASS  lifetime", "surface lifetime recorded"),
		      "--symbol keeps lifetime: %s", out);
	ck_assert_msg(!strstr(out, BATCH_SYMBOL), "--symbol hook lists the batch path: %s", out);
	ck_assert_msg(!strstr(out, variant_symbol[V_OUTPUT]), "--symbol hook lists others: %s",
		      out);
	ck_assert_msg(doctor_line(out, "PASS  symbol", variant_symbol[V_HOOK]), "%s", out);
}
END_TEST

/*
 * A minimal ELF64 shared object at path, for the symbol scan's bounds: section 1 .dynstr,
 * section 2 .dynsym with nsyms entries (the first nfuncs are functions named by prefix and
 * their number, the rest zero), then empty sections up to nsect. The symbol table is left
 * as a hole (ftruncate), so a table of a million entries costs no disk.
 */
static void write_elf(const char *path, size_t nsect, size_t nsyms, size_t nfuncs,
		      const char *prefix)
{
	static char strtab[1 << 16];
	size_t slen = 1, symoff, shoff;
	Elf64_Ehdr eh = {.e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT};
	Elf64_Shdr sh;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert(nfuncs <= nsyms && nsect >= 3);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = sizeof(sh);
	eh.e_shnum = (Elf64_Half)nsect;
	symoff = sizeof(eh) + sizeof(strtab);
	shoff = symoff + nsyms * sizeof(Elf64_Sym);
	eh.e_shoff = shoff;
	for (size_t i = 0; i < nfuncs; i++) {
		Elf64_Sym sym = {.st_name = (Elf64_Word)slen,
				 .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
				 .st_shndx = 1};

		slen +=
		    (size_t)snprintf(strtab + slen, sizeof(strtab) - slen, "%s%zu", prefix, i) + 1;
		ck_assert_uint_lt(slen, sizeof(strtab));
		ck_assert_int_eq(pwrite(fd, &sym, sizeof(sym), (off_t)(symoff + i * sizeof(sym))),
				 sizeof(sym));
	}
	ck_assert_int_eq(pwrite(fd, &eh, sizeof(eh), 0), sizeof(eh));
	ck_assert_int_eq(pwrite(fd, strtab, sizeof(strtab), sizeof(eh)), sizeof(strtab));
	for (size_t i = 0; i < nsect; i++) {
		memset(&sh, 0, sizeof(sh));
		if (i == 1)
			sh = (Elf64_Shdr){.sh_type = SHT_STRTAB,
					  .sh_offset = sizeof(eh),
					  .sh_size = sizeof(strtab),
					  .sh_addralign = 1};
		if (i == 2)
			sh = (Elf64_Shdr){.sh_type = SHT_DYNSYM,
					  .sh_offset = symoff,
					  .sh_size = nsyms * sizeof(Elf64_Sym),
					  .sh_link = 1,
					  .sh_entsize = sizeof(Elf64_Sym),
					  .sh_addralign = 8};
		ck_assert_int_eq(pwrite(fd, &sh, sizeof(sh), (off_t)(shoff + i * sizeof(sh))),
				 sizeof(sh));
	}
	ck_assert_int_eq(close(fd), 0);
}

/*
 * issue 17: the symbol scan parses a file from the target's side as root, so it is
 * bounded whatever the file says, and refuses by name a file past a bound (doctor's
 * symbols line, the message a recording gives): over 128 MiB, over 1024 sections, over
 * 2^20 symbols, over 64 queueBuffer candidates. Just inside the last two bounds the
 * scan goes through.
 */
START_TEST(symbol_scan_bounds)
{
	const char *lib = tmp("libgui.so"), *log = tmp("doctor.log"), *out;
	const char *const args[] = {"--lib", lib, NULL};
	static const char qb[] = "_ZN7android7Surface11queueBufferEv";
	int fd;

	fd = open(lib, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (129 << 20)), 0); /* a hole: no disk */
	close(fd);
	out = run_doctor(log, args);
	ck_assert_msg(doctor_line(out, "FAIL  symbols", "(at most 128 MiB): not a libgui.so"), "%s",
		      out);
	write_elf(lib, 1025, 1, 0, qb);
	out = run_doctor(log, args);
	ck_assert_msg(doctor_line(out, "FAIL  symbols", "1025 sections"), "%s", out);
	write_elf(lib, 1024, (1u << 20) + 1, 0, qb);
	out = run_doctor(log, args);
	ck_assert_msg(doctor_line(out, "FAIL  symbols", "more than 1048576 symbols"), "%s", out);
	write_elf(lib, 3, 1u << 20, 0, qb);
	out = run_doctor(log, args);
	ck_assert_msg(doctor_line(out, "FAIL  symbols", "no queueBuffer symbol"), "%s", out);
	write_elf(lib, 3, 60, 54, qb); /* the 10 known names and 54 found: 64 candidates */
	out = run_doctor(log, args);
	ck_assert_msg(doctor_line(out, "FAIL  symbols", "no queueBuffer symbol"), "%s", out);
	write_elf(lib, 3, 60, 55, qb);
	out = run_doctor(log, args);
	ck_assert_msg(doctor_line(out, "FAIL  symbols", "more than 64 queueBuffer candidates"),
		      "%s", out);
}
END_TEST

int main(int argc, char **argv)
{
	const struct test_entry tests[] = {
	    FRC_CASE("refuse_overwrite", refuse_overwrite),
	    FRC_CASE("unwritable_path", unwritable_path),
	    FRC_CASE("duration_last_tick", duration_last_tick),
	    FRC_CASE("sysfs_missing_node", sysfs_missing_node),
	    FRC_CASE("force_special_file", force_special_file),
	    FRC_CASE("usage_errors", usage_errors),
	    FRC_CASE("doctor_escapes_untrusted", doctor_escapes_untrusted),
	    FRC_CASE("force_replaces_at_stop", force_replaces_at_stop),
	    FRC_CASE("doctor_lists_candidates", doctor_lists_candidates),
	    FRC_CASE("doctor_display", doctor_display),
	    FRC_CASE("symbol_scan_bounds", symbol_scan_bounds),
	};

	return rectest_main(tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
}
