/* got.c - llamp_got.h: GOT slots of one loaded object rewritten.
 *
 * The dynamic section gives the symbol and string tables and the two
 * relocation tables (DT_JMPREL for PLT calls, DT_RELA for addresses taken);
 * each relocation names its symbol, and its offset from the object's base is
 * the slot.  glibc relocates the dynamic section's pointers in place on these
 * platforms; a value below the base is still an offset and gets the base
 * added (as on loaders that leave them). */
#define _GNU_SOURCE
#include "llamp_got.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#include <elf.h>
#include <link.h>
#include <sys/mman.h>

#if defined(__x86_64__)
#define GOT_JUMP_SLOT R_X86_64_JUMP_SLOT
#define GOT_GLOB_DAT R_X86_64_GLOB_DAT
#else
#define GOT_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define GOT_GLOB_DAT R_AARCH64_GLOB_DAT
#endif

typedef struct {
  const char *object;
  uintptr_t base;
  const Elf64_Dyn *dyn;
  uintptr_t relro_lo, relro_hi; /* [lo, hi): read-only once loaded */
  int found;
} got_find_t;

static int got_find(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  got_find_t *f = arg;
  if (!info->dlpi_name || !strstr(info->dlpi_name, f->object)) return 0;
  f->found = 1;
  f->base = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const Elf64_Phdr *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_DYNAMIC) f->dyn = (const Elf64_Dyn *)(info->dlpi_addr + ph->p_vaddr);
    if (ph->p_type == PT_GNU_RELRO) {
      f->relro_lo = info->dlpi_addr + ph->p_vaddr;
      f->relro_hi = f->relro_lo + ph->p_memsz;
    }
  }
  return 1;
}

static uintptr_t got_ptr(uintptr_t v, uintptr_t base) { return v < base ? v + base : v; }

/* Writes fn into one slot; 0 on success. */
static int got_write(void **slot, void *fn, const got_find_t *f, uintptr_t page) {
  uintptr_t a = (uintptr_t)slot;
  /* the loader protects the RELRO segment's whole pages only (glibc's
   * _dl_protect_relro rounds both ends down): a slot on its last, partial
   * page stays writable, and so must that page */
  if (a & (sizeof *slot - 1)) return -1; /* a GOT slot is pointer-aligned */
  if (a < (f->relro_lo & ~(page - 1)) || a >= (f->relro_hi & ~(page - 1))) {
    __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
    return 0;
  }
  void *lo = (void *)(a & ~(page - 1)); /* aligned: the slot is on this page */
  if (mprotect(lo, page, PROT_READ | PROT_WRITE)) return -1;
  __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
  return mprotect(lo, page, PROT_READ);
}

int llamp_got_redirect(const char *object, const char *symbol, void *fn) {
  if (!object || !symbol || !fn) return -1;
  got_find_t f = {object, 0, NULL, 0, 0, 0};
  dl_iterate_phdr(got_find, &f);
  if (!f.found || !f.dyn) return -1;
  uintptr_t symtab = 0, strtab = 0, jmprel = 0, rela = 0;
  size_t pltrelsz = 0, relasz = 0, relaent = sizeof(Elf64_Rela);
  int64_t pltrel = DT_RELA;
  for (const Elf64_Dyn *d = f.dyn; d->d_tag != DT_NULL; d++) {
    switch (d->d_tag) {
    case DT_SYMTAB: symtab = got_ptr(d->d_un.d_ptr, f.base); break;
    case DT_STRTAB: strtab = got_ptr(d->d_un.d_ptr, f.base); break;
    case DT_JMPREL: jmprel = got_ptr(d->d_un.d_ptr, f.base); break;
    case DT_PLTRELSZ: pltrelsz = d->d_un.d_val; break;
    case DT_PLTREL: pltrel = (int64_t)d->d_un.d_val; break;
    case DT_RELA: rela = got_ptr(d->d_un.d_ptr, f.base); break;
    case DT_RELASZ: relasz = d->d_un.d_val; break;
    case DT_RELAENT: relaent = d->d_un.d_val; break;
    default: break;
    }
  }
  /* both platforms use RELA relocations; anything else is not ours to read */
  if (!symtab || !strtab || pltrel != DT_RELA || relaent != sizeof(Elf64_Rela)) return -1;
  long ps = sysconf(_SC_PAGESIZE);
  uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096;
  const Elf64_Sym *syms = (const Elf64_Sym *)symtab;
  const char *strs = (const char *)strtab;
  struct {
    uintptr_t at;
    size_t bytes;
  } tables[2] = {{jmprel, pltrelsz}, {rela, relasz}};
  int written = 0;
  for (int t = 0; t < 2; t++) {
    const Elf64_Rela *r = (const Elf64_Rela *)tables[t].at;
    size_t n = r ? tables[t].bytes / sizeof *r : 0;
    for (size_t i = 0; i < n; i++) {
      uint32_t type = (uint32_t)ELF64_R_TYPE(r[i].r_info);
      uint32_t si = (uint32_t)ELF64_R_SYM(r[i].r_info);
      if ((type != GOT_JUMP_SLOT && type != GOT_GLOB_DAT) || si == 0) continue;
      if (strcmp(strs + syms[si].st_name, symbol) != 0) continue;
      if (got_write((void **)(f.base + r[i].r_offset), fn, &f, page)) return -1;
      written++;
    }
  }
  return written;
}

#else /* not ELF64 on x86-64 or AArch64 */

int llamp_got_redirect(const char *object, const char *symbol, void *fn) {
  (void)object, (void)symbol, (void)fn;
  return -1;
}

#endif
