#include "CLMDBGuard.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

// Where the guarded call on this thread jumps back to, or NULL outside one.
static __thread sigjmp_buf *_Atomic guard_jump __attribute__((tls_model("initial-exec")));
static struct sigaction previous_segv;
static struct sigaction previous_bus;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static atomic_ulong guarded_faults;

static void on_fault(int sig, siginfo_t *info, void *context) {
    sigjmp_buf *jump = atomic_load_explicit(&guard_jump, memory_order_relaxed);
    if (jump != NULL) {
        atomic_store_explicit(&guard_jump, NULL, memory_order_relaxed);
        atomic_fetch_add_explicit(&guarded_faults, 1, memory_order_relaxed);
        siglongjmp(*jump, 1);
    }
    // Not a guarded call: put the previous handler back and return. The faulting
    // instruction runs again and faults again, now into that handler (or the default
    // action), so a crash elsewhere is reported as it always was.
    (void)info;
    (void)context;
    sigaction(sig, sig == SIGBUS ? &previous_bus : &previous_segv, NULL);
}

static void install(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fault;
    sigemptyset(&action.sa_mask);
    // SA_NODEFER: the jump back skips the handler's return, so the signal must not stay
    // blocked (sigsetjmp does not save the mask: that would cost a system call per call).
    action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigaction(SIGSEGV, &action, &previous_segv);
    sigaction(SIGBUS, &action, &previous_bus);
}

// LMDB's own checks (mdb_assert) call this before they abort. Inside a guarded call, a
// failed check is damage like a fault: jump back out, and the call returns MDB_CORRUPTED.
// Elsewhere it returns, and LMDB prints the check and aborts, as it always did.
static void on_assert(MDB_env *env, const char *message) {
    (void)env;
    (void)message;
    sigjmp_buf *jump = atomic_load_explicit(&guard_jump, memory_order_relaxed);
    if (jump != NULL) {
        atomic_store_explicit(&guard_jump, NULL, memory_order_relaxed);
        atomic_fetch_add_explicit(&guarded_faults, 1, memory_order_relaxed);
        siglongjmp(*jump, 1);
    }
}

int chronicle_mdb_env_guard_asserts(MDB_env *env) {
    return mdb_env_set_assert(env, on_assert);
}

unsigned long chronicle_lmdb_guarded_faults(void) {
    return atomic_load(&guarded_faults);
}

// Runs `call` guarded; `on_fault_cleanup` runs after a guarded fault, before returning
// MDB_CORRUPTED.
#define GUARDED(call, on_fault_cleanup)                                         \
    do {                                                                        \
        pthread_once(&install_once, install);                                   \
        sigjmp_buf jump;                                                        \
        if (sigsetjmp(jump, 0) != 0) {                                          \
            on_fault_cleanup;                                                   \
            return MDB_CORRUPTED;                                               \
        }                                                                       \
        atomic_store_explicit(&guard_jump, &jump, memory_order_relaxed);        \
        atomic_signal_fence(memory_order_seq_cst);                              \
        int rc = (call);                                                        \
        atomic_signal_fence(memory_order_seq_cst);                              \
        atomic_store_explicit(&guard_jump, NULL, memory_order_relaxed);         \
        return rc;                                                              \
    } while (0)

int chronicle_mdb_get(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data) {
    GUARDED(mdb_get(txn, dbi, key, data), (void)0);
}

int chronicle_mdb_put(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data, unsigned int flags) {
    GUARDED(mdb_put(txn, dbi, key, data, flags), (void)0);
}

int chronicle_mdb_del(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data) {
    GUARDED(mdb_del(txn, dbi, key, data), (void)0);
}

int chronicle_mdb_drop(MDB_txn *txn, MDB_dbi dbi, int del) {
    GUARDED(mdb_drop(txn, dbi, del), (void)0);
}

int chronicle_mdb_stat(MDB_txn *txn, MDB_dbi dbi, MDB_stat *stat) {
    GUARDED(mdb_stat(txn, dbi, stat), (void)0);
}

int chronicle_mdb_dbi_open(MDB_txn *txn, const char *name, unsigned int flags, MDB_dbi *dbi) {
    GUARDED(mdb_dbi_open(txn, name, flags, dbi), (void)0);
}

int chronicle_mdb_cursor_open(MDB_txn *txn, MDB_dbi dbi, MDB_cursor **cursor) {
    // Opening a cursor on a table first used in this transaction reads its root page.
    GUARDED(mdb_cursor_open(txn, dbi, cursor), (void)0);
}

int chronicle_mdb_cursor_get(MDB_cursor *cursor, MDB_val *key, MDB_val *data, MDB_cursor_op op) {
    GUARDED(mdb_cursor_get(cursor, key, data, op), (void)0);
}

int chronicle_mdb_cursor_put(MDB_cursor *cursor, MDB_val *key, MDB_val *data, unsigned int flags) {
    GUARDED(mdb_cursor_put(cursor, key, data, flags), (void)0);
}

int chronicle_mdb_cursor_del(MDB_cursor *cursor, unsigned int flags) {
    GUARDED(mdb_cursor_del(cursor, flags), (void)0);
}

int chronicle_mdb_env_copy2(MDB_env *env, const char *path, unsigned int flags) {
    GUARDED(mdb_env_copy2(env, path, flags), (void)0);
}

int chronicle_mdb_txn_commit(MDB_txn *txn) {
    // A failed commit frees its transaction; a guarded fault does the same.
    GUARDED(mdb_txn_commit(txn), mdb_txn_abort(txn));
}
