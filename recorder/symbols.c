// SPDX-License-Identifier: MIT
/*
 * symbols.c - find the queueBuffer candidates in libgui.so and their file offsets.
 *
 * A uprobe is placed at a file offset, not a name: read .dynsym and .symtab with libelf,
 * then turn the symbol's virtual address into a file offset through the executable
 * PT_LOAD segment that holds it.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "android_abi.h" /* FRAMEREC_STAMP_SYMBOL */
#include "symbols.h"

/*
 * The entry points of AOSP's android::Surface, from libs/gui/include/gui/Surface.h at
 * android-11.0.0_r1 .. android-16.0.0_r2 and a newer post-16 main (display-truth.md 6;
 * names as clang++ --target=aarch64-linux-android mangles them, libc++ std::__1).
 *
 * Attach order (not Kala's): hook_queueBuffer first, the entry every NDK/EGL/Vulkan queue
 * goes through on every version (the interceptor path included: hook_queueBuffer calls
 * the interceptor with queueBufferInternal). Should a library not export it, the member
 * that every path reaches on its version comes next (16: the 3-argument queueBuffer;
 * 11-15: the 2-argument one; post-16: queueBufferImpl), then the sp<GraphicBuffer>
 * overloads (reached only by C++ callers), and last the static entries that see one path
 * only (the interceptor's queueBufferInternal, the deprecated hook). A library defines one
 * form of each, so the first found is the one its version uses. Kala's
 * queueBuffer(const sp<GraphicBuffer>&, const sp<Fence>&) (no output parameter) is in no
 * AOSP tag and is not listed; the prefix scan still finds it, as an sp member.
 *
 * The batch path Surface::queueBuffers comes after: the first of its forms found is
 * attached in addition to the single-buffer symbol.
 */
const struct sym_known sym_known[] = {
    {"hook", "_ZN7android7Surface16hook_queueBufferEP13ANativeWindowP19ANativeWindowBufferi",
     SYM_KIND_WINDOW, "11-16 and later"},
    {"output",
     "_ZN7android7Surface11queueBufferEP19ANativeWindowBufferiPNS_24SurfaceQueueBufferOutputE",
     SYM_KIND_MEMBER, "15 QPR1+, 16 (WB_PLATFORM_API_IMPROVEMENTS on)"},
    {"legacy", "_ZN7android7Surface11queueBufferEP19ANativeWindowBufferi", SYM_KIND_MEMBER,
     "11-15 (and 15 QPR1+/16 with the flag off)"},
    {"impl",
     "_ZN7android7Surface15queueBufferImplERKNS_2spINS_13GraphicBufferEEERKNS1_INS_5FenceEEEPKNS_"
     "23SurfaceQueueBufferInputEPNS_24SurfaceQueueBufferOutputE",
     SYM_KIND_MEMBER_SP, "post-16 main"},
    {"sp",
     "_ZN7android7Surface11queueBufferERKNS_2spINS_13GraphicBufferEEERKNS1_INS_5FenceEEEPNS_"
     "24SurfaceQueueBufferOutputE",
     SYM_KIND_MEMBER_SP, "15 QPR1+, 16 (flag on)"},
    {"sp_input",
     "_ZN7android7Surface11queueBufferERKNS_2spINS_13GraphicBufferEEERKNS_"
     "23SurfaceQueueBufferInputEPNS_24SurfaceQueueBufferOutputE",
     SYM_KIND_MEMBER_SP, "post-16 main"},
    {"internal", "_ZN7android7Surface19queueBufferInternalEP13ANativeWindowP19ANativeWindowBufferi",
     SYM_KIND_WINDOW, "11-16 (the queue interceptor's path)"},
    {"deprecated",
     "_ZN7android7Surface27hook_queueBuffer_DEPRECATEDEP13ANativeWindowP19ANativeWindowBuffer",
     SYM_KIND_WINDOW, "11-16 (ANativeWindow::queueBuffer_DEPRECATED)"},
    {"batch",
     "_ZN7android7Surface12queueBuffersERKNSt3__16vectorINS0_17BatchQueuedBufferENS1_"
     "9allocatorIS3_EEEEPNS2_INS_24SurfaceQueueBufferOutputENS4_IS9_EEEE",
     SYM_KIND_BATCH, "15 QPR1+, 16 and later (flag on)"},
    {"batch_legacy",
     "_ZN7android7Surface12queueBuffersERKNSt3__16vectorINS0_17BatchQueuedBufferENS1_"
     "9allocatorIS3_EEEE",
     SYM_KIND_BATCH, "12-15 (and 15 QPR1+/16 with the flag off)"},
};
const size_t sym_known_n = sizeof(sym_known) / sizeof(sym_known[0]);

/*
 * Surface lifetime (libs/gui/include/gui/Surface.h and Surface.cpp at android-11.0.0_r1,
 * 12.0.0_r1, 13.0.0_r1, 14.0.0_r1, 14.0.0_r29, 15.0.0_r1, 15.0.0_r20, 16.0.0_r2). Every
 * connect overload ends in one that does the work, and only that one is attached, so a
 * logical connect is one record whichever overload the app called:
 *  - 11..15 (15.0.0_r1): connect(int) -> connect(int, const sp<IProducerListener>&) ->
 *    connect(int, const sp<IProducerListener>&, bool), the worker; connect(int, bool,
 *    const sp<SurfaceListener>&) reaches it too. (native_window_api_connect ->
 *    hook_perform -> dispatchConnect -> connect(int), the EGL and Vulkan path.)
 *  - 15 QPR1 (15.0.0_r20), 16: the IProducerListener overloads are gone; connect(int) ->
 *    connect(int, const sp<SurfaceListener>&, bool = false), the worker.
 * A library has one of the two workers; the first found is attached. disconnect(int,
 * IGraphicBufferProducer::DisconnectMode) is one function on every version (dispatch-
 * Disconnect and ~Surface call it).
 */
const struct sym_known sym_lifetime[SYM_LIFETIME_N] = {
    {"connect", "_ZN7android7Surface7connectEiRKNS_2spINS_17IProducerListenerEEEb",
     SYM_KIND_CONNECT, "11-15 (every connect() reaches it)"},
    {"connect_listener", "_ZN7android7Surface7connectEiRKNS_2spINS_15SurfaceListenerEEEb",
     SYM_KIND_CONNECT, "15 QPR1+, 16 (every connect() reaches it)"},
    {"disconnect", "_ZN7android7Surface10disconnectEiNS_22IGraphicBufferProducer14DisconnectModeE",
     SYM_KIND_DISCONNECT, "11-16"},
};

/*
 * The single-buffer calls' explicit timestamp (android_abi.h: Surface::mTimestamp, which
 * only this member writes; Surface.cpp at android-11 .. 15, lineage-18.1 .. 22.0).
 */
const struct sym_known sym_stamp = {"timestamp", FRAMEREC_STAMP_SYMBOL, SYM_KIND_STAMP,
				    "11-15 (native_window_set_buffers_timestamp)"};

/*
 * The prefix scan: a name of one of these functions that sym_known does not list (another
 * overload, a vendor's) is a candidate too, when its parameters are a layout framerec
 * reads. `member` says whether the function takes `this` (AOSP: the hooks and
 * queueBufferInternal are static, the others members); params are the mangled first
 * parameters of each layout.
 */
static const struct sym_family {
	const char *prefix;
	bool member;
} sym_families[] = {
    {"_ZN7android7Surface16hook_queueBufferE", false},
    {"_ZN7android7Surface19queueBufferInternalE", false},
    {"_ZN7android7Surface27hook_queueBuffer_DEPRECATEDE", false},
    {"_ZN7android7Surface11queueBufferE", true},
    {"_ZN7android7Surface15queueBufferImplE", true},
    {"_ZN7android7Surface12queueBuffersE", true},
};
#define SYM_FAMILIES (sizeof(sym_families) / sizeof(sym_families[0]))

/* ANativeWindow*, ANativeWindowBuffer*: a static hook's first two parameters. */
#define PARAMS_WINDOW "P13ANativeWindowP19ANativeWindowBuffer"
/* ANativeWindowBuffer*: a member's first parameter (after `this`). */
#define PARAMS_BUFFER "P19ANativeWindowBuffer"
/* const sp<GraphicBuffer>& */
#define PARAMS_SP "RKNS_2spINS_13GraphicBufferEEE"
/* const std::__1::vector<Surface::BatchQueuedBuffer>& (libc++: Android's C++ library) */
#define PARAMS_BATCH "RKNSt3__16vectorINS0_17BatchQueuedBufferE"

static const struct sym_family *family_of(const char *name)
{
	for (size_t i = 0; i < SYM_FAMILIES; i++)
		if (strncmp(name, sym_families[i].prefix, strlen(sym_families[i].prefix)) == 0)
			return &sym_families[i];
	return NULL;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

enum sym_kind sym_classify(const char *name)
{
	const struct sym_family *f = family_of(name);
	const char *params;

	for (size_t i = 0; i < sym_known_n; i++)
		if (strcmp(name, sym_known[i].name) == 0)
			return sym_known[i].kind;
	if (!f)
		return SYM_KIND_UNKNOWN;
	params = name + strlen(f->prefix);
	if (!f->member)
		return starts(params, PARAMS_WINDOW) ? SYM_KIND_WINDOW : SYM_KIND_UNKNOWN;
	if (starts(f->prefix, "_ZN7android7Surface12queueBuffersE"))
		return starts(params, PARAMS_BATCH) ? SYM_KIND_BATCH : SYM_KIND_UNKNOWN;
	if (starts(params, PARAMS_BUFFER))
		return SYM_KIND_MEMBER;
	return starts(params, PARAMS_SP) ? SYM_KIND_MEMBER_SP : SYM_KIND_UNKNOWN;
}

const char *sym_kind_str(enum sym_kind k)
{
	switch (k) {
	case SYM_KIND_WINDOW:
		return "static: ANativeWindow*, ANativeWindowBuffer*";
	case SYM_KIND_MEMBER:
		return "member: Surface* this + 16, ANativeWindowBuffer*";
	case SYM_KIND_MEMBER_SP:
		return "member: Surface* this + 16, sp<GraphicBuffer> + 16";
	case SYM_KIND_BATCH:
		return "batch: Surface* this + 16, vector<BatchQueuedBuffer>";
	case SYM_KIND_CONNECT:
		return "connect: Surface* this + 16, int api";
	case SYM_KIND_DISCONNECT:
		return "disconnect: Surface* this + 16, int api";
	case SYM_KIND_STAMP:
		return "timestamp: Surface* this + 16, int64_t";
	case SYM_KIND_UNKNOWN:
		break;
	}
	return "unknown argument layout";
}

const char *sym_status_str(enum sym_status s)
{
	switch (s) {
	case SYM_FOUND:
		return "found";
	case SYM_MISSING:
		return "not in .dynsym/.symtab";
	case SYM_UNDEFINED:
		return "undefined (imported, not defined here)";
	case SYM_NOT_MAPPED:
		return "defined outside any executable PT_LOAD segment";
	case SYM_NO_LAYOUT:
		return "defined, but its arguments are no layout framerec reads: not attached";
	case SYM_ATTACH_FAILED:
		return "attach failed";
	}
	return "?";
}

static void candidate_init(struct sym_candidate *c, const char *name)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->status = SYM_MISSING;
	c->kind = sym_classify(name);
}

static int list_add(struct sym_list *l, const char *name)
{
	struct sym_candidate *v = realloc(l->v, (l->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	l->v = v;
	candidate_init(&v[l->n], name);
	l->n++;
	return 0;
}

static struct sym_candidate *list_find(struct sym_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return &l->v[i];
	for (size_t i = 0; i < SYM_LIFETIME_N; i++)
		if (strcmp(l->life[i].name, name) == 0)
			return &l->life[i];
	if (strcmp(l->stamp.name, name) == 0)
		return &l->stamp;
	return NULL;
}

/*
 * The scan's bounds. The library comes from the target's side (an app can map any file
 * as libgui.so, and --lib names any file) and framerec parses it as root, so nothing in
 * it may make the scan unbounded: each bound is far above a real libgui.so, and a file
 * past one is refused by name (-E2BIG) rather than walked.
 */
/* An unstripped arm64 libgui.so with full debug info is ~40 MB; stripped, 1-3 MB. */
#define SYM_FILE_MAX (128u << 20)
/* A linked shared library has 25-45 sections (under 100 with debug info). */
#define SYM_SECTIONS_MAX 1024
/* ... and about 10 program headers. */
#define SYM_PHDRS_MAX 256
/* libgui's .dynsym holds ~10^4 symbols, an unstripped .symtab some 10^5. */
#define SYM_SYMBOLS_MAX (1u << 20)
/* libgui defines ~10 queue entry points; each candidate is ~430 bytes. */
#define SYM_CANDIDATES_MAX 64
/* The longest name kept: a longer one is no candidate (every known name is ~130 bytes). */
#define SYM_NAME_MAX FRC_SYMBOL_MAX

/*
 * One scan: the ELF, the image's size (offsets must lie in it), the symbols walked, and
 * which bound stopped it (for the message).
 */
struct scan {
	Elf *elf;
	size_t len;
	size_t phnum;
	size_t symbols;
	const char *over; /* "symbols" or "queueBuffer candidates", with its bound */
	unsigned over_max;
};

/*
 * vaddr -> file offset through the executable PT_LOAD segment whose file-backed part holds
 * it. Written so that no crafted p_vaddr/p_filesz/p_offset can wrap around: the offset
 * must also lie in the file, where the uprobe goes.
 */
static int vaddr_to_offset(const struct scan *sc, GElf_Addr vaddr, uint64_t *off)
{
	for (size_t i = 0; i < sc->phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(sc->elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		if (vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz)
			continue;
		if (ph.p_offset >= sc->len || vaddr - ph.p_vaddr >= sc->len - ph.p_offset)
			return -ENOENT;
		*off = ph.p_offset + (vaddr - ph.p_vaddr);
		return 0;
	}
	return -ENOENT;
}

/* Update the candidate of this symbol (adding prefix matches when add is set). */
static int visit_symbol(const struct scan *sc, struct sym_list *l, const char *name,
			const GElf_Sym *s, bool add)
{
	struct sym_candidate *c = list_find(l, name);
	uint64_t off;

	if (!c) {
		/*
		 * A '.' is never in an Itanium name: "NAME.cold", ".part.N", ".isra.N" are
		 * pieces and clones GCC splits off a function (.symtab lists them), not its
		 * entry point, and a clone may take other arguments.
		 */
		if (!add || !family_of(name) || strchr(name, '.'))
			return 0;
		if (l->n >= SYM_CANDIDATES_MAX)
			return -E2BIG;
		if (list_add(l, name))
			return -ENOMEM;
		c = &l->v[l->n - 1];
	}
	if (c->status == SYM_FOUND)
		return 0; /* .dynsym and .symtab both list it: the first is as good */
	if (s->st_shndx == SHN_UNDEF) {
		c->status = SYM_UNDEFINED;
		return 0;
	}
	if (vaddr_to_offset(sc, s->st_value, &off)) {
		c->status = SYM_NOT_MAPPED;
		return 0;
	}
	c->offset = off;
	c->status = c->kind == SYM_KIND_UNKNOWN ? SYM_NO_LAYOUT : SYM_FOUND;
	return 0;
}

/* The function symbols of one symbol table; gelf_getsym stops at the end of its data. */
static int scan_table(struct scan *sc, Elf_Scn *scn, const GElf_Shdr *sh, struct sym_list *l,
		      bool add)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Sym s;

	if (!data)
		return 0;
	for (int i = 0; gelf_getsym(data, i, &s); i++) {
		const char *name;
		int ret;

		if (++sc->symbols > SYM_SYMBOLS_MAX) {
			sc->over = "symbols";
			sc->over_max = SYM_SYMBOLS_MAX;
			return -E2BIG;
		}
		if (GELF_ST_TYPE(s.st_info) != STT_FUNC)
			continue;
		/* elf_strptr checks the offset and the NUL against its string section. */
		name = elf_strptr(sc->elf, sh->sh_link, s.st_name);
		if (!name || !*name || strnlen(name, SYM_NAME_MAX + 1) > SYM_NAME_MAX)
			continue;
		ret = visit_symbol(sc, l, name, &s, add);
		if (ret == -E2BIG) {
			sc->over = "queueBuffer candidates";
			sc->over_max = SYM_CANDIDATES_MAX;
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int scan_symtabs(struct scan *sc, struct sym_list *l, bool add)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(sc->elf, scn)) != NULL) {
		GElf_Shdr sh;
		int ret;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
			continue;
		ret = scan_table(sc, scn, &sh, l, add);
		if (ret)
			return ret;
	}
	return 0;
}

/* A --symbol value: a variant name (hook, sp, ...) stands for its mangled name. */
static const char *forced_name(const char *forced)
{
	for (size_t i = 0; i < sym_known_n; i++)
		if (strcmp(forced, sym_known[i].variant) == 0)
			return sym_known[i].name;
	return forced;
}

/* The ELF's kind, class and table sizes, before any symbol is read; -errno, err said. */
static int check_elf(struct scan *sc, const char *name, char *err, size_t errlen)
{
	size_t shnum;

	if (elf_kind(sc->elf) != ELF_K_ELF) {
		snprintf(err, errlen, "%s: not an ELF file", name);
		return -ENOEXEC;
	}
	if (gelf_getclass(sc->elf) != ELFCLASS64) {
		snprintf(err, errlen,
			 "%s: 32-bit library; framerec records 64-bit processes only for now",
			 name);
		return -ENOEXEC;
	}
	if (elf_getshdrnum(sc->elf, &shnum) || elf_getphdrnum(sc->elf, &sc->phnum)) {
		snprintf(err, errlen, "%s: malformed ELF: %s", name, elf_errmsg(-1));
		return -ENOEXEC;
	}
	if (shnum > SYM_SECTIONS_MAX || sc->phnum > SYM_PHDRS_MAX) {
		snprintf(err, errlen,
			 "%s: %zu sections and %zu program headers (at most %d and %d): not a "
			 "libgui.so",
			 name, shnum, sc->phnum, SYM_SECTIONS_MAX, SYM_PHDRS_MAX);
		return -E2BIG;
	}
	return 0;
}

/* The candidates in out, in attach order, before the scan fills them in. */
static int list_init(struct sym_list *out, const char *forced)
{
	int ret = 0;

	out->forced = forced != NULL;
	for (size_t i = 0; i < SYM_LIFETIME_N; i++) {
		candidate_init(&out->life[i], sym_lifetime[i].name);
		out->life[i].kind = sym_lifetime[i].kind;
	}
	candidate_init(&out->stamp, sym_stamp.name);
	out->stamp.kind = sym_stamp.kind;
	if (forced)
		return list_add(out, forced_name(forced));
	for (size_t i = 0; i < sym_known_n && !ret; i++)
		ret = list_add(out, sym_known[i].name);
	return ret;
}

static void scan_failed(const struct scan *sc, int ret, const char *name, char *err, size_t errlen)
{
	if (ret == -E2BIG && sc->over)
		snprintf(err, errlen, "%s: more than %u %s: not a libgui.so", name, sc->over_max,
			 sc->over);
	else
		snprintf(err, errlen, "%s: out of memory reading symbols", name);
}

int sym_scan_image(void *img, size_t len, const char *name, const char *forced,
		   struct sym_list *out, char *err, size_t errlen)
{
	struct scan sc = {.len = len};
	int ret;

	memset(out, 0, sizeof(*out));
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, errlen, "libelf: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	sc.elf = elf_memory(img, len);
	if (!sc.elf) {
		snprintf(err, errlen, "%s: not an ELF file", name);
		return -ENOEXEC;
	}
	ret = check_elf(&sc, name, err, errlen);
	if (!ret) {
		ret = list_init(out, forced);
		if (!ret)
			ret = scan_symtabs(&sc, out, forced == NULL);
		if (ret) {
			scan_failed(&sc, ret, name, err, errlen);
			sym_list_free(out);
		}
	}
	elf_end(sc.elf);
	return ret;
}

/* The whole regular file at fd (at most SYM_FILE_MAX bytes) into *buf; -errno, err said. */
static int read_image(int fd, const char *lib, void **buf, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	size_t got = 0;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", lib);
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > SYM_FILE_MAX) {
		snprintf(err, errlen, "%s: %lld bytes (at most %u MiB): not a libgui.so", lib,
			 (long long)st.st_size, SYM_FILE_MAX >> 20);
		return -EFBIG;
	}
	/* Read, not mmap: a file truncated under a mapping would kill framerec (SIGBUS). */
	*buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!*buf) {
		snprintf(err, errlen, "%s: out of memory", lib);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, (char *)*buf + got, (size_t)st.st_size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* shrunk meanwhile: scan what was read */
		got += (size_t)n;
	}
	*len = got;
	return 0;
}

int sym_resolve(const char *lib, const char *forced, struct sym_list *out, char *err, size_t errlen)
{
	void *img = NULL;
	size_t len = 0;
	int fd, ret;

	memset(out, 0, sizeof(*out));
	/* O_NONBLOCK, then regular files only: a FIFO named as the library must not hang us. */
	fd = open(lib, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot open: %s", lib, strerror(-ret));
		return ret;
	}
	ret = read_image(fd, lib, &img, &len, err, errlen);
	close(fd);
	if (!ret)
		ret = sym_scan_image(img, len, lib, forced, out, err, errlen);
	free(img);
	return ret;
}

void sym_list_free(struct sym_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

void sym_list_explain(const struct sym_list *l, const char *lib, char *buf, size_t len)
{
	size_t used;

	snprintf(buf, len, "no queueBuffer symbol could be attached in %s; tried:", lib);
	for (size_t i = 0; i < l->n; i++) {
		const struct sym_candidate *c = &l->v[i];

		used = strlen(buf);
		if (used + 1 >= len)
			return;
		if (c->status == SYM_ATTACH_FAILED)
			snprintf(buf + used, len - used, "\n  %s: found at 0x%llx, %s", c->name,
				 (unsigned long long)c->offset, c->why);
		else
			snprintf(buf + used, len - used, "\n  %s: %s", c->name,
				 sym_status_str(c->status));
	}
	used = strlen(buf);
	if (used + 1 < len)
		snprintf(
		    buf + used, len - used,
		    "\n  (use --symbol NAME for another symbol, --lib PATH for another library)");
}
