#ifndef CLMDB_GUARD_H
#define CLMDB_GUARD_H
// LMDB's calls that walk the data file's pages, each run under a fault guard.
//
// LMDB trusts its file: a flipped bit in a page can send it through a null or wild
// pointer (a node flagged as holding duplicates in a table without them is one), and the
// process dies with SIGSEGV or SIGBUS. Each function here calls its LMDB namesake with the
// thread marked as guarded; a SIGSEGV or SIGBUS raised inside the call jumps back out and
// the call returns MDB_CORRUPTED; so does a failed check of LMDB's own (an assertion), once
// chronicle_mdb_env_guard_asserts has been called on the environment. A fault anywhere else goes on to the handler that was
// there before (the Swift runtime's backtracer), as if the guard were not installed.
//
// After a guarded fault the transaction is in an unknown state: the caller must not use it
// or its cursors again but abort it (chronicle_mdb_txn_commit aborts it itself, as a failed
// commit does).
#include <lmdb.h>
// The target's other header, a hint to the processor (not a guarded call).
#include "CLMDBPrefetch.h"

int chronicle_mdb_get(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data);
int chronicle_mdb_put(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data, unsigned int flags);
int chronicle_mdb_del(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data);
int chronicle_mdb_drop(MDB_txn *txn, MDB_dbi dbi, int del);
int chronicle_mdb_stat(MDB_txn *txn, MDB_dbi dbi, MDB_stat *stat);
int chronicle_mdb_dbi_open(MDB_txn *txn, const char *name, unsigned int flags, MDB_dbi *dbi);
int chronicle_mdb_cursor_open(MDB_txn *txn, MDB_dbi dbi, MDB_cursor **cursor);
int chronicle_mdb_cursor_get(MDB_cursor *cursor, MDB_val *key, MDB_val *data, MDB_cursor_op op);
int chronicle_mdb_cursor_put(MDB_cursor *cursor, MDB_val *key, MDB_val *data, unsigned int flags);
int chronicle_mdb_cursor_del(MDB_cursor *cursor, unsigned int flags);
int chronicle_mdb_txn_commit(MDB_txn *txn);
/// A compacting copy walks every page. After a guarded fault in it, the copy's writer thread
/// and read transaction are left as they were: the caller must stop using the environment.
int chronicle_mdb_env_copy2(MDB_env *env, const char *path, unsigned int flags);

/// Makes a failed check of LMDB's own (an assertion such as "root > 1", which a damaged page
/// can fail) inside a guarded call return MDB_CORRUPTED like a fault, instead of aborting.
/// Call once per environment, after mdb_env_create.
int chronicle_mdb_env_guard_asserts(MDB_env *env);

/// How many faults (and failed checks) the guard has turned into MDB_CORRUPTED in this process.
unsigned long chronicle_lmdb_guarded_faults(void);

#endif
