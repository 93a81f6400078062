import Foundation
import JSONText

/// Reads the members of an event's data: one JSON object, read strictly by ``JSONScanner``
/// (the one JSON reader of Chronicle, shared with the wire protocol), its members kept by name.
///
/// Event data is flat: a member's value is kept when it is a scalar; a nested array or object
/// is checked to its end (by the same rules, duplicate keys included) but not kept.
struct JSONObjectReader {
    /// A member's value. Nested arrays and objects are validated but not kept:
    /// event data is flat.
    enum Value: Equatable, Sendable {
        case null
        case bool(Bool)
        /// The number's literal text, e.g. `"36"` or `"1.5e3"`.
        case number(String)
        case string(String)
        case array
        case object

        /// "a string", "an array", … for messages.
        var kind: String {
            switch self {
            case .null: "null"
            case .bool: "a boolean"
            case .number: "a number"
            case .string: "a string"
            case .array: "an array"
            case .object: "an object"
            }
        }
    }

    /// An object's members in their order, each name once (the scanner refused a repeat).
    /// Event data has a handful: found by comparing names, faster than hashing them into a
    /// dictionary; a lookup in a payload of many unknown members costs one pass.
    struct Members: Sendable {
        private var entries: [(name: String, value: Value)] = []

        mutating func append(_ name: String, _ value: Value) {
            entries.append((name, value))
        }

        /// The value of the member `name`; setting adds it or replaces its value.
        subscript(name: String) -> Value? {
            get { entries.first { $0.name == name }?.value }
            set {
                let index = entries.firstIndex { $0.name == name }
                switch (index, newValue) {
                case (let index?, let value?): entries[index].value = value
                case (let index?, nil): entries.remove(at: index)
                case (nil, let value?): entries.append((name, value))
                case (nil, nil): break
                }
            }
        }
    }

    /// Why the bytes are not a JSON object; `message` completes "data …".
    struct Failure: Error, Equatable {
        var message: String
    }

    /// The top-level object's members.
    /// - throws: ``Failure`` when the bytes are not exactly one JSON object.
    static func members(of bytes: UnsafeRawBufferPointer) throws(Failure) -> Members {
        var scanner = JSONScanner(bytes)
        let result: Result<Members, Failure>
        do throws(JSONSyntaxError) {
            if scanner.nextValueKind() == .object {
                let members = try object(&scanner)
                try scanner.end()
                result = .success(members)
            } else {
                let value = try value(&scanner)
                try scanner.end()
                result = .failure(Failure(message: "must be a JSON object (got \(value.kind))"))
            }
        } catch {
            throw Failure(message: "is not valid JSON: \(error)")
        }
        return try result.get()
    }

    private static func object(_ scanner: inout JSONScanner) throws(JSONSyntaxError) -> Members {
        var members = Members()
        guard try scanner.enterObject() else { return members }
        var names = JSONMemberNames()
        repeat {
            let name = try scanner.memberName(unique: &names)
            members.append(name, try value(&scanner))
        } while try scanner.nextMember()
        return members
    }

    private static func value(_ scanner: inout JSONScanner) throws(JSONSyntaxError) -> Value {
        switch scanner.nextValueKind() {
        case .string: return .string(try scanner.string())
        case .number: return .number(try scanner.numberText())
        case .bool: return .bool(try scanner.bool())
        case .null:
            try scanner.null()
            return .null
        case .object:
            try scanner.skipValue(depth: 1)
            return .object
        case .array:
            try scanner.skipValue(depth: 1)
            return .array
        case nil:
            throw scanner.unexpected()
        }
    }
}
