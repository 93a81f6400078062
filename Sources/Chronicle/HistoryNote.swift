import ChronicleLog
import Foundation

/// What the store notes with each batch it appends (`EventLog.append(_:keys:note:)`), from
/// which ``UndoHistory`` is read: a command (alone, or one of an ``ChronicleStore/undoGroup(_:)``),
/// or the undo or redo of one or more steps.
///
/// A step is named by the first position of its first batch. An undo or redo batch holds the
/// compensating events of each step it reverts one after another: `parts` says whose are
/// which (the step, and how many of the batch's events, in order).
///
/// Bytes: `c` (a command), `c` ‖ 16-byte group id (a command of a group), and `u` (undo) or
/// `r` (redo) ‖ for each part: u64 step ‖ u32 event count; integers big-endian.
enum HistoryNote: Equatable {
    struct Part: Equatable {
        var step: UInt64
        var count: UInt32
    }

    case command(group: UUID?)
    case undo([Part])
    case redo([Part])

    var bytes: [UInt8] {
        switch self {
        case .command(nil): return [UInt8(ascii: "c")]
        case .command(let group?): return [UInt8(ascii: "c")] + withUnsafeBytes(of: group.uuid) { Array($0) }
        case .undo(let parts): return [UInt8(ascii: "u")] + Self.encode(parts)
        case .redo(let parts): return [UInt8(ascii: "r")] + Self.encode(parts)
        }
    }

    /// Nil for bytes this version does not know (a note of a later version is skipped).
    init?(_ bytes: [UInt8]) {
        switch (bytes.first, bytes.count) {
        case (UInt8(ascii: "c"), 1):
            self = .command(group: nil)
        case (UInt8(ascii: "c"), 17):
            self = .command(group: UUID(uuid: bytes.dropFirst().withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }))
        case (UInt8(ascii: "u"), _):
            guard let parts = Self.decode(bytes.dropFirst()) else { return nil }
            self = .undo(parts)
        case (UInt8(ascii: "r"), _):
            guard let parts = Self.decode(bytes.dropFirst()) else { return nil }
            self = .redo(parts)
        default:
            return nil
        }
    }

    private static func encode(_ parts: [Part]) -> [UInt8] {
        parts.flatMap { part in
            withUnsafeBytes(of: part.step.bigEndian) { Array($0) } + withUnsafeBytes(of: part.count.bigEndian) { Array($0) }
        }
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> [Part]? {
        guard !bytes.isEmpty, bytes.count % 12 == 0 else { return nil }
        return stride(from: bytes.startIndex, to: bytes.endIndex, by: 12).map { start in
            Part(step: integer(bytes[start..<start + 8]), count: UInt32(integer(bytes[start + 8..<start + 12])))
        }
    }

    private static func integer(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
