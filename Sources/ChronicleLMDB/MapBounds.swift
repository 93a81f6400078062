import CLMDB

/// Checks that a key or value LMDB hands back lies in pages the data file holds.
///
/// LMDB trusts the file: a damaged node whose size says more bytes than its page holds
/// gives a key or value that runs on past its page, and past the end of the file the map
/// has no pages: reading there kills the process with SIGBUS. In a read transaction every
/// key and value is checked before it is handed on, from the page it lies in (the map is
/// page-aligned): an item in a leaf or branch page must end within that page; a value in
/// overflow pages (its page header marked `P_OVERFLOW`, the value right after it) must fit
/// the pages the header counts, and those must end by the newest commit's last page. One
/// that does not is ``LMDBError/corrupted``. A write transaction's items are not checked:
/// the pages it changed are copies in memory, not aligned in the map.
struct MapBounds {
    /// Whether items are checked (read transactions).
    let checked: Bool
    /// LMDB's page size (the OS page size, a power of two, which the map is aligned to).
    let pageSize: UInt
    /// The newest commit's last page: the file holds every page up to it.
    let lastPage: UInt

    /// LMDB's page header: page number (8 bytes), padding (2), flags (2), then for an
    /// overflow page its page count (4).
    static let headerSize: UInt = 16
    static let overflowFlag: UInt16 = 0x04

    init(transaction: OpaquePointer, isWritable: Bool) {
        checked = !isWritable
        // A write transaction checks nothing: no need to ask LMDB for sizes on its path.
        guard checked else {
            pageSize = 0
            lastPage = 0
            return
        }
        var info = MDB_envinfo()
        var stat = MDB_stat()
        let env = mdb_txn_env(transaction)
        mdb_env_info(env, &info)
        mdb_env_stat(env, &stat)
        pageSize = UInt(stat.ms_psize)
        lastPage = UInt(info.me_last_pgno)
    }

    /// `item` as a buffer, once its bytes are known to lie in pages the file holds.
    @inline(__always)
    func buffer(_ item: MDB_val) throws(LMDBError) -> UnsafeRawBufferPointer {
        if checked, let data = item.mv_data, item.mv_size > 0 { try check(data, count: UInt(item.mv_size)) }
        return UnsafeRawBufferPointer(start: item.mv_data, count: item.mv_size)
    }

    private func check(_ data: UnsafeMutableRawPointer, count: UInt) throws(LMDBError) {
        let offset = UInt(bitPattern: data) & (pageSize &- 1)
        if offset == Self.headerSize {
            let header = data - Int(Self.headerSize)
            if header.loadUnaligned(fromByteOffset: 10, as: UInt16.self) & Self.overflowFlag != 0 {
                let page = UInt(header.loadUnaligned(as: UInt64.self))
                let pages = UInt(header.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
                guard pages > 0, page <= lastPage, pages - 1 <= lastPage - page,
                      count <= pages * pageSize - Self.headerSize else { throw .corrupted }
                return
            }
        }
        guard count <= pageSize - offset else { throw .corrupted }
    }
}
