/*
 * LD_PRELOAD shim for Debian's linux.uml (6.1) on hosts whose XSAVE area is larger than the
 * one UML 6.1 knows (AVX-512: 2,432 bytes and more with PKRU or AMX, up to about 11 KB,
 * against UML's fixed 832-byte struct _xstate).
 *
 * UML saves and restores the FPU state of the host processes that run its guest code with
 * ptrace(PTRACE_GETREGSET / PTRACE_SETREGSET, NT_X86_XSTATE) and a buffer of its own fixed
 * size. The host kernel truncates a GET to that size, but refuses (EFAULT) a SET whose
 * size is not the full XSAVE size (arch/x86/kernel/fpu/regset.c, xstateregs_set), so the
 * first guest process dies at its first context switch ("ptrace set fp regs failed,
 * errno = 14", kernel panic: attempted to kill init). Later UML kernels size the buffer
 * from the host; Debian bookworm has only 6.1.
 *
 * This shim makes every such call full-size: a GET reads the whole area, gives UML its
 * part and keeps the rest (AVX-512, AMX, PKRU) under UML's buffer address, which is the
 * per-guest-thread register save area; a SET rebuilds the whole area from UML's part and
 * the rest kept for that buffer. With nothing kept for the buffer (a thread UML has not
 * saved yet), the components beyond UML's part are marked as in their initial state
 * (their XSTATE_BV bits cleared), never taken from another thread. The table of kept
 * parts is bounded: when it is full, a GET takes over the slot its buffer hashes to.
 * A mutex serialises the two calls (UML 6.1 calls ptrace from one host thread; the lock
 * costs nothing then). Every other ptrace call goes straight to the C library.
 * netem_agent.testing.uml builds it with gcc and preloads it into linux.uml.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>

#define GETREGSET 0x4204
#define SETREGSET 0x4205
#define NT_X86_XSTATE 0x202
#define MAX_AREA 65536
#define SLOTS 8192
/* XSAVE header: XSTATE_BV at byte 512 of the standard (uncompacted) format ptrace uses */
#define XSTATE_BV_OFFSET 512
/* x87, SSE, AVX: the components inside UML's 832 bytes (0-575 legacy + header, 576-831 YMM) */
#define UML_COMPONENTS 0x7ULL

typedef long (*ptrace_fn)(int, pid_t, void *, void *);

static ptrace_fn real_ptrace;
static char scratch[MAX_AREA];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

struct kept {
	void *owner;  /* UML's buffer */
	size_t from;  /* bytes kept start at this offset */
	size_t size;  /* full area size */
	char *rest;
};
static struct kept slots[SLOTS];

/* The slot kept for UML's buffer ``owner``, or a free one; NULL when the table is full,
 * unless ``evict``: then the slot ``owner`` hashes to, whatever it held. */
static struct kept *slot_of(void *owner, int evict)
{
	size_t home = ((uintptr_t)owner >> 4) % SLOTS;
	size_t i = home;
	for (size_t n = 0; n < SLOTS; n++, i = (i + 1) % SLOTS) {
		if (slots[i].owner == owner || slots[i].owner == NULL)
			return &slots[i];
	}
	return evict ? &slots[home] : NULL;
}

static long full_get(pid_t pid, void *addr, size_t *size)
{
	struct iovec whole = { scratch, sizeof scratch };
	long ret = real_ptrace(GETREGSET, pid, addr, &whole);
	*size = whole.iov_len;
	return ret;
}

static long get_regset(pid_t pid, void *addr, struct iovec *iov)
{
	size_t size;
	long ret = full_get(pid, addr, &size);
	if (ret < 0)
		return ret;
	size_t given = iov->iov_len < size ? iov->iov_len : size;
	memcpy(iov->iov_base, scratch, given);
	iov->iov_len = given;
	struct kept *k = slot_of(iov->iov_base, 1);
	if (given < size) {
		if (k->rest == NULL || k->size != size) {
			free(k->rest);
			k->rest = malloc(size);
		}
		k->owner = k->rest != NULL ? iov->iov_base : NULL;
		if (k->rest != NULL) {
			k->from = given;
			k->size = size;
			memcpy(k->rest + given, scratch + given, size - given);
		}
	}
	return ret;
}

/* SET: UML's part over the rest kept for its buffer, or over initial-state components */
static long set_regset(pid_t pid, void *addr, struct iovec *iov)
{
	size_t size;
	long ret = full_get(pid, addr, &size);
	if (ret < 0 || iov->iov_len >= size)
		return real_ptrace(SETREGSET, pid, addr, iov);
	struct kept *k = slot_of(iov->iov_base, 0);
	int kept = k != NULL && k->owner == iov->iov_base && k->size == size &&
		   k->from == iov->iov_len;
	if (kept)
		memcpy(scratch + k->from, k->rest + k->from, size - k->from);
	memcpy(scratch, iov->iov_base, iov->iov_len);
	if (!kept && iov->iov_len >= XSTATE_BV_OFFSET + sizeof(uint64_t)) {
		uint64_t bv;
		memcpy(&bv, scratch + XSTATE_BV_OFFSET, sizeof bv);
		bv &= UML_COMPONENTS;
		memcpy(scratch + XSTATE_BV_OFFSET, &bv, sizeof bv);
	}
	struct iovec whole = { scratch, size };
	return real_ptrace(SETREGSET, pid, addr, &whole);
}

long ptrace(int request, ...)
{
	va_list ap;
	va_start(ap, request);
	pid_t pid = va_arg(ap, pid_t);
	void *addr = va_arg(ap, void *);
	void *data = va_arg(ap, void *);
	va_end(ap);
	if (real_ptrace == NULL)
		real_ptrace = (ptrace_fn)dlsym(RTLD_NEXT, "ptrace");
	if ((request != GETREGSET && request != SETREGSET) ||
	    (uintptr_t)addr != NT_X86_XSTATE || data == NULL)
		return real_ptrace(request, pid, addr, data);
	pthread_mutex_lock(&lock);
	long ret = request == GETREGSET ? get_regset(pid, addr, data) : set_regset(pid, addr, data);
	pthread_mutex_unlock(&lock);
	return ret;
}
