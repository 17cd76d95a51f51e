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

#include "symbols.h"

/* Kala's order (seed 000); the names are what g++ emits for these declarations. */
const char *const sym_known[6] = {
    "_ZN7android7Surface16hook_queueBufferEP13ANativeWindowP19ANativeWindowBufferi",
    "_ZN7android7Surface19queueBufferInternalEP19ANativeWindowBufferiPNS_"
    "24SurfaceQueueBufferOutputE",
    "_ZN7android7Surface11queueBufferEP19ANativeWindowBufferi",
    "_ZN7android7Surface11queueBufferEP19ANativeWindowBufferiPNS_24SurfaceQueueBufferOutputE",
    "_ZN7android7Surface11queueBufferERKNS_2spINS_13GraphicBufferEEERKNS1_INS_5FenceEEE",
    "_ZN7android7Surface11queueBufferERKNS_2spINS_13GraphicBufferEEERKNS1_INS_5FenceEEEPNS_"
    "24SurfaceQueueBufferOutputE",
};

const char *const sym_variant[6] = {"hook", "internal", "legacy", "output", "sp", "sp_output"};

const char sym_batch[] = "_ZN7android7Surface12queueBuffersERKNSt3__16vectorINS0_"
			 "17BatchQueuedBufferENS1_9allocatorIS3_EEEEPNS2_INS_"
			 "24SurfaceQueueBufferOutputENS4_IS9_EEEE";

static const char *const sym_prefixes[2] = {
    "_ZN7android7Surface11queueBufferE",
    "_ZN7android7Surface16hook_queueBufferE",
};

bool sym_is_sp(const char *name)
{
	return strstr(name, "spINS_13GraphicBuffer") != NULL;
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
	c->sp = sym_is_sp(name);
	c->batch = strcmp(name, sym_batch) == 0;
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
	if (l->batch.name[0] && strcmp(l->batch.name, name) == 0)
		return &l->batch;
	return NULL;
}

static bool has_prefix(const char *name)
{
	for (size_t i = 0; i < 2; i++)
		if (strncmp(name, sym_prefixes[i], strlen(sym_prefixes[i])) == 0)
			return true;
	return false;
}

/* vaddr -> file offset through the executable PT_LOAD segment holding it. */
static int vaddr_to_offset(Elf *elf, GElf_Addr vaddr, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_memsz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

/* Update the candidate of this symbol (adding prefix matches when add is set). */
static int visit_symbol(Elf *elf, struct sym_list *l, const char *name, const GElf_Sym *s, bool add)
{
	struct sym_candidate *c = list_find(l, name);
	uint64_t off;

	if (!c) {
		if (!add || !has_prefix(name))
			return 0;
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
	if (vaddr_to_offset(elf, s->st_value, &off)) {
		c->status = SYM_NOT_MAPPED;
		return 0;
	}
	c->offset = off;
	c->status = SYM_FOUND;
	return 0;
}

static int scan_symtabs(Elf *elf, struct sym_list *l, bool add)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(data, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC)
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			if (visit_symbol(elf, l, name, &s, add))
				return -ENOMEM;
		}
	}
	return 0;
}

/* A --symbol value: a variant name (hook, sp, ...) stands for its mangled name. */
static const char *forced_name(const char *forced)
{
	for (size_t i = 0; i < 6; i++)
		if (strcmp(forced, sym_variant[i]) == 0)
			return sym_known[i];
	if (strcmp(forced, "batch") == 0)
		return sym_batch;
	return forced;
}

int sym_resolve(const char *lib, const char *forced, struct sym_list *out, char *err, size_t errlen)
{
	struct stat st;
	Elf *elf = NULL;
	int fd, ret = 0;

	memset(out, 0, sizeof(*out));
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, errlen, "libelf: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	/* O_NONBLOCK, then regular files only: a FIFO named as the library must not hang us. */
	fd = open(lib, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot open: %s", lib, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", lib);
		close(fd);
		return -EINVAL;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(err, errlen, "%s: not an ELF file", lib);
		ret = -ENOEXEC;
		goto cleanup;
	}
	if (gelf_getclass(elf) != ELFCLASS64) {
		snprintf(err, errlen,
			 "%s: 32-bit library; framerec records 64-bit processes only for now", lib);
		ret = -ENOEXEC;
		goto cleanup;
	}
	if (forced) {
		ret = list_add(out, forced_name(forced));
	} else {
		for (size_t i = 0; i < 6 && !ret; i++)
			ret = list_add(out, sym_known[i]);
		candidate_init(&out->batch, sym_batch);
	}
	if (!ret)
		ret = scan_symtabs(elf, out, forced == NULL);
	if (ret) {
		snprintf(err, errlen, "%s: out of memory reading symbols", lib);
		sym_list_free(out);
	}
cleanup:
	if (elf)
		elf_end(elf);
	close(fd);
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
