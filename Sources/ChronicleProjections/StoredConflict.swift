import ChronicleLMDB

/// How the stored entities keep a conflict (`conflicts`: u64 position of the pulled event ‖
/// u16 index → stream ‖ 00 ‖ kind ‖ 00 ‖ detail): what a merge overruled of this store's
/// writes, device-specific, in the log's order.
enum StoredConflict {
    static func encode(_ conflict: MergeConflict) -> [UInt8] {
        Array(conflict.stream.utf8) + [0] + Array(conflict.kind.utf8) + [0] + Array(conflict.detail.utf8)
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) throws(ProjectionError) -> MergeConflict {
        let parts = bytes.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .corruptModel("a conflict of \(bytes.count) bytes") }
        return MergeConflict(stream: String(decoding: parts[0], as: UTF8.self), kind: String(decoding: parts[1], as: UTF8.self),
                             detail: String(decoding: parts[2], as: UTF8.self))
    }
}
