import Domain
import Foundation

/// The binary layouts of the read models' keys and values.
///
/// Integers are big-endian so keys sort numerically; ids are their 16 raw bytes,
/// which sort like the lowercase text form. Values are compact, not JSON:
///
/// ```
/// day key      u16 year ‖ u8 month ‖ u8 day
/// user         i64 age ‖ name (UTF-8, rest)
/// todo         u8 flags (1 completed, 2 has user, 4 has memo) ‖ day ‖ [user id] ‖ u32 title length ‖ title ‖ [memo, rest]
/// stat         i64 total ‖ i64 completed
/// todo mark    day ‖ u8 completed            (the daily-stats projection's own view of a todo)
/// name key     escaped NFC name ‖ 00 00 ‖ user id   (00 inside the name is written 00 FF)
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

    /// The by-name index key: users sort by name (as Swift compares strings), then id.
    static func nameKey(_ name: String, id: UUID, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        // Swift orders strings by their NFC scalars, which is the byte order of NFC UTF-8.
        let isASCII = name.utf8.allSatisfy { $0 < 0x80 }
        for byte in (isASCII ? name : name.precomposedStringWithCanonicalMapping).utf8 {
            out.append(byte)
            if byte == 0 { out.append(0xFF) }
        }
        out.append(0)
        out.append(0)
        out.appendID(id)
    }

    // MARK: - Todos

    static func encode(_ todo: Todo, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        var flags: UInt8 = 0
        if todo.isCompleted { flags |= 1 }
        if todo.userId != nil { flags |= 2 }
        if todo.memo != nil { flags |= 4 }
        out.append(flags)
        out.appendBigEndian(dayKey(todo.deadline))
        if let userId = todo.userId { out.appendID(userId) }
        out.appendBigEndian(UInt32(todo.title.utf8.count))
        out.append(contentsOf: todo.title.utf8)
        if let memo = todo.memo { out.append(contentsOf: memo.utf8) }
    }

    static func decodeTodo(id: UUID, _ bytes: UnsafeRawBufferPointer) throws(ProjectionError) -> Todo {
        var reader = ModelReader(bytes)
        let flags = try reader.integer(UInt8.self)
        let deadline = try day(fromKey: try reader.integer(UInt32.self))
        let userId = flags & 2 != 0 ? try reader.id() : nil
        let title = try reader.string(length: Int(try reader.integer(UInt32.self)))
        let memo = flags & 4 != 0 ? reader.rest() : nil
        return Todo(id: id, title: title, deadline: deadline, userId: userId, memo: memo, isCompleted: flags & 1 != 0)
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

    static func encode(_ mark: TodoMark, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        out.appendBigEndian(dayKey(mark.deadline))
        out.append(mark.isCompleted ? 1 : 0)
    }

    static func decodeMark(_ bytes: UnsafeRawBufferPointer) throws(ProjectionError) -> TodoMark {
        var reader = ModelReader(bytes)
        let deadline = try day(fromKey: try reader.integer(UInt32.self))
        return TodoMark(deadline: deadline, isCompleted: try reader.integer(UInt8.self) != 0)
    }

    // MARK: - Ids

    /// The id in the 16 bytes at `offset`.
    static func id(in bytes: UnsafeRawBufferPointer, at offset: Int) throws(ProjectionError) -> UUID {
        guard offset >= 0, bytes.count - offset >= 16 else { throw .corruptModel("a key of \(bytes.count) bytes") }
        var reader = ModelReader(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 16]))
        return try reader.id()
    }
}
