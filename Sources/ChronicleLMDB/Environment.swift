import CLMDB
import CLMDBGuard
import Foundation
import Synchronization

/// An LMDB environment: one memory-mapped file holding any number of named databases.
///
/// ```swift
/// let env = try Environment(path: "/tmp/store", options: .init(maxDatabases: 8))
/// let db = try env.openDatabase(named: "events")
/// try env.write { txn in try txn.put(db, key: [1], value: [2]) }
/// let value = try env.read { txn in try txn.get(db, key: [1]).map(Array.init) }
/// ```
///
/// ## Thread rules
/// The `MDB_env` handle itself is thread-safe. The environment is opened with
/// `MDB_NOTLS`, so a read transaction is not bound to the thread that began it.
/// Transactions only exist inside the synchronous closures of ``read(_:)`` and
/// ``write(_:)``: a write transaction therefore begins and ends on one thread (as
/// LMDB requires) and no transaction can outlive an `await`. Values handed to a
/// closure point into the map and are valid only inside it.
///
/// Every transaction holds `mapLock` shared; growing the map holds it exclusively,
/// because `mdb_env_set_mapsize` must not run while this process has a transaction
/// open. Do not begin a transaction from inside another one's closure.
///
/// ## Monotonic reads
/// LMDB 0.9 begins a read transaction by reading the last committed transaction id and
/// then copying that id's meta page. When two commits land in between, the second has
/// already rewritten that meta page, so the reader sees a snapshot newer than its id, and
/// the next reader, correctly on the id before, appears to go back in time.
/// ``read(_:)`` detects this (a commit two past its id had begun) and begins again.
public final class Environment: @unchecked Sendable {
    /// How to open an environment.
    public struct Options: Sendable {
        /// The initial map size in bytes. The map grows by itself when full.
        public var mapSize: Int
        /// The most named databases the environment may hold.
        public var maxDatabases: UInt32
        /// The size of the reader lock table (concurrent read transactions).
        public var maxReaders: UInt32
        /// Skip the fsync at commit (`MDB_NOSYNC`): faster, not durable. For scratch stores.
        public var noSync: Bool
        /// Write pages in place in the map (`MDB_WRITEMAP`) instead of copying them to
        /// malloc'ed buffers first: a large write transaction then costs file-backed
        /// page cache, not anonymous memory. The file's blocks are reserved up to the map
        /// size (`posix_fallocate`) so that a full disk fails a growth with an error
        /// instead of killing the process with `SIGBUS` on a write into a hole.
        public var writeMap: Bool
        /// The upper bound the map may grow to.
        public var maxMapSize: Int
        /// `true` stores everything in one file `path` instead of a directory.
        public var singleFile: Bool

        /// Makes options; by default a 64 MiB map that may grow to 1 TiB, 32 named databases, 510 readers,
        /// durable commits, no write map, and a directory.
        public init(mapSize: Int = 64 << 20, maxDatabases: UInt32 = 32, maxReaders: UInt32 = 510,
                    noSync: Bool = false, writeMap: Bool = false, maxMapSize: Int = 1 << 40,
                    singleFile: Bool = false) {
            self.mapSize = mapSize
            self.maxDatabases = maxDatabases
            self.maxReaders = maxReaders
            self.noSync = noSync
            self.writeMap = writeMap
            self.maxMapSize = maxMapSize
            self.singleFile = singleFile
        }
    }

    let handle: OpaquePointer
    /// The folder (or file) the environment lives in.
    public let path: String
    private let options: Options
    private let mapLock: UnsafeMutablePointer<pthread_rwlock_t>
    /// The id of the newest write transaction this process began committing.
    private let committingID = Atomic<Int>(0)
    /// How often a read transaction begins again before it takes the snapshot it got.
    private static let snapshotAttempts = 16

    /// Opens (creating when needed) the environment at `path`.
    ///
    /// - parameters:
    ///   - path: a directory, created if missing (or a file with `singleFile`).
    ///   - options: sizes and flags.
    /// - throws: ``LMDBError`` when LMDB refuses the file (damaged, incompatible, no access).
    public init(path: String, options: Options = Options()) throws(LMDBError) {
        if !options.singleFile {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw LMDBError.system(EACCES)
            }
        }
        var env: OpaquePointer?
        try check(mdb_env_create(&env))
        guard let env else { throw LMDBError.system(ENOMEM) }
        var flags = UInt32(MDB_NOTLS)
        if options.noSync { flags |= UInt32(MDB_NOSYNC) }
        if options.writeMap { flags |= UInt32(MDB_WRITEMAP) }
        if options.singleFile { flags |= UInt32(MDB_NOSUBDIR) }
        do {
            // A damaged page that fails one of LMDB's own checks inside a guarded call
            // becomes MDB_CORRUPTED, as a fault there does, instead of an abort.
            try check(chronicle_mdb_env_guard_asserts(env))
            try check(mdb_env_set_maxdbs(env, options.maxDatabases))
            try check(mdb_env_set_maxreaders(env, options.maxReaders))
            try check(mdb_env_set_mapsize(env, options.mapSize))
            try check(mdb_env_open(env, path, flags, 0o644))
            try Self.checkFileLength(env)
            if options.writeMap {
                var info = MDB_envinfo()
                try check(mdb_env_info(env, &info))
                try Self.reserve(env, bytes: info.me_mapsize)
            }
        } catch {
            mdb_env_close(env)
            throw error
        }
        self.handle = env
        self.path = path
        self.options = options
        self.mapLock = .allocate(capacity: 1)
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        #if os(Linux)
        // A resize waiting for readers must not starve behind a stream of new ones.
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        #endif
        pthread_rwlock_init(mapLock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
        // A reader slot left by a process that died would pin old pages forever.
        _ = try? readerCheck()
    }

    /// Refuses a data file shorter than its last committed page: LMDB would map the missing
    /// pages and the first read of one would kill the process with SIGBUS.
    ///
    /// The length is read after the page count, and the file only grows, so another
    /// process committing meanwhile cannot make a sound file look short.
    private static func checkFileLength(_ env: OpaquePointer) throws(LMDBError) {
        var info = MDB_envinfo()
        try check(mdb_env_info(env, &info))
        var pages = MDB_stat()
        try check(mdb_env_stat(env, &pages))
        var fd: Int32 = -1
        try check(mdb_env_get_fd(env, &fd))
        var file = stat()
        guard fstat(fd, &file) == 0 else { throw LMDBError.system(errno) }
        let expected = (info.me_last_pgno + 1) * Int(pages.ms_psize)
        if Int(file.st_size) < expected {
            throw LMDBError.truncated(fileBytes: Int(file.st_size), expectedBytes: expected)
        }
    }

    /// Allocates the data file's blocks up to `bytes` (a no-op where they already are).
    private static func reserve(_ env: OpaquePointer, bytes: Int) throws(LMDBError) {
        var fd: Int32 = -1
        try check(mdb_env_get_fd(env, &fd))
        let code = posix_fallocate(fd, 0, off_t(bytes))
        // Filesystems without fallocate keep LMDB's sparse file, as without writeMap's reservation.
        if code != 0 && code != EOPNOTSUPP && code != EINVAL { throw LMDBError.system(code) }
    }

    deinit {
        mdb_env_close(handle)
        pthread_rwlock_destroy(mapLock)
        mapLock.deallocate()
    }

    // MARK: - Databases

    /// Opens a named database (or the main one with `nil`), creating it when `create` is set.
    public func openDatabase(named name: String?, create: Bool = true) throws -> Database {
        try write { txn in try txn.openDatabase(named: name, create: create) }
    }

    // MARK: - Transactions

    /// Runs `body` in a read-only transaction. Values it sees are valid only inside.
    public func read<T>(_ body: (Transaction) throws -> T) throws -> T {
        var attempts = 0
        while true {
            pthread_rwlock_rdlock(mapLock)
            var txn: OpaquePointer?
            let code = mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &txn)
            if code == MDB_MAP_RESIZED {
                pthread_rwlock_unlock(mapLock)
                adoptResizedMap()
                continue
            }
            if code == MDB_READERS_FULL, (try? readerCheck()) ?? 0 > 0 {
                pthread_rwlock_unlock(mapLock)
                continue
            }
            let mayBeNewer = code == MDB_SUCCESS && txn.map(snapshotMayBeNewer(than:)) == true
            if mayBeNewer, let txn, attempts < Self.snapshotAttempts {
                mdb_txn_abort(txn)
                pthread_rwlock_unlock(mapLock)
                attempts += 1
                continue
            }
            defer { pthread_rwlock_unlock(mapLock) }
            try check(code)
            guard let txn else { throw LMDBError.badTransaction }
            let result: T
            do {
                result = try body(Transaction(handle: txn, isWritable: false, snapshotID: mayBeNewer ? nil : UInt64(mdb_txn_id(txn))))
            } catch {
                mdb_txn_abort(txn)
                throw error
            }
            // Committing (not aborting) keeps database handles opened inside for later transactions.
            try check(chronicle_mdb_txn_commit(txn))
            return result
        }
    }

    /// Runs `body` in a write transaction and commits it when `body` returns.
    ///
    /// When the map is full the transaction is aborted, the map grows and `body` runs
    /// again from the start, so `body` must only act through `txn`. A thrown error
    /// aborts the transaction: nothing it wrote stays.
    public func write<T>(_ body: (Transaction) throws -> T) throws -> T {
        while true {
            pthread_rwlock_rdlock(mapLock)
            var txn: OpaquePointer?
            let code = mdb_txn_begin(handle, nil, 0, &txn)
            if code == MDB_MAP_RESIZED {
                pthread_rwlock_unlock(mapLock)
                adoptResizedMap()
                continue
            }
            guard code == MDB_SUCCESS, let txn else {
                pthread_rwlock_unlock(mapLock)
                throw LMDBError(code: code)
            }
            let result: T
            do {
                result = try body(Transaction(handle: txn, isWritable: true))
            } catch LMDBError.mapFull {
                mdb_txn_abort(txn)
                pthread_rwlock_unlock(mapLock)
                try grow()
                continue
            } catch {
                mdb_txn_abort(txn)
                pthread_rwlock_unlock(mapLock)
                throw error
            }
            committingID.store(mdb_txn_id(txn), ordering: .releasing)
            let commit = chronicle_mdb_txn_commit(txn)
            pthread_rwlock_unlock(mapLock)
            if commit == MDB_MAP_FULL {
                try grow()
                continue
            }
            try check(commit)
            return result
        }
    }

    /// `true` when a commit two past `txn`'s id had begun (in this process, or finished in
    /// another) by now: the meta page `txn` copied may already hold that newer commit.
    private func snapshotMayBeNewer(than txn: OpaquePointer) -> Bool {
        let id = mdb_txn_id(txn)
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        let newest = max(info.me_last_txnid, committingID.load(ordering: .acquiring))
        return newest >= id + 2
    }

    // MARK: - Map size

    /// The map size this process uses now, in bytes.
    public func currentMapSize() -> Int {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        return info.me_mapsize
    }

    /// Grows the map (up to `maxMapSize`), waiting for this process's transactions to end: a
    /// map below 64 MiB goes straight to 64 MiB (a small store starts small, and one that
    /// fills up pays one growth, not six), then it grows by a quarter (at least 64 MiB, at most
    /// 1 GiB a step). The file is reserved up to the map, so a step is disk taken before it is
    /// used: doubling left a rebuilt 1,000,000-event models file at 1 GiB for 365 MiB in use.
    private func grow() throws(LMDBError) {
        pthread_rwlock_wrlock(mapLock)
        defer { pthread_rwlock_unlock(mapLock) }
        let current = currentMapSize()
        guard current < options.maxMapSize else { throw LMDBError.mapFull }
        try resize(to: nextMapSize(after: current))
    }

    /// The size the map grows to from `size` (``grow()``'s steps).
    private func nextMapSize(after size: Int) -> Int {
        let floor = 64 << 20
        let step = size < floor ? floor - size : max(floor, min(size / 4, 1 << 30))
        return min(size + step, options.maxMapSize)
    }

    /// Sets the map's size, the file reserved up to it first (`writeMap`: LMDB extends the
    /// file itself, but sparsely). The caller holds the map lock for writing.
    private func resize(to size: Int) throws(LMDBError) {
        if options.writeMap { try Self.reserve(handle, bytes: size) }
        try check(mdb_env_set_mapsize(handle, size))
    }

    /// The bytes of the map the last commit this process can see uses: up to its last page,
    /// free pages included (they are reused before the file grows).
    public func usedSize() -> Int {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        var stat = MDB_stat()
        mdb_env_stat(handle, &stat)
        return (info.me_last_pgno + 1) * Int(stat.ms_psize)
    }

    /// Grows the map, in the steps a full map grows by (so the file ends the same size), until
    /// `bytes` more than ``usedSize()`` fit, waiting for this process's transactions to end.
    ///
    /// For a large write about to start: a map that fills halfway through a write transaction
    /// makes LMDB abort it, and ``write(_:)`` runs all of its work again after growing.
    public func ensureRoom(for bytes: Int) throws(LMDBError) {
        // Most calls find room: they wait for no transaction of this process to end.
        pthread_rwlock_rdlock(mapLock)
        let hasRoom = currentMapSize() >= min(usedSize() + bytes, options.maxMapSize)
        pthread_rwlock_unlock(mapLock)
        if hasRoom { return }
        pthread_rwlock_wrlock(mapLock)
        defer { pthread_rwlock_unlock(mapLock) }
        let current = currentMapSize()
        let needed = min(usedSize() + bytes, options.maxMapSize)
        var size = current
        while size < needed { size = nextMapSize(after: size) }
        if size > current { try resize(to: size) }
    }

    /// Grows the map to at least `bytes` now (reserved like any growth), so that a large write
    /// about to start does not fill a small map and run again after growing.
    public func ensureMapSize(atLeast bytes: Int) throws(LMDBError) {
        pthread_rwlock_wrlock(mapLock)
        defer { pthread_rwlock_unlock(mapLock) }
        let size = min(bytes, options.maxMapSize)
        guard currentMapSize() < size else { return }
        try resize(to: size)
    }

    /// Another process grew the map: take its size (passing 0 adopts the file's).
    private func adoptResizedMap() {
        pthread_rwlock_wrlock(mapLock)
        defer { pthread_rwlock_unlock(mapLock) }
        _ = mdb_env_set_mapsize(handle, 0)
    }

    // MARK: - Maintenance

    /// Clears reader slots left by dead processes; returns how many were cleared.
    @discardableResult
    public func readerCheck() throws(LMDBError) -> Int {
        var dead: Int32 = 0
        try check(mdb_reader_check(handle, &dead))
        return Int(dead)
    }

    /// Flushes to disk (only needed with `noSync`).
    public func sync() throws(LMDBError) {
        try check(mdb_env_sync(handle, 1))
    }

    /// Writes a compacted copy of the environment to `path` (a directory that must exist and be empty).
    public func copy(to path: String, compact: Bool = true) throws(LMDBError) {
        // Guarded: the compacting copy walks every page, and a damaged one must not stop the process.
        try check(chronicle_mdb_env_copy2(handle, path, compact ? UInt32(MDB_CP_COMPACT) : 0))
    }
}
