import Foundation
import JSONText
import UUIDText

extension ChronicleModel.EventReader {
    /// A member of an event's data, as the reader keeps it.
    enum DataValue: Sendable {
        case null
        case bool(Bool)
        /// The number's literal text, e.g. `"36"` or `"1.5e3"`.
        case number(String)
        case string(String)
        /// An array of lowercase UUIDs (a set's members), sorted, each once.
        case ids([UUID])
        /// Any other array, or an object: checked to its end, not kept.
        case other(String)

        /// "a string", "an array", … for messages.
        var kind: String {
            switch self {
            case .null: "null"
            case .bool: "a boolean"
            case .number: "a number"
            case .string: "a string"
            case .ids: "an array"
            case .other(let kind): kind
            }
        }
    }

    /// The members of `data`, one JSON object read strictly (RFC 8259, no repeated names, at
    /// most ``JSONScanner/maxDepth`` levels).
    static func members(type: String, data: UnsafeRawBufferPointer) throws(ChronicleModel.EventProblem) -> [String: DataValue] {
        let result = { () -> Result<[String: DataValue], ChronicleModel.EventProblem> in
            var scanner = JSONScanner(data)
            do throws(JSONSyntaxError) {
                guard scanner.nextValueKind() == .object else {
                    let value = try dataValue(&scanner)
                    try scanner.end()
                    return .failure(ChronicleModel.EventProblem("\(type) data must be a JSON object (got \(value.kind))"))
                }
                var members: [String: DataValue] = [:]
                if try scanner.enterObject() {
                    var names = JSONMemberNames()
                    repeat {
                        let name = try scanner.memberName(unique: &names)
                        members[name] = try dataValue(&scanner)
                    } while try scanner.nextMember()
                }
                try scanner.end()
                return .success(members)
            } catch {
                return .failure(ChronicleModel.EventProblem("\(type) data is not valid JSON: \(error)"))
            }
        }()
        return try result.get()
    }

    /// The value at the scanner, read to its end.
    static func dataValue(_ scanner: inout JSONScanner) throws(JSONSyntaxError) -> DataValue {
        switch scanner.nextValueKind() {
        case .string: return .string(try scanner.string())
        case .number: return .number(try scanner.numberText())
        case .bool: return .bool(try scanner.bool())
        case .null:
            try scanner.null()
            return .null
        case .object:
            try scanner.skipValue(depth: 1)
            return .other("an object")
        case .array:
            return try array(&scanner)
        case nil:
            throw scanner.unexpected()
        }
    }

    /// An array: its ids when every element is a lowercase UUID, else checked and passed over.
    private static func array(_ scanner: inout JSONScanner) throws(JSONSyntaxError) -> DataValue {
        var ids: Set<UUID> = []
        var allIDs = true
        guard try scanner.enterArray() else { return .ids([]) }
        repeat {
            if scanner.nextValueKind() == .string {
                if let id = UUID(canonical: try scanner.string()) { ids.insert(id) } else { allIDs = false }
            } else {
                allIDs = false
                _ = try scanner.skipValue(depth: 2)
            }
        } while try scanner.nextElement()
        return allIDs ? .ids(ChronicleModel.sortedIDs(ids)) : .other("an array")
    }
}

extension ChronicleModel {
    /// Ids in the order lists show them: by their lowercase spelling.
    public static func sortedIDs(_ ids: some Sequence<UUID>) -> [UUID] {
        ids.sorted { $0.sortsBefore($1) }
    }
}
