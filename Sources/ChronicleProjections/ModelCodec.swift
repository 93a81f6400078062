import ChronicleTodoDomain
import Foundation

/// The binary layouts of the read models' keys and values.
///
/// Integers are big-endian so keys sort numerically; ids are their 16 raw bytes,
/// which sort like the lowercase text form. Values are compact, not JSON:
///
/// ```
/// day key      u16 year ‖ u8 month ‖ u8 day
/// user         i64 age ‖ name (UTF-8, rest)
/// todo         u8 flags (1 completed, 2 has user, 4 has memo, 8 has tags) ‖ day ‖ [user id]
///              ‖ [u16 tag count ‖ tag ids] ‖ u32 title length ‖ title ‖ [memo, rest]
///              (the tags it was tagged with and not untagged, deleted tags included: reads show the live ones)
/// tag          color (7 bytes, `#rrggbb`) ‖ u64 position of the name's write ‖ u16 shown as (1: the name, n: ` (n)`)
///              ‖ name (UTF-8, rest)
/// stat         i64 total ‖ i64 completed
/// name key     escaped NFC name ‖ 00 00 ‖ id   (00 inside the name is written 00 FF; tags: the folded name)
/// tag key      tag id ‖ day ‖ todo id          (`todos.by-tag`)
/// hidden       u8 flags (1 deleted, 2 its user deleted) ‖ the entity's own encoding (`<model>.hidden`)
/// ```
enum ModelCodec {
    // MARK: - Days

    /// A day as a sortable number.
    static func dayKey(_ day: CalendarDay) -> UInt32 {
        UInt32(day.year) << 16 | UInt32(day.month) << 8 | UInt32(day.day)
    }

    static func day(fromKey key: UInt32) throws(ProjectionError) -> CalendarDay {
        do {
            return try CalendarDay(year: Int(key >> 16), month: Int(key >> 8 & 0xFF), day: Int(key & 0xFF))
        } catch {
            throw .corruptModel("invalid day key \(key)")
        }
    }

    // MARK: - Users

    static func encode(_ user: User, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        out.appendBigEndian(Int64(user.age))
        out.append(contentsOf: user.name.utf8)
    }

    static func decodeUser(id: UUID, _ bytes: UnsafeRawBufferPointer) throws(ProjectionError) -> User {
        var reader = ModelReader(bytes)
        let age = Int(try reader.integer(Int64.self))
        return User(id: id, name: reader.rest(), age: age)
    }

    /// The by-name index key. Users are listed by name, then id, where names compare as
    /// the bytes of their NFC form (Unicode scalar order, canonically equivalent spellings
    /// equal). That is Swift's own order for strings but for rare cases such as
    /// U+212B ANGSTROM SIGN, where Swift's comparison is not a total order.
    ///
    /// LMDB keys are at most 511 bytes; a longer name is cut to ``maxNamePrefix`` bytes and
    /// marked (`00 01` instead of `00 00`), and ``ReadModels/users()`` orders the few users
    /// sharing such a prefix by their full ``nameOrder(_:id:)``.
    static func nameKey(_ name: String, id: UUID, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        var truncated = false
        for byte in normalized(name).utf8 {
            if out.count + (byte == 0 ? 2 : 1) > maxNamePrefix {
                truncated = true
                break
            }
            out.append(byte)
            if byte == 0 { out.append(0xFF) }
        }
        out.append(0)
        out.append(truncated ? 1 : 0)
        out.appendID(id)
    }

    /// The longest name part of a name key (the rest: a 2-byte marker and the 16-byte id).
    static let maxNamePrefix = 440

    /// The full order of users by name, then id (what the name index approximates for very long names).
    static func nameOrder(_ name: String, id: UUID) -> [UInt8] {
        var out: [UInt8] = []
        for byte in normalized(name).utf8 {
            out.append(byte)
            if byte == 0 { out.append(0xFF) }
        }
        out.append(0)
        out.append(0)
        out.appendID(id)
        return out
    }

    /// Whether a name key holds a cut name.
    static func isTruncatedNameKey(_ key: UnsafeRawBufferPointer) -> Bool {
        key.count >= 18 && key[key.count - 18] == 0 && key[key.count - 17] == 1
    }

    private static func normalized(_ name: String) -> String {
        name.utf8.allSatisfy { $0 < 0x80 } ? name : name.precomposedStringWithCanonicalMapping
    }

    // MARK: - Todos

    static func encode(_ todo: Todo, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        var flags: UInt8 = 0
        if todo.isCompleted { flags |= 1 }
        if todo.userId != nil { flags |= 2 }
        if todo.memo != nil { flags |= 4 }
        if !todo.tags.isEmpty { flags |= 8 }
        out.append(flags)
        out.appendBigEndian(dayKey(todo.deadline))
        if let userId = todo.userId { out.appendID(userId) }
        if !todo.tags.isEmpty {
            out.appendBigEndian(UInt16(todo.tags.count))
            for tag in todo.tags { out.appendID(tag) }
        }
        out.appendBigEndian(UInt32(todo.title.utf8.count))
        out.append(contentsOf: todo.title.utf8)
        if let memo = todo.memo { out.append(contentsOf: memo.utf8) }
    }

    static func decodeTodo(id: UUID, _ bytes: UnsafeRawBufferPointer) throws(ProjectionError) -> Todo {
        var reader = ModelReader(bytes)
        let flags = try reader.integer(UInt8.self)
        let deadline = try day(fromKey: try reader.integer(UInt32.self))
        let userId = flags & 2 != 0 ? try reader.id() : nil
        var tags: [UUID] = []
        if flags & 8 != 0 {
            let count = Int(try reader.integer(UInt16.self))
            tags.reserveCapacity(count)
            for _ in 0..<count { tags.append(try reader.id()) }
        }
        let title = try reader.string(length: Int(try reader.integer(UInt32.self)))
        let memo = flags & 4 != 0 ? reader.rest() : nil
        return Todo(id: id, title: title, deadline: deadline, userId: userId, memo: memo, isCompleted: flags & 1 != 0,
                    tags: tags)
    }

    /// `todos.by-tag` key: tag id ‖ day ‖ todo id (a tag's todos come out by deadline, then id).
    static func tagKey(_ todo: Todo, tag: UUID, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        out.appendID(tag)
        out.appendBigEndian(dayKey(todo.deadline))
        out.appendID(todo.id)
    }

    // MARK: - Tags

    static func encode(_ tag: StoredTag, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        out.append(contentsOf: tag.color.utf8)
        out.appendBigEndian(tag.nameWrittenAt)
        out.appendBigEndian(tag.shownAs)
        out.append(contentsOf: tag.name.utf8)
    }

    static func decodeStoredTag(id: UUID, _ bytes: UnsafeRawBufferPointer) throws(ProjectionError) -> StoredTag {
        var reader = ModelReader(bytes)
        let color = try reader.string(length: 7)
        let writtenAt = try reader.integer(UInt64.self)
        let shownAs = try reader.integer(UInt16.self)
        return StoredTag(id: id, name: reader.rest(), color: color, nameWrittenAt: writtenAt, shownAs: shownAs)
    }

    /// `todos.by-deadline` key: day ‖ todo id.
    static func deadlineKey(_ todo: Todo, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        out.appendBigEndian(dayKey(todo.deadline))
        out.appendID(todo.id)
    }

    /// `todos.by-user` key: user id ‖ day ‖ todo id (a user's todos come out by deadline, then id).
    static func userKey(_ todo: Todo, owner: UUID, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        out.appendID(owner)
        out.appendBigEndian(dayKey(todo.deadline))
        out.appendID(todo.id)
    }

    // MARK: - Daily stats

    static func encodeStat(total: Int, completed: Int, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        out.appendBigEndian(Int64(total))
        out.appendBigEndian(Int64(completed))
    }

    static func decodeStat(_ bytes: UnsafeRawBufferPointer) throws(ProjectionError) -> (total: Int, completed: Int) {
        var reader = ModelReader(bytes)
        return (Int(try reader.integer(Int64.self)), Int(try reader.integer(Int64.self)))
    }

    // MARK: - Ids

    /// The id in the 16 bytes at `offset`.
    static func id(in bytes: UnsafeRawBufferPointer, at offset: Int) throws(ProjectionError) -> UUID {
        guard offset >= 0, bytes.count - offset >= 16 else { throw .corruptModel("a key of \(bytes.count) bytes") }
        var reader = ModelReader(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 16]))
        return try reader.id()
    }
}
